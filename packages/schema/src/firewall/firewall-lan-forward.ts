import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { interfaceListField } from './firewall-fields.js';
import { INTERFACE_REF } from '../network/network-fields.js';

/**
 * LAN forward (spec §3 "lanforward (enabled, lan, rejlan)"). The gateway does not route
 * between its LANs unless this is enabled; then the LANs in `lan` (empty: every LAN) reach
 * each other, except those in `rejlan`, which stay isolated.
 *
 * It only concerns traffic between LANs, never traffic to the gateway: no confirmation needed.
 */
export const firewallLanForward = defineEntity({
  name: 'firewallLanForward',
  path: 'firewall/lanforward',
  module: 'lan2lan',
  route: '/firewall/lan2lan',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    lan: interfaceListField().default([]),
    rejlan: interfaceListField().default([]),
  }),
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'lan', ref: INTERFACE_REF },
          { name: 'rejlan', ref: INTERFACE_REF },
        ],
      },
    ],
  },
});
export type FirewallLanForward = z.infer<typeof firewallLanForward.schema>;
