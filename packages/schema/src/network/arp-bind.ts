import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { ipv4Field } from '../common/ip-fields.js';
import { macField } from '../common/mac-address.js';
import { plainTextField } from '../common/text-fields.js';
import { interfaceNameField, LAN_SIDE_REF } from './network-fields.js';
import { COMMENT_MAX } from './dhcp-static.js';

/**
 * ARP bindings (spec §3): this IP belongs to this MAC. The neighbour entry is made permanent
 * and packets from the IP with another MAC are dropped. An empty interface means the LAN
 * whose network holds the address.
 */
export const arpBind = defineEntity({
  name: 'arpBind',
  path: 'arpbind',
  module: 'arpbind',
  route: '/netconf/arpbind',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    ip: ipv4Field(),
    mac: macField({ unicast: true }),
    interface: interfaceNameField({ allowEmpty: true }).default(''),
    comment: plainTextField(COMMENT_MAX).default(''),
  }),
  list: {
    columns: [
      { field: 'ip', sortable: true },
      { field: 'mac', sortable: true },
      { field: 'interface', sortable: true },
      { field: 'comment' },
    ],
    defaultSort: 'ip',
  },
  form: {
    tabs: [{ key: 'basic', fields: [{ name: 'ip' }, { name: 'mac' }, { name: 'interface', ref: LAN_SIDE_REF }, { name: 'comment' }] }],
  },
  cutsAccess: true,
  maxRows: 1024,
});
export type ArpBind = z.infer<typeof arpBind.schema>;
