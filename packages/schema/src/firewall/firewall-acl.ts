import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { portRangeField } from '../common/port-fields.js';
import { nameField, plainTextField } from '../common/text-fields.js';
import { interfaceNameField, INTERFACE_REF } from '../network/network-fields.js';
import { FILTER_PROTOCOLS, FIREWALL_COMMENT_MAX, ipv4SelectorField, PORTS_NEED_PROTOCOL_MESSAGE } from './firewall-fields.js';

/**
 * Filter rules (ACL). `forward` rules judge new connections crossing the gateway, `input`
 * rules new connections to the gateway itself; the first matching rule in list order decides.
 * Empty matches mean "any". Ports need TCP or UDP. The verdict is `target`: the API's
 * `action` is the request verb.
 *
 * An input rule can block the console itself: applied with a confirmation deadline.
 */
export const FILTER_DIRECTIONS = ['forward', 'input'] as const;
export const FILTER_ACTIONS = ['drop', 'reject', 'accept'] as const;
export const FILTER_MAX_ROWS = 4096;

export const firewallAcl = defineEntity({
  name: 'firewallAcl',
  path: 'firewall/filter',
  module: 'acl',
  route: '/firewall/acl',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    enabled: z.boolean().default(true),
    name: nameField(),
    direction: z.enum(FILTER_DIRECTIONS, { error: 'validation.option' }).default('forward'),
    target: z.enum(FILTER_ACTIONS, { error: 'validation.option' }).default('drop'),
    proto: z.enum(FILTER_PROTOCOLS, { error: 'validation.option' }).default('all'),
    iface: interfaceNameField({ allowEmpty: true }).default(''),
    src: ipv4SelectorField().default(''),
    dst: ipv4SelectorField().default(''),
    sport: portRangeField({ allowEmpty: true }).default(''),
    dport: portRangeField({ allowEmpty: true }).default(''),
    comment: plainTextField(FIREWALL_COMMENT_MAX).default(''),
  }),
  refine(value, ctx) {
    const ported = value.proto === 'tcp' || value.proto === 'udp' || value.proto === 'tcpudp';
    if (ported) return;
    if (value.sport !== '') ctx.addIssue('sport', PORTS_NEED_PROTOCOL_MESSAGE);
    if (value.dport !== '') ctx.addIssue('dport', PORTS_NEED_PROTOCOL_MESSAGE);
  },
  list: {
    columns: [
      { field: 'name' },
      { field: 'direction', format: 'option' },
      { field: 'target', format: 'option' },
      { field: 'proto', format: 'option' },
      { field: 'src' },
      { field: 'dst' },
      { field: 'dport' },
      { field: 'enabled', format: 'enabled' },
    ],
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'name' },
          { name: 'direction', widget: 'select', options: FILTER_DIRECTIONS },
          { name: 'target', widget: 'select', options: FILTER_ACTIONS },
          { name: 'proto', widget: 'select', options: FILTER_PROTOCOLS },
          { name: 'iface', ref: INTERFACE_REF },
          { name: 'src' },
          { name: 'dst' },
          { name: 'sport', visibleWhen: { field: 'proto', in: ['tcp', 'udp', 'tcpudp'] } },
          { name: 'dport', visibleWhen: { field: 'proto', in: ['tcp', 'udp', 'tcpudp'] } },
          { name: 'comment' },
        ],
      },
    ],
  },
  cutsAccess: true,
  maxRows: FILTER_MAX_ROWS,
});
export type FirewallAcl = z.infer<typeof firewallAcl.schema>;
