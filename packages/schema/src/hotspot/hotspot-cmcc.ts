import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { stringBase, integerInRange } from '../common/field-base.js';
import { isIpv4 } from '../common/ip-address.js';
import { isPrintableAscii, isSafeText } from '../common/text-guard.js';
import { portField } from '../common/port-fields.js';
import { isPlainHttpUrl } from './hotspot-wifidog.js';

/**
 * The China Mobile WLAN portal (CMCC) that zones of auth model `cmcc` use (spec §3, auth config
 * section cmcc: cmccurl, cmccip, wlanacip, flowcheck; the zone names the interface). cmccurl is
 * the portal server's login page, cmccip the portal server's address (only its datagrams are
 * answered), wlanacip this gateway's address the server sends its requests to (UDP `acport`).
 * The protocol version, its shared secret (version 2) and the AC name are what the portal
 * server was told of this gateway. flowcheck: minutes after which a user without traffic is
 * logged out (0: never).
 */
export const CMCC_VERSIONS = ['1', '2'] as const;
const AC_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export const hotspotCmcc = defineEntity({
  name: 'hotspotCmcc',
  path: 'auth/cmcc',
  module: 'cmccweb',
  route: '/hotspot/cmccweb',
  kind: 'singleton',
  schema: z.object({
    cmccurl: stringBase()
      .refine((v) => v === '' || isPlainHttpUrl(v), { error: 'validation.url' })
      .default(''),
    cmccip: stringBase()
      .refine((v) => v === '' || isIpv4(v), { error: 'validation.ip' })
      .default(''),
    wlanacip: stringBase()
      .refine((v) => v === '' || isIpv4(v), { error: 'validation.ip' })
      .default(''),
    acname: stringBase()
      .refine((v) => AC_NAME.test(v), { error: 'validation.cmcc.acname' })
      .default('portico'),
    version: z.enum(CMCC_VERSIONS, { error: 'validation.option' }).default('2'),
    secret: stringBase()
      .refine((v) => v.length <= 64 && isSafeText(v) && isPrintableAscii(v), { error: 'validation.cmcc.secret' })
      .default(''),
    acport: portField().default(2000),
    notifyport: portField().default(50100),
    flowcheck: integerInRange(0, 1440, 'validation.cmcc.flowcheck').default(0),
  }),
  writeOnly: ['secret'],
  refine(value, ctx) {
    if (value.cmccurl === '' && value.cmccip === '' && value.wlanacip === '') return;
    for (const field of ['cmccurl', 'cmccip', 'wlanacip'] as const) if (value[field] === '') ctx.addIssue(field, 'validation.required');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'cmccurl' },
          { name: 'cmccip' },
          { name: 'wlanacip' },
          { name: 'acname' },
          { name: 'version', widget: 'select', options: CMCC_VERSIONS },
          { name: 'secret', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'version', equals: '2' } },
          { name: 'acport' },
          { name: 'notifyport' },
          { name: 'flowcheck' },
        ],
      },
    ],
  },
});
export type HotspotCmcc = z.infer<typeof hotspotCmcc.schema>;
