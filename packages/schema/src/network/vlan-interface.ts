import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { ipv4Field, netmaskField } from '../common/ip-fields.js';
import { vlanTagField } from '../common/link-fields.js';
import { macField } from '../common/mac-address.js';
import { interfaceNameField, portNameField, subnetOf } from './network-fields.js';
import { ipv4ToInt } from '../common/ip-address.js';

/**
 * VLANs (spec §3, §5): sub-interfaces of a physical port. The interface that owns the port
 * decides their kind with its sub-interface type: 802.1Q tagged (`vlan`, device
 * `<port>.<tag>`) or MAC-based (`mac`, a macvlan device `<port>-<tag>` with its own MAC). A
 * port that no interface owns carries tagged VLANs. Tags are unique; bond ports take none.
 */
export const vlan = defineEntity({
  name: 'vlan',
  path: 'vlan',
  module: 'vlan',
  route: '/netconf/vlan',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    ifname: interfaceNameField(),
    port: portNameField(),
    tag: vlanTagField(),
    /** Own MAC of the sub-interface; required for MAC-based sub-interfaces. */
    mac: macField({ allowEmpty: true, unicast: true }).default(''),
    enabled: z.boolean().default(true),
    ipaddr: ipv4Field({ allowEmpty: true }).default(''),
    netmask: netmaskField({ allowEmpty: true }).default(''),
  }),
  refine(value, ctx) {
    if (value.ipaddr !== '' && value.netmask === '') ctx.addIssue('netmask', 'validation.required');
    if (value.ipaddr === '' && value.netmask !== '') ctx.addIssue('ipaddr', 'validation.required');
    const subnet = value.ipaddr && value.netmask ? subnetOf(value.ipaddr, value.netmask) : null;
    if (subnet && subnet.last - subnet.first > 1) {
      const address = ipv4ToInt(value.ipaddr);
      if (address === subnet.first || address === subnet.last) ctx.addIssue('ipaddr', 'validation.network.hostAddress');
    }
  },
  list: {
    columns: [
      { field: 'ifname', sortable: true },
      { field: 'port', sortable: true },
      { field: 'tag', sortable: true },
      { field: 'ipaddr' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'tag',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'ifname', addOnly: true },
          { name: 'port' },
          { name: 'tag' },
          { name: 'mac' },
          { name: 'enabled', widget: 'switch' },
          { name: 'ipaddr' },
          { name: 'netmask' },
        ],
      },
    ],
  },
  cutsAccess: true,
  maxRows: 256,
});
export type Vlan = z.infer<typeof vlan.schema>;
