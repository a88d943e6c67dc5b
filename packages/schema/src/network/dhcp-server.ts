import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { ipv4Field, netmaskField } from '../common/ip-fields.js';
import { limitField } from '../common/quantity-fields.js';
import { interfaceNameField, LAN_SIDE_REF } from './network-fields.js';

/**
 * DHCP servers (spec §3 "DHCP (start, pool size, lease minutes, netmask, gateway)"), one per
 * LAN-side interface (a LAN, a bond or a VLAN). `start` is the first address handed out, a full
 * address inside the interface's network; `pool_size` addresses follow it, 0 meaning "up to
 * the end of the network". An empty gateway or DNS list hands out the interface's own address.
 */
export const DHCPV6_MODES = ['off', 'stateless', 'stateful'] as const;
/** Lease time in minutes: 2 minutes (the DHCP server's floor) to 365 days. */
export const LEASE_MINUTES_MIN = 2;
export const LEASE_MINUTES_MAX = 525_600;
export const LEASE_MINUTES_DEFAULT = 720;
export const DHCP_DNS_MAX = 3;
export const DHCP_POOL_MAX = 65_534;

export const dhcpServer = defineEntity({
  name: 'dhcpServer',
  path: 'dhcp',
  module: 'dhcpserver',
  route: '/netconf/dhcpserver',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    interface: interfaceNameField(),
    enabled: z.boolean().default(true),
    start: ipv4Field(),
    pool_size: limitField(DHCP_POOL_MAX).default(100),
    lease_minutes: integerInRange(LEASE_MINUTES_MIN, LEASE_MINUTES_MAX, 'validation.dhcp.lease').default(LEASE_MINUTES_DEFAULT),
    netmask: netmaskField(),
    gateway: ipv4Field({ allowEmpty: true }).default(''),
    dns: z.array(ipv4Field()).max(DHCP_DNS_MAX, { error: 'validation.tooBig' }).default([]),
    dhcpv6: z.enum(DHCPV6_MODES, { error: 'validation.option' }).default('off'),
  }),
  list: {
    columns: [
      { field: 'interface', sortable: true },
      { field: 'start' },
      { field: 'pool_size' },
      { field: 'lease_minutes' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'interface',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'interface', addOnly: true, ref: LAN_SIDE_REF },
          { name: 'enabled', widget: 'switch' },
          { name: 'start' },
          { name: 'pool_size' },
          { name: 'lease_minutes' },
          { name: 'netmask' },
          { name: 'gateway' },
          { name: 'dns', widget: 'tags' },
          { name: 'dhcpv6', widget: 'select', options: DHCPV6_MODES },
        ],
      },
    ],
  },
  maxRows: 32,
});
export type DhcpServer = z.infer<typeof dhcpServer.schema>;
