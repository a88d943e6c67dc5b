import type { FastifyInstance } from 'fastify';
import { hotspotWeixin, type HotspotWeixin } from '@portico/schema';
import type { PortalZone } from '../hotspot-portal.js';
import { LOGIN_ERRORS } from '../hotspot-types.js';
import { outsideReturn, successLocation, type OutsideReturnDeps } from '../hotspot-outside-return.js';
import { newExtend, wechatCallUrl } from './weixin-sign.js';
import { queryText } from '../hotspot-request.js';
import { DeviceTokens } from '../hotspot-device-tokens.js';

/**
 * WeChat Wi-Fi in the daemon, for zones of auth model `weixin` (README.md): captive clients go
 * to WeChat's page with the signed auth request; WeChat calls authUrl, `/weixin/auth` on the
 * portal listener, from the client with `extend`, `openId` and `tid`. WeChat's call carries no
 * signature of its own, so `extend` is the proof: a random value issued to one device (address
 * and MAC), spent by its first use, valid EXTEND_MS. Each call reserves one guess of the device
 * with the portal's limiter before it is checked.
 */

export const EXTEND_MS = 300_000;
const MAX_EXTENDS = 10_000;
const EXTEND = /^[0-9a-f]{32}$/;
const OPEN_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TID = /^[A-Za-z0-9_=+/-]{0,256}$/;

/** The longest query value WeChat's call may carry. */
const QUERY_MAX = 512;

export interface WeixinDeps extends OutsideReturnDeps {
  settings(): HotspotWeixin;
  portalPort: number;
  now: () => number;
}

interface Issued {
  ip: string;
  mac: string;
  expiresAt: number;
}

export class WeixinService {
  private readonly issued = new DeviceTokens<Issued>(MAX_EXTENDS);

  constructor(private readonly deps: WeixinDeps) {}

  private ready(settings: HotspotWeixin): boolean {
    return settings.appid !== '' && settings.shopid !== '' && settings.key !== '';
  }

  /** The gateway's address WeChat calls, as signed. */
  authUrl(zone: PortalZone): string {
    return `http://${zone.gateway}:${this.deps.portalPort}/weixin/auth`;
  }

  /** The signed WeChat address for a captive client of a weixin zone; null while unconfigured. */
  loginUrl(zone: PortalZone, client: { ip: string; mac: string }): string | null {
    const settings = this.deps.settings();
    if (!this.ready(settings)) return null;
    const now = this.deps.now();
    const extend = newExtend();
    this.issued.issue(extend, { ip: client.ip, mac: client.mac, expiresAt: now + EXTEND_MS }, (entry) => entry.expiresAt > now);
    return wechatCallUrl(
      { appId: settings.appid, extend, timestamp: now, shopId: settings.shopid, authUrl: this.authUrl(zone), mac: client.mac.toLowerCase(), ssid: settings.ssid, bssid: '' },
      settings.key,
    );
  }

  register(portal: FastifyInstance): void {
    portal.get('/weixin/auth', async (request, reply) =>
      outsideReturn(this.deps, request, reply, {
        kind: 'weixin',
        ready: this.ready(this.deps.settings()),
        signedIn: () => reply.send({ success: true }),
        check: async ({ ip, mac, zone }, guess, refuse) => {
          const extend = queryText(request, 'extend', QUERY_MAX);
          const openId = queryText(request, 'openId', QUERY_MAX);
          const tid = queryText(request, 'tid', QUERY_MAX);
          if (!EXTEND.test(extend) || !OPEN_ID.test(openId) || !TID.test(tid)) return refuse(LOGIN_ERRORS.authFailed);
          const issued = this.issued.spend(extend, { ip, mac });
          if (!issued) return refuse(LOGIN_ERRORS.authFailed);
          if (issued.expiresAt <= this.deps.now()) return refuse(LOGIN_ERRORS.authFailed);
          guess.outcome = 'uncounted';
          const admitted = await this.deps.engine.admitExternal({ ip, mac }, zone.zone, 'weixin', openId);
          if (!admitted.ok) return refuse(admitted.error);
          guess.outcome = 'success';
          return reply.send({ success: true });
        },
      }),
    );
  }
}

export function weixinSettings(read: (entity: string) => unknown): HotspotWeixin {
  return hotspotWeixin.schema.parse(read(hotspotWeixin.name) ?? {});
}
