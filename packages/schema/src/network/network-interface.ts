import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { INTERFACE_PROTOS, INTERFACE_ROLES } from '../status/status-types.js';
import { cidr6Field, ipv4Field, ipv6Field, netmaskField } from '../common/ip-fields.js';
import { IP_OVERLAP_MESSAGE, ipv4ToInt, isIpv4, rangesOverlap } from '../common/ip-address.js';
import { mruField, mtuField, wanTagField } from '../common/link-fields.js';
import { sharedKeyField } from '../common/text-fields.js';
import { accountField, addressMaskPrefix, interfaceNameField, portNameField, secondaryAddressField, subnetOf } from './network-fields.js';

/**
 * Network interfaces (spec §3 "Network: interfaces"). A LAN or WAN sits on physical ports (a
 * LAN on several ports bridges them); a BOND aggregates two or more ports. WANs may be
 * static, DHCP or PPPoE and may be tagged (0 = untagged).
 */
// Roles and protocols are the ones live status reports (one list for both).
export { INTERFACE_ROLES, INTERFACE_PROTOS, type InterfaceRole } from '../status/status-types.js';
export const IPV6_MODES = ['off', 'static', 'dhcpv6', 'slaac'] as const;
/** How traffic is split among sub-interfaces: none, by MAC (macvlan) or by 802.1Q tag. */
export const SUBIF_TYPES = ['none', 'mac', 'vlan'] as const;
export const INTERFACE_DNS_MAX = 3;
export const SECONDARY_MAX = 16;
export const BOND_PORTS_MIN = 2;
export const INTERFACE_PORTS_MAX = 8;

export const networkInterface = defineEntity({
  name: 'networkInterface',
  path: 'network',
  module: 'interface',
  route: '/netconf/interface',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    ifname: interfaceNameField(),
    role: z.enum(INTERFACE_ROLES, { error: 'validation.option' }),
    /** Physical ports: one for a WAN, one or more for a LAN, two or more for a bond. */
    hwport: z.array(portNameField()).min(1, { error: 'validation.network.portCount' }).max(INTERFACE_PORTS_MAX, { error: 'validation.network.portCount' }),
    enabled: z.boolean().default(true),
    proto: z.enum(INTERFACE_PROTOS, { error: 'validation.option' }).default('static'),
    ipaddr: ipv4Field({ allowEmpty: true }).default(''),
    netmask: netmaskField({ allowEmpty: true }).default(''),
    gateway: ipv4Field({ allowEmpty: true }).default(''),
    dns: z.array(ipv4Field()).max(INTERFACE_DNS_MAX, { error: 'validation.tooBig' }).default([]),
    /** Extra addresses, `ip/prefix` or `ip/netmask`. */
    secondary: z.array(secondaryAddressField()).max(SECONDARY_MAX, { error: 'validation.tooBig' }).default([]),
    mtu: mtuField(),
    mru: mruField(),
    pppoe_username: accountField({ allowEmpty: true }).default(''),
    pppoe_password: sharedKeyField().optional(),
    /** 802.1Q tag of a WAN; 0 = untagged. */
    vlan_tag: wanTagField().default(0),
    ipv6: z.enum(IPV6_MODES, { error: 'validation.option' }).default('off'),
    /** Static IPv6 address with its prefix length, e.g. `2001:db8:1::1/64`. */
    ip6addr: cidr6Field({ allowEmpty: true }).default(''),
    ip6gw: ipv6Field({ allowEmpty: true }).default(''),
    subif_type: z.enum(SUBIF_TYPES, { error: 'validation.option' }).default('none'),
  }),
  writeOnly: ['pppoe_password'],
  refine(value, ctx, mode) {
    if (value.role !== 'wan' && value.proto !== 'static') ctx.addIssue('proto', 'validation.network.staticOnly');
    const ports = value.hwport;
    if (new Set(ports).size !== ports.length) ctx.addIssue('hwport', 'validation.network.portInUse');
    else if (value.role === 'wan' && ports.length !== 1) ctx.addIssue('hwport', 'validation.network.portCount');
    else if (value.role === 'bond' && ports.length < BOND_PORTS_MIN) ctx.addIssue('hwport', 'validation.network.portCount');
    if (value.subif_type === 'mac' && (value.role === 'bond' || ports.length !== 1)) {
      ctx.addIssue('subif_type', 'validation.subif.macSinglePort');
    }

    if (value.proto === 'static') {
      if (value.ipaddr === '') ctx.addIssue('ipaddr', 'validation.required');
      if (value.netmask === '') ctx.addIssue('netmask', 'validation.required');
      if (value.role === 'wan' && value.gateway === '') ctx.addIssue('gateway', 'validation.required');
      const subnet = value.ipaddr && value.netmask ? subnetOf(value.ipaddr, value.netmask) : null;
      if (subnet && subnet.last - subnet.first > 1) {
        const address = ipv4ToInt(value.ipaddr);
        if (address === subnet.first || address === subnet.last) ctx.addIssue('ipaddr', 'validation.network.hostAddress');
      }
      // Refinements run even when a field failed its own check: use only values that passed.
      if (subnet && isIpv4(value.gateway)) {
        const gateway = ipv4ToInt(value.gateway);
        if (gateway < subnet.first || gateway > subnet.last) ctx.addIssue('gateway', 'validation.network.gatewaySubnet');
        else if (value.gateway === value.ipaddr) ctx.addIssue('gateway', IP_OVERLAP_MESSAGE);
      }
      secondaryOverlap(value.ipaddr, value.netmask, value.secondary, ctx);
    }

    if (value.proto === 'pppoe') {
      if (value.pppoe_username === '') ctx.addIssue('pppoe_username', 'validation.required');
      // On update an absent password keeps the stored one; on add there is none to keep.
      if (mode === 'add' && !value.pppoe_password) ctx.addIssue('pppoe_password', 'validation.required');
    }
    if (value.ipv6 === 'static' && value.ip6addr === '') ctx.addIssue('ip6addr', 'validation.required');
  },
  list: {
    columns: [
      { field: 'ifname', sortable: true },
      { field: 'role', format: 'option', sortable: true },
      { field: 'hwport', format: 'tags' },
      { field: 'proto', format: 'option' },
      { field: 'ipaddr' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'ifname',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'ifname', addOnly: true },
          { name: 'role', widget: 'select', options: INTERFACE_ROLES, addOnly: true },
          { name: 'hwport', widget: 'tags' },
          { name: 'enabled', widget: 'switch' },
          { name: 'proto', widget: 'select', options: INTERFACE_PROTOS },
          { name: 'ipaddr', visibleWhen: { field: 'proto', equals: 'static' } },
          { name: 'netmask', visibleWhen: { field: 'proto', equals: 'static' } },
          { name: 'gateway', visibleWhen: { field: 'proto', equals: 'static' } },
          { name: 'secondary', widget: 'tags', visibleWhen: { field: 'proto', equals: 'static' } },
          { name: 'pppoe_username', visibleWhen: { field: 'proto', equals: 'pppoe' } },
          { name: 'pppoe_password', widget: 'password', keepWhenEmpty: true, visibleWhen: { field: 'proto', equals: 'pppoe' } },
          { name: 'dns', widget: 'tags' },
          { name: 'vlan_tag', visibleWhen: { field: 'role', equals: 'wan' } },
        ],
      },
      {
        key: 'advanced',
        fields: [
          { name: 'mtu' },
          { name: 'mru', visibleWhen: { field: 'proto', equals: 'pppoe' } },
          { name: 'subif_type', widget: 'select', options: SUBIF_TYPES },
          { name: 'ipv6', widget: 'select', options: IPV6_MODES },
          { name: 'ip6addr', visibleWhen: { field: 'ipv6', equals: 'static' } },
          { name: 'ip6gw', visibleWhen: { field: 'ipv6', equals: 'static' } },
        ],
      },
    ],
  },
  // A DHCP or PPPoE WAN can be told to renew or redial (spec §7 network/reconnect).
  rowActions: [{ key: 'reconnect', path: 'network/reconnect', param: 'ifname', field: 'ifname', visibleWhen: { field: 'proto', in: ['dhcp', 'pppoe'] } }],
  cutsAccess: true,
  maxRows: 32,
});
export type NetworkInterface = z.infer<typeof networkInterface.schema>;

/**
 * Secondary addresses (spec §5, §8 "IP overlay"): no entry may repeat an address of the
 * interface, and entries in different networks must not overlap (an alias in the same network
 * as another entry is fine: several public addresses of one block).
 */
function secondaryOverlap(
  ipaddr: string,
  netmask: string,
  secondary: readonly string[],
  ctx: { addIssue(field: string, message: string): void },
): void {
  const entries: Array<{ address: number; first: number; last: number }> = [];
  const primary = ipaddr && netmask ? subnetOf(ipaddr, netmask) : null;
  if (primary) entries.push({ address: ipv4ToInt(ipaddr), ...primary });
  for (const entry of secondary) {
    const prefix = addressMaskPrefix(entry);
    if (prefix === null) continue;
    const address = entry.split('/')[0]!;
    const range = subnetOf(address, String(prefix))!;
    const value = ipv4ToInt(address);
    const clash = entries.some(
      (other) =>
        other.address === value || (rangesOverlap(other, range) && (other.first !== range.first || other.last !== range.last)),
    );
    if (clash) {
      ctx.addIssue('secondary', IP_OVERLAP_MESSAGE);
      return;
    }
    entries.push({ address: value, ...range });
  }
}
