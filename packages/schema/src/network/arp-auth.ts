import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { httpUrlField } from './network-fields.js';

/**
 * ARP authentication (spec §3 "arpauth (enabled, action, jurl)"): when enabled, only LAN
 * clients with an ARP binding pass. Others are dropped, or their web requests are answered
 * with a redirect to `jurl` (DNS and DHCP keep working so the browser gets there).
 *
 * The spec's `action` field is `auth_action` here: `action` is the verb of every write
 * request (spec §7), so a field of that name could never be set.
 */
export const ARP_AUTH_ACTIONS = ['drop', 'redirect'] as const;

export const arpAuth = defineEntity({
  name: 'arpAuth',
  path: 'arpauth',
  module: 'arpbind',
  route: '/netconf/arpbind/behavior',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    auth_action: z.enum(ARP_AUTH_ACTIONS, { error: 'validation.option' }).default('drop'),
    jurl: httpUrlField({ allowEmpty: true }).default(''),
  }),
  refine(value, ctx) {
    if (value.enabled && value.auth_action === 'redirect' && value.jurl === '') ctx.addIssue('jurl', 'validation.required');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'auth_action', widget: 'select', options: ARP_AUTH_ACTIONS },
          { name: 'jurl', visibleWhen: { field: 'auth_action', equals: 'redirect' } },
        ],
      },
    ],
  },
  cutsAccess: true,
});
export type ArpAuth = z.infer<typeof arpAuth.schema>;
