import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { interfaceListField, selectorListField } from './firewall-fields.js';
import { INTERFACE_REF } from '../network/network-fields.js';

/**
 * Share-net block (spec §3 "share (ifname, whitelist, blacklist)"): stops clients that share
 * their connection through a router of their own. Such a router lowers the TTL of what it
 * forwards, so on the LANs in `ifname` (empty: every LAN) a packet to the Internet whose TTL
 * is not one a host sends with (64, 128 or 255) is dropped. Addresses in `whitelist` are never
 * checked; addresses in `blacklist` are known sharers and always blocked.
 *
 * It only judges forwarded traffic, never traffic to the gateway: no confirmation needed.
 */
export const SHARE_HOST_TTLS = [64, 128, 255] as const;

export const firewallShareBlock = defineEntity({
  name: 'firewallShareBlock',
  path: 'unshare',
  module: 'shareblock',
  route: '/firewall/shareblock',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    ifname: interfaceListField().default([]),
    whitelist: selectorListField().default([]),
    blacklist: selectorListField().default([]),
  }),
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'ifname', ref: INTERFACE_REF },
          { name: 'whitelist', widget: 'tags' },
          { name: 'blacklist', widget: 'tags' },
        ],
      },
    ],
  },
});
export type FirewallShareBlock = z.infer<typeof firewallShareBlock.schema>;
