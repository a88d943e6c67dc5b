import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { stringBase, integerInRange } from '../common/field-base.js';
import { isPrintableAscii, isSafeText } from '../common/text-guard.js';
import { isPlainHttpUrl } from './hotspot-wifidog.js';

/**
 * The cloud portal (spec §3 section cloudportal: authurl, timeout 30, param) that zones of auth
 * model `cloudportal` send their clients to. authurl is the cloud's login page; param extra
 * `name=value` pairs the cloud expects on every redirect (site or tenant ids); timeout how many
 * seconds the cloud has to send a client back signed in; secret the HMAC key shared with the
 * cloud that signs the redirect and the return (never read back); gw_id how the cloud knows
 * this gateway.
 */
const PARAM_PAIR = /^[A-Za-z0-9._~-]{1,64}=(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2}){0,256}$/;
const GATEWAY_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** Names the gateway itself puts on the redirect; param may not override them. */
export const CLOUDPORTAL_RESERVED = ['gw_id', 'gw_address', 'gw_port', 'ip', 'mac', 'ts', 'nonce', 'url', 'sig'] as const;

export function isCloudportalParam(text: string): boolean {
  if (text === '') return true;
  if (text.length > 512) return false;
  const pairs = text.split('&');
  const names = pairs.map((p) => p.split('=')[0]!);
  return pairs.every((p) => PARAM_PAIR.test(p)) && names.every((n) => !(CLOUDPORTAL_RESERVED as readonly string[]).includes(n)) && new Set(names).size === names.length;
}

export const hotspotCloudportal = defineEntity({
  name: 'hotspotCloudportal',
  path: 'auth/cloudportal',
  module: 'cloudportal',
  route: '/hotspot/cloudportal',
  kind: 'singleton',
  schema: z.object({
    authurl: stringBase()
      .refine((v) => v === '' || (isPlainHttpUrl(v) && !v.includes('#')), { error: 'validation.url' })
      .default(''),
    timeout: integerInRange(5, 600, 'validation.cloudportal.timeout').default(30),
    param: stringBase()
      .refine((v) => isCloudportalParam(v), { error: 'validation.cloudportal.param' })
      .default(''),
    secret: stringBase()
      .refine((v) => v === '' || (v.length >= 16 && v.length <= 128 && isSafeText(v) && isPrintableAscii(v)), { error: 'validation.cloudportal.secret' })
      .default(''),
    gw_id: stringBase()
      .refine((v) => GATEWAY_ID.test(v), { error: 'validation.cloudportal.gwId' })
      .default('portico'),
  }),
  writeOnly: ['secret'],
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'authurl' },
          { name: 'timeout' },
          { name: 'param' },
          { name: 'secret', widget: 'password', keepWhenEmpty: true },
          { name: 'gw_id' },
        ],
      },
    ],
  },
});
export type HotspotCloudportal = z.infer<typeof hotspotCloudportal.schema>;
