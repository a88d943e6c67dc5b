import type { FastifyInstance } from 'fastify';
import { hotspotSocial, type HotspotSocial } from '@portico/schema';
import type { PortalZone } from '../hotspot-portal.js';
import { LOGIN_ERRORS } from '../hotspot-types.js';
import { outsideReturn, successLocation, type OutsideReturnDeps } from '../hotspot-outside-return.js';
import { OidcClient, ProviderRefused, randomToken } from './social-oidc.js';
import { queryText } from '../hotspot-request.js';
import { DeviceTokens } from '../hotspot-device-tokens.js';

/**
 * Social login in the daemon, for zones of auth model `social` (README.md): captive clients go
 * to the provider's authorization endpoint (code flow, PKCE S256, state and nonce); the
 * provider sends the browser back to `/auth/<provider>/callback` on the portal listener, where
 * the state must be one issued to this device; the code is exchanged and the ID token verified
 * before the engine admits the client.
 */

export const STATE_MS = 600_000;
const MAX_STATES = 10_000;
const STATE = /^[A-Za-z0-9_-]{43}$/;
const CODE = /^[\x21-\x7e]{1,2048}$/;

export interface SocialDeps extends OutsideReturnDeps {
  settings(): HotspotSocial;
  portalPort: number;
  now: () => number;
  report: (error: unknown, what: string) => void;
}

interface Issued {
  ip: string;
  mac: string;
  verifier: string;
  nonce: string;
  redirectUri: string;
  expiresAt: number;
  url: string;
}

export class SocialService {
  private readonly issued = new DeviceTokens<Issued>(MAX_STATES);
  private readonly oidc: OidcClient;

  constructor(private readonly deps: SocialDeps) {
    this.oidc = new OidcClient(deps.now);
  }

  private ready(settings: HotspotSocial): boolean {
    return settings.issuer !== '' && settings.client_id !== '' && settings.client_secret !== '';
  }

  private redirectUri(zone: PortalZone, settings: HotspotSocial): string {
    return `http://${zone.gateway}:${this.deps.portalPort}/auth/${settings.provider}/callback`;
  }

  /** The provider's authorization request for a captive client; null while unconfigured or unreachable. */
  async loginUrl(zone: PortalZone, client: { ip: string; mac: string }, original: string): Promise<string | null> {
    const settings = this.deps.settings();
    if (!this.ready(settings)) return null;
    let metadata;
    try {
      metadata = await this.oidc.metadata(settings.issuer);
    } catch (error) {
      this.deps.report(error, 'social login provider discovery failed');
      return null;
    }
    const now = this.deps.now();
    const state = randomToken();
    const entry: Issued = { ip: client.ip, mac: client.mac, verifier: randomToken(), nonce: randomToken(), redirectUri: this.redirectUri(zone, settings), expiresAt: now + STATE_MS, url: original.length <= 2048 ? original : '' };
    this.issued.issue(state, entry, (held) => held.expiresAt > now);
    return this.oidc.authorizationUrl(metadata, { clientId: settings.client_id, redirectUri: entry.redirectUri, scope: settings.scope, state, nonce: entry.nonce, verifier: entry.verifier });
  }

  register(portal: FastifyInstance): void {
    portal.get<{ Params: { provider: string } }>('/auth/:provider/callback', async (request, reply) => {
      const settings = this.deps.settings();
      const success = (zone: PortalZone, url: string) => reply.redirect(successLocation(zone, this.deps.portalPort, url), 302);
      return outsideReturn(this.deps, request, reply, {
        kind: 'social',
        ready: this.ready(settings) && request.params.provider === settings.provider,
        signedIn: ({ zone }) => success(zone, ''),
        check: async ({ ip, mac, zone }, guess, refuse) => {
          const state = queryText(request, 'state', 64);
          // Bad state: unknown, spent, another device's or expired. It is spent by any try of its device.
          const issued = STATE.test(state) ? this.issued.spend(state, { ip, mac }) : undefined;
          if (!issued) return refuse(LOGIN_ERRORS.socialAuth);
          if (issued.expiresAt <= this.deps.now()) return refuse(LOGIN_ERRORS.socialAuth);
          // From here the answer is the provider's own (the state cannot be guessed): nothing counts as a guess.
          guess.outcome = 'uncounted';
          // Consent refused (error=access_denied) or any other error the provider reports.
          if (queryText(request, 'error', 256) !== '') return refuse(LOGIN_ERRORS.socialAuth);
          const code = queryText(request, 'code');
          if (!CODE.test(code)) return refuse(LOGIN_ERRORS.socialAuth);
          let claims;
          try {
            const metadata = await this.oidc.metadata(settings.issuer);
            claims = await this.oidc.exchange(metadata, { clientId: settings.client_id, clientSecret: settings.client_secret, redirectUri: issued.redirectUri, code, verifier: issued.verifier, nonce: issued.nonce });
          } catch (error) {
            this.deps.report(error, 'social login failed');
            return error instanceof ProviderRefused ? refuse(LOGIN_ERRORS.socialAuth) : refuse(LOGIN_ERRORS.socialNetwork);
          }
          const admitted = await this.deps.engine.admitExternal({ ip, mac }, zone.zone, 'social', `${settings.provider}:${claims.sub}`);
          if (!admitted.ok) return refuse(admitted.error);
          guess.outcome = 'success';
          return success(zone, issued.url);
        },
      });
    });
  }
}

export function socialSettings(read: (entity: string) => unknown): HotspotSocial {
  return hotspotSocial.schema.parse(read(hotspotSocial.name) ?? {});
}
