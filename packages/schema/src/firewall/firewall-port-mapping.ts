import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { ipv4Field } from '../common/ip-fields.js';
import { PORT_MAX, portField } from '../common/port-fields.js';
import { nameField, plainTextField } from '../common/text-fields.js';
import { interfaceNameField, WAN_REF } from '../network/network-fields.js';
import { FIREWALL_COMMENT_MAX, ipv4SelectorField, MAPPING_PROTOCOLS, INTERNAL_PORT_RANGE_MESSAGE } from './firewall-fields.js';

/**
 * Port mapping (spec §3 "redirect"): connections arriving on a WAN (`wan`, empty for every
 * WAN) to `extport` (up to `extport_end` for a range; 0 for one port) are forwarded to
 * `intip`:`intport` (0 keeps the external port). A range keeps its port numbers, so its
 * `intport` is 0 or the range's first port. `src` restricts which remote addresses may use it.
 *
 * It diverts traffic addressed to the gateway itself (remote administration included), so a
 * change is applied with a confirmation deadline.
 */
export const PORT_MAPPING_MAX_ROWS = 4096;

function optionalPortField() {
  return integerInRange(0, PORT_MAX, 'validation.port.range').default(0);
}

export const firewallPortMapping = defineEntity({
  name: 'firewallPortMapping',
  path: 'firewall/redirect',
  module: 'portmapping',
  route: '/firewall/portmapping',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    enabled: z.boolean().default(true),
    name: nameField(),
    proto: z.enum(MAPPING_PROTOCOLS, { error: 'validation.option' }).default('tcp'),
    wan: interfaceNameField({ allowEmpty: true }).default(''),
    extport: portField(),
    extport_end: optionalPortField(),
    intip: ipv4Field(),
    intport: optionalPortField(),
    src: ipv4SelectorField().default(''),
    comment: plainTextField(FIREWALL_COMMENT_MAX).default(''),
  }),
  refine(value, ctx) {
    if (value.extport_end === 0) return;
    if (value.extport_end < value.extport) ctx.addIssue('extport_end', 'validation.portRange.order');
    else if (value.extport_end > value.extport && value.intport !== 0 && value.intport !== value.extport) ctx.addIssue('intport', INTERNAL_PORT_RANGE_MESSAGE);
  },
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'proto', format: 'option' },
      { field: 'wan' },
      { field: 'extport', sortable: true },
      { field: 'extport_end' },
      { field: 'intip', sortable: true },
      { field: 'intport' },
      { field: 'enabled', format: 'enabled' },
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
          { name: 'proto', widget: 'select', options: MAPPING_PROTOCOLS },
          { name: 'wan', ref: WAN_REF },
          { name: 'extport' },
          { name: 'extport_end' },
          { name: 'intip' },
          { name: 'intport' },
          { name: 'src' },
          { name: 'comment' },
        ],
      },
    ],
  },
  cutsAccess: true,
  maxRows: PORT_MAPPING_MAX_ROWS,
});
export type FirewallPortMapping = z.infer<typeof firewallPortMapping.schema>;

/** The external ports of a mapping as an inclusive range. */
export function mappingPorts(row: Pick<FirewallPortMapping, 'extport' | 'extport_end'>): { first: number; last: number } {
  return { first: row.extport, last: Math.max(row.extport, row.extport_end) };
}
