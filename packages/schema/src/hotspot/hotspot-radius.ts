import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange, stringBase } from '../common/field-base.js';
import { ipField, ipv4Field } from '../common/ip-fields.js';
import { portField } from '../common/port-fields.js';
import { isPrintableAscii } from '../common/text-guard.js';
import { ACCOUNTING, RADIUS_PORTS } from '../constants/hotspot-defaults.js';

/** How the portal's password reaches the RADIUS server (RFC 2865 §5.2 and §5.3). */
export const RADIUS_AUTH_TYPES = ['pap', 'chap'] as const;
/** Shared secret: 1-255 printable ASCII characters (spec §5 shared key). */
export const RADIUS_SECRET_MAX = 255;

/**
 * The RADIUS server of the hotspot (spec §3 Radius, §9 ports): the zones whose auth model is
 * `radius` sign clients in against it, their sessions are accounted to it, and it may end or
 * change them through the dynamic authorisation port (RFC 5176, "offline" 3799). The shared
 * secret is never read back. The connectivity test (POST auth/radiustest) uses what is saved.
 */
export const hotspotRadius = defineEntity({
  name: 'hotspotRadius',
  path: 'auth/radius',
  module: 'radius',
  route: '/hotspot/radius',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    radiusip: ipField({ allowEmpty: true }).default(''),
    /** A second server, tried when the first does not answer. */
    radiusip2: ipField({ allowEmpty: true }).default(''),
    sharekey: stringBase()
      .max(RADIUS_SECRET_MAX, { error: 'validation.radius.secret' })
      .refine(isPrintableAscii, { error: 'validation.radius.secret' })
      .default(''),
    authport: portField().default(RADIUS_PORTS.auth),
    accoutport: portField().default(RADIUS_PORTS.accounting),
    authtype: z.enum(RADIUS_AUTH_TYPES, { error: 'validation.option' }).default('pap'),
    /** Seconds before a request is sent again. */
    timeout: integerInRange(1, 30, 'validation.radius.timeout').default(3),
    /** Times a request is sent again before the next server is tried. */
    retries: integerInRange(0, 5, 'validation.radius.retries').default(2),
    /** NAS-IP-Address sent with every request; empty: none. */
    nasip: ipv4Field({ allowEmpty: true }).default(''),
    /** NAS-Identifier sent with every request; empty: none. */
    nasid: stringBase()
      .max(64, { error: 'validation.text.length' })
      .refine(isPrintableAscii, { error: 'validation.radius.ascii' })
      .default(''),
    /** Port of the portal page the RADIUS server sends clients to. */
    ssport: portField().default(RADIUS_PORTS.portal),
    accounting: z.boolean().default(true),
    /** Seconds between interim accounting updates (spec §5: 10-300); the server's answer may set its own. */
    interval: integerInRange(ACCOUNTING.intervalMin, ACCOUNTING.intervalMax, 'validation.hotspot.interval').default(ACCOUNTING.interval),
    /** Accept Disconnect and CoA requests from the servers above (RFC 5176). */
    dae: z.boolean().default(true),
    offlineport: portField().default(RADIUS_PORTS.offline),
  }),
  writeOnly: ['sharekey'],
  refine(value, ctx) {
    if (!value.enabled) return;
    if (value.radiusip === '') ctx.addIssue('radiusip', 'validation.required');
    if (value.sharekey === '') ctx.addIssue('sharekey', 'validation.required');
    if (value.radiusip2 !== '' && value.radiusip2 === value.radiusip) ctx.addIssue('radiusip2', 'validation.radius.sameServer');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'radiusip' },
          { name: 'radiusip2' },
          { name: 'sharekey', widget: 'password', keepWhenEmpty: true },
          { name: 'authport' },
          { name: 'accoutport' },
          { name: 'authtype', widget: 'select', options: RADIUS_AUTH_TYPES },
          { name: 'timeout' },
          { name: 'retries' },
        ],
      },
      {
        key: 'nas',
        fields: [{ name: 'nasip' }, { name: 'nasid' }, { name: 'ssport' }],
      },
      {
        key: 'accounting',
        fields: [
          { name: 'accounting', widget: 'switch' },
          { name: 'interval', visibleWhen: { field: 'accounting', equals: true } },
          { name: 'dae', widget: 'switch' },
          { name: 'offlineport', visibleWhen: { field: 'dae', equals: true } },
        ],
      },
    ],
  },
});
export type HotspotRadius = z.infer<typeof hotspotRadius.schema>;
