import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hotspotCloudportal, isIpv4, type HotspotCloudportal } from '@portico/schema';
import type { HotspotEngine } from '../hotspot-engine.js';
import type { NeighbourLookup } from '../hotspot-neighbours.js';
import type { PortalZone } from '../hotspot-portal.js';
import { portalErrorLocation, LOGIN_ERRORS, type LoginFailure } from '../hotspot-types.js';
import { cloudLoginUrl, newNonce, returnSignatureValid, type CloudReturn } from './cloudportal-sign.js';
import { clientIp, queryText } from '../hotspot-request.js';
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

export interface CloudportalDeps {
  engine: HotspotEngine;
  settings(): HotspotCloudportal;
  zoneFor(ip: string): PortalZone | null;
  neighbours: NeighbourLookup;
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
      reply.header('cache-control', 'no-store');
      const refuse = (msg: LoginFailure) => reply.redirect(portalErrorLocation(msg), 302);
      const ip = clientIp(request);
      const zone = this.deps.zoneFor(ip);
      const settings = this.deps.settings();
      if (!zone || zone.zone.externalPortal !== 'cloudportal' || !isIpv4(ip) || !this.ready(settings)) return refuse(LOGIN_ERRORS.notConfigured);
      const mac = await this.deps.neighbours(ip);
      if (!mac) return refuse(LOGIN_ERRORS.notConfigured);
      const success = (url: string) => reply.redirect(`http://${zone.gateway}:${this.deps.portalPort}/auth/success${url ? `?url=${encodeURIComponent(url)}` : ''}`, 302);
      if (this.deps.engine.session(ip)?.mac === mac) return success('');
      if (this.deps.engine.isBlocked(mac)) return refuse(LOGIN_ERRORS.blocked);

      const reservation = this.deps.engine.reserveGuess({ ip, mac });
      if (!reservation.ok) return refuse(LOGIN_ERRORS.tooMany);
      let outcome: 'failure' | 'success' | 'uncounted' = 'failure';
      try {
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
        outcome = 'uncounted';
        if (result === 'denied') return refuse(LOGIN_ERRORS.authFailed);
        const admitted = await this.deps.engine.admitExternal({ ip, mac }, zone.zone, 'cloudportal', account || undefined);
        if (!admitted.ok) return refuse(admitted.error);
        outcome = 'success';
        return success(issued.url);
      } finally {
        reservation.release(outcome);
      }
    });
  }
}

export function cloudportalSettings(read: (entity: string) => unknown): HotspotCloudportal {
  return hotspotCloudportal.schema.parse(read(hotspotCloudportal.name) ?? {});
}
