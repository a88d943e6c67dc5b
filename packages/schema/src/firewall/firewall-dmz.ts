import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { ipv4Field } from '../common/ip-fields.js';
import { plainTextField } from '../common/text-fields.js';
import { interfaceNameField, WAN_REF } from '../network/network-fields.js';
import { FIREWALL_COMMENT_MAX } from './firewall-fields.js';

/**
 * DMZ: every new connection arriving on `wan` for the gateway's own address that no port or
 * host mapping claims goes to the LAN host `host`. One DMZ host per WAN.
 *
 * It diverts remote administration over that WAN too: applied with a confirmation deadline.
 */
export const firewallDmz = defineEntity({
  name: 'firewallDmz',
  path: 'dmz',
  module: 'dmz',
  route: '/firewall/dmz',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    enabled: z.boolean().default(true),
    wan: interfaceNameField(),
    host: ipv4Field(),
    comment: plainTextField(FIREWALL_COMMENT_MAX).default(''),
  }),
  list: {
    columns: [
      { field: 'wan', sortable: true },
      { field: 'host', sortable: true },
      { field: 'enabled', format: 'enabled' },
      { field: 'comment' },
    ],
    defaultSort: 'wan',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [{ name: 'enabled', widget: 'switch' }, { name: 'wan', ref: WAN_REF }, { name: 'host' }, { name: 'comment' }],
      },
    ],
  },
  cutsAccess: true,
  maxRows: 16,
});
export type FirewallDmz = z.infer<typeof firewallDmz.schema>;
