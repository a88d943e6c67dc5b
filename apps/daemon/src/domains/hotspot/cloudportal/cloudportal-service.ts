import type { FastifyInstance } from 'fastify';
import { hotspotCloudportal, type HotspotCloudportal } from '@portico/schema';
import type { PortalZone } from '../hotspot-portal.js';
import { LOGIN_ERRORS } from '../hotspot-types.js';
import { outsideReturn, successLocation, type OutsideReturnDeps } from '../hotspot-outside-return.js';
import { cloudLoginUrl, newNonce, returnSignatureValid, type CloudReturn } from './cloudportal-sign.js';
import { queryText } from '../hotspot-request.js';
import { DeviceTokens } from '../hotspot-device-tokens.js';

/**
 * The cloud portal in the daemon, for zones of auth model `cloudportal` (README.md): captive
 * clients go to authurl with their identity, a nonce and a signature; the cloud sends the
 * browser back to `/cloudportal/auth` on the portal listener with a signed answer, which is
 * checked (nonce of this device, within the timeout, HMAC) before the engine admits the client.
 * Each return reserves one guess of the device with the portal's limiter before it is checked.
 */

/** Outstanding nonces kept at most; the oldest go first. */
const MAX_NONCES = 10_000;
const NONCE = /^[0-9a-f]{32}$/;
const TS = /^[0-9]{1,12}$/;
const ACCOUNT = /^[A-Za-z0-9._@+:-]{0,64}$/;

/** The longest query value a return may carry. */
const QUERY_MAX = 256;

export interface CloudportalDeps extends OutsideReturnDeps {
  settings(): HotspotCloudportal;
  portalPort: number;
  now: () => number;
}

interface Issued {
  ip: string;
  mac: string;
  issuedAt: number;
  url: string;
}

export class CloudportalService {
  private readonly issued = new DeviceTokens<Issued>(MAX_NONCES);

  constructor(private readonly deps: CloudportalDeps) {}

  private ready(settings: HotspotCloudportal): boolean {
    return settings.authurl !== '' && settings.secret !== '';
  }

  /** Where a captive client of a cloudportal zone signs in; null while authurl or the key is unset. */
  loginUrl(zone: PortalZone, client: { ip: string; mac: string }, original: string): string | null {
    const settings = this.deps.settings();
    if (!this.ready(settings)) return null;
    const now = this.deps.now();
    const nonce = newNonce();
    const url = original.length <= 2048 ? original : '';
    this.issued.issue(nonce, { ip: client.ip, mac: client.mac, issuedAt: now, url }, (entry) => entry.issuedAt + settings.timeout * 1000 > now);
    return cloudLoginUrl(settings.authurl, settings.param, settings.secret, {
      gw_id: settings.gw_id,
      gw_address: zone.gateway,
      gw_port: this.deps.portalPort,
      ip: client.ip,
      mac: client.mac,
      ts: Math.floor(now / 1000),
      nonce,
      url,
    });
  }

  register(portal: FastifyInstance): void {
    portal.get('/cloudportal/auth', async (request, reply) => {
      const settings = this.deps.settings();
      const success = (zone: PortalZone, url: string) => reply.redirect(successLocation(zone, this.deps.portalPort, url), 302);
      return outsideReturn(this.deps, request, reply, {
        kind: 'cloudportal',
        ready: this.ready(settings),
        signedIn: ({ zone }) => success(zone, ''),
        check: async ({ ip, mac, zone }, guess, refuse) => {
          const nonce = queryText(request, 'nonce', QUERY_MAX);
          const ts = queryText(request, 'ts', QUERY_MAX);
          const result = queryText(request, 'result', QUERY_MAX);
          const account = queryText(request, 'account', QUERY_MAX);
          const sig = queryText(request, 'sig', QUERY_MAX);
          if (!NONCE.test(nonce) || !TS.test(ts) || (result !== 'success' && result !== 'denied') || !ACCOUNT.test(account)) return refuse(LOGIN_ERRORS.authFailed);
          // Only the device the nonce was issued to may spend it, and it is spent by any try of that device.
          const issued = this.issued.spend(nonce, { ip, mac });
          if (!issued) return refuse(LOGIN_ERRORS.authFailed);
          const now = this.deps.now();
          const window = settings.timeout * 1000;
          if (issued.issuedAt + window <= now || Math.abs(now - Number(ts) * 1000) > window) return refuse(LOGIN_ERRORS.authFailed);
          const answer: CloudReturn = { gw_id: settings.gw_id, nonce, ip, mac, ts: Number(ts), result, account };
          if (!returnSignatureValid(settings.secret, answer, sig)) return refuse(LOGIN_ERRORS.authFailed);
          // A genuine answer from the cloud: whatever it says, no secret was guessed.
          guess.outcome = 'uncounted';
          if (result === 'denied') return refuse(LOGIN_ERRORS.authFailed);
          const admitted = await this.deps.engine.admitExternal({ ip, mac }, zone.zone, 'cloudportal', account || undefined);
          if (!admitted.ok) return refuse(admitted.error);
          guess.outcome = 'success';
          return success(zone, issued.url);
        },
      });
    });
  }
}

export function cloudportalSettings(read: (entity: string) => unknown): HotspotCloudportal {
  return hotspotCloudportal.schema.parse(read(hotspotCloudportal.name) ?? {});
}
