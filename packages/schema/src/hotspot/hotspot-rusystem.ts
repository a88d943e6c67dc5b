import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { stringBase } from '../common/field-base.js';
import { isPrintableAscii, isSafeText } from '../common/text-guard.js';
import { isPlainHttpUrl } from './hotspot-wifidog.js';

/**
 * The RU system (spec §3 section rusystem: authurl, uamsecret, redirect_url): a UAM server in
 * the style of CoovaChilli that zones of auth model `rusystem` send their clients to. authurl
 * is the UAM server's login page, uamsecret the secret shared with it (it keys the challenge
 * and the `md` checksum; never read back), redirect_url where a signed-in client goes
 * (`redirurl`), nasid how the UAM server knows this gateway.
 */
const NAS_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export const hotspotRusystem = defineEntity({
  name: 'hotspotRusystem',
  path: 'auth/rusystem',
  module: 'rusystem',
  route: '/hotspot/rusystem',
  kind: 'singleton',
  schema: z.object({
    authurl: stringBase()
      .refine((v) => v === '' || (isPlainHttpUrl(v) && !v.includes('#')), { error: 'validation.url' })
      .default(''),
    uamsecret: stringBase()
      .refine((v) => v.length <= 64 && isSafeText(v) && isPrintableAscii(v), { error: 'validation.rusystem.secret' })
      .default(''),
    redirect_url: stringBase()
      .refine((v) => v === '' || isPlainHttpUrl(v), { error: 'validation.url' })
      .default(''),
    nasid: stringBase()
      .refine((v) => NAS_ID.test(v), { error: 'validation.rusystem.nasid' })
      .default('portico'),
  }),
  writeOnly: ['uamsecret'],
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'authurl' },
          { name: 'uamsecret', widget: 'password', keepWhenEmpty: true },
          { name: 'redirect_url' },
          { name: 'nasid' },
        ],
      },
    ],
  },
});
export type HotspotRusystem = z.infer<typeof hotspotRusystem.schema>;
