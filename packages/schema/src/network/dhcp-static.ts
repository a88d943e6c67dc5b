import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { ipv4Field } from '../common/ip-fields.js';
import { macField } from '../common/mac-address.js';
import { hostnameField, plainTextField } from '../common/text-fields.js';

/** DHCP static hosts (spec §3): a client MAC always gets this address and host name. */
export const COMMENT_MAX = 64;

export const dhcpStatic = defineEntity({
  name: 'dhcpStatic',
  path: 'dhcpstatic',
  module: 'dhcpstatic',
  route: '/netconf/dhcpstatic',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    mac: macField({ unicast: true }),
    ip: ipv4Field(),
    /** A single label: the DHCP server appends its own domain. */
    hostname: hostnameField({ allowEmpty: true })
      .refine((v) => !v.includes('.'), { error: 'validation.hostnameLabel' })
      .default(''),
    comment: plainTextField(COMMENT_MAX).default(''),
  }),
  list: {
    columns: [
      { field: 'mac', sortable: true },
      { field: 'ip', sortable: true },
      { field: 'hostname', sortable: true },
      { field: 'comment' },
    ],
    defaultSort: 'ip',
  },
  form: {
    tabs: [{ key: 'basic', fields: [{ name: 'mac' }, { name: 'ip' }, { name: 'hostname' }, { name: 'comment' }] }],
  },
  maxRows: 1024,
});
export type DhcpStatic = z.infer<typeof dhcpStatic.schema>;
