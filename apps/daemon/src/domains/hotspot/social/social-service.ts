import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hotspotSocial, isIpv4, type HotspotSocial } from '@portico/schema';
import type { HotspotEngine } from '../hotspot-engine.js';
import type { NeighbourLookup } from '../hotspot-neighbours.js';
import type { PortalZone } from '../hotspot-portal.js';
import { portalErrorLocation, LOGIN_ERRORS, type LoginFailure } from '../hotspot-types.js';
import { OidcClient, ProviderRefused, randomToken } from './social-oidc.js';
import { clientIp, queryText } from '../hotspot-request.js';
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

export interface SocialDeps {
  engine: HotspotEngine;
  settings(): HotspotSocial;
  zoneFor(ip: string): PortalZone | null;
  neighbours: NeighbourLookup;
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
      reply.header('cache-control', 'no-store');
      const refuse = (msg: LoginFailure) => reply.redirect(portalErrorLocation(msg), 302);
      const ip = clientIp(request);
      const zone = this.deps.zoneFor(ip);
      const settings = this.deps.settings();
      if (!zone || zone.zone.externalPortal !== 'social' || !isIpv4(ip) || !this.ready(settings) || request.params.provider !== settings.provider) return refuse(LOGIN_ERRORS.notConfigured);
      const mac = await this.deps.neighbours(ip);
      if (!mac) return refuse(LOGIN_ERRORS.notConfigured);
      const success = (url: string) => reply.redirect(`http://${zone.gateway}:${this.deps.portalPort}/auth/success${url ? `?url=${encodeURIComponent(url)}` : ''}`, 302);
      if (this.deps.engine.session(ip)?.mac === mac) return success('');
      if (this.deps.engine.isBlocked(mac)) return refuse(LOGIN_ERRORS.blocked);
      const reservation = this.deps.engine.reserveGuess({ ip, mac });
      if (!reservation.ok) return refuse(LOGIN_ERRORS.tooMany);
      let outcome: 'failure' | 'success' | 'uncounted' = 'failure';
      try {
        const state = queryText(request, 'state', 64);
        // Bad state: unknown, spent, another device's or expired. It is spent by any try of its device.
        const issued = STATE.test(state) ? this.issued.spend(state, { ip, mac }) : undefined;
        if (!issued) return refuse(LOGIN_ERRORS.socialAuth);
        if (issued.expiresAt <= this.deps.now()) return refuse(LOGIN_ERRORS.socialAuth);
        // From here the answer is the provider's own (the state cannot be guessed): nothing counts as a guess.
        outcome = 'uncounted';
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
        outcome = 'success';
        return success(issued.url);
      } finally {
        reservation.release(outcome);
      }
    });
  }
}

export function socialSettings(read: (entity: string) => unknown): HotspotSocial {
  return hotspotSocial.schema.parse(read(hotspotSocial.name) ?? {});
}
