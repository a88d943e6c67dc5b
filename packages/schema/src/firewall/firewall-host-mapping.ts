import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { ipv4Field } from '../common/ip-fields.js';
import { nameField, plainTextField } from '../common/text-fields.js';
import { interfaceNameField, WAN_REF } from '../network/network-fields.js';
import { FIREWALL_COMMENT_MAX } from './firewall-fields.js';

/**
 * Host mapping (one-to-one NAT): every connection arriving on `wan` for the public address
 * `public` goes to the LAN host `private`, and that host's traffic leaving by `wan` carries
 * `public` as its source. The public address must reach the gateway (a secondary WAN address
 * or a route from the ISP).
 *
 * It can divert a WAN address of the gateway itself: applied with a confirmation deadline.
 */
export const firewallHostMapping = defineEntity({
  name: 'firewallHostMapping',
  path: 'hostmapping',
  module: 'hostmapping',
  route: '/firewall/hostmapping',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    enabled: z.boolean().default(true),
    name: nameField(),
    wan: interfaceNameField(),
    public: ipv4Field(),
    private: ipv4Field(),
    comment: plainTextField(FIREWALL_COMMENT_MAX).default(''),
  }),
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'wan' },
      { field: 'public', sortable: true },
      { field: 'private', sortable: true },
      { field: 'enabled', format: 'enabled' },
      { field: 'comment' },
    ],
    defaultSort: 'name',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'name' },
          { name: 'wan', ref: WAN_REF },
          { name: 'public' },
          { name: 'private' },
          { name: 'comment' },
        ],
      },
    ],
  },
  cutsAccess: true,
  maxRows: 1024,
});
export type FirewallHostMapping = z.infer<typeof firewallHostMapping.schema>;
