import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { stringBase, integerInRange } from '../common/field-base.js';
import { isHostname } from '../common/text-fields.js';
import { isIpv4, isIpv6 } from '../common/ip-address.js';
import { isPrintableAscii, isSafeText } from '../common/text-guard.js';
import { portField } from '../common/port-fields.js';

/**
 * The WiFiDog auth server that zones of auth model `wifidog` send their clients to (spec §3,
 * auth config section wifidog: server, port, auth_uri, keepalive_uri, redirect_url,
 * merchant_id; the zone names the interface). `gw_id` is how the server knows this gateway;
 * `checkinterval` paces the counters reports and heartbeats, `clienttimeout` logs out a client
 * idle for that many reports (0: never). Every value ends up in a URL, so each is checked for it.
 */
// RFC 3986 path characters without `?`, `#`, `&` and bare `%` (the daemon checks the same).
const URL_PATH = /^\/(?:[A-Za-z0-9\-._~!$'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;
const GATEWAY_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

export function isWifidogPath(text: string): boolean {
  return text.length <= 255 && URL_PATH.test(text) && !text.split('/').some((s) => s === '.' || s === '..');
}

/** An http(s) address without credentials, printable ASCII (empty allowed by the caller). */
export function isPlainHttpUrl(text: string, max = 1024): boolean {
  if (text.length > max || !isSafeText(text) || !isPrintableAscii(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

export const hotspotWifidog = defineEntity({
  name: 'hotspotWifidog',
  path: 'auth/wifidog',
  module: 'wifidog',
  route: '/hotspot/wifidog',
  kind: 'singleton',
  schema: z.object({
    server: stringBase()
      .refine((v) => v === '' || isIpv4(v) || isIpv6(v) || isHostname(v), { error: 'validation.hostname' })
      .default(''),
    port: portField().default(80),
    https: z.boolean().default(false),
    auth_uri: stringBase().refine(isWifidogPath, { error: 'validation.wifidog.path' }).default('/wifidog/'),
    keepalive_uri: stringBase().refine(isWifidogPath, { error: 'validation.wifidog.path' }).default('/wifidog/ping/'),
    redirect_url: stringBase()
      .refine((v) => v === '' || isPlainHttpUrl(v), { error: 'validation.url' })
      .default(''),
    merchant_id: stringBase()
      .refine((v) => v.length <= 64 && isSafeText(v) && isPrintableAscii(v), { error: 'validation.wifidog.merchant' })
      .default(''),
    gw_id: stringBase()
      .refine((v) => GATEWAY_ID.test(v), { error: 'validation.wifidog.gatewayId' })
      .default('portico'),
    checkinterval: integerInRange(10, 600, 'validation.wifidog.interval').default(60),
    clienttimeout: integerInRange(0, 100, 'validation.wifidog.timeout').default(5),
  }),
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'server' },
          { name: 'port' },
          { name: 'https', widget: 'switch' },
          { name: 'auth_uri' },
          { name: 'keepalive_uri' },
          { name: 'redirect_url' },
          { name: 'merchant_id' },
          { name: 'gw_id' },
          { name: 'checkinterval' },
          { name: 'clienttimeout' },
        ],
      },
    ],
  },
});
export type HotspotWifidog = z.infer<typeof hotspotWifidog.schema>;
