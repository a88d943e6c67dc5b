import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { ipv4Field } from '../common/ip-fields.js';
import { nameField, plainTextField } from '../common/text-fields.js';
import { interfaceNameField, INTERFACE_REF } from '../network/network-fields.js';
import { FIREWALL_COMMENT_MAX, ipv4SelectorField } from './firewall-fields.js';

/**
 * NAT rules: how traffic from `src` to `dst` leaving by `outif` (empty: any WAN or tunnel) is
 * translated (`target`; the API's `action` is the request verb). `snat` rewrites the source to `toaddr`, `masquerade` to the leaving device's
 * address, `nonat` keeps the addresses (routed networks, site-to-site links). Rules run in
 * list order before the gateway's own masquerade of LAN traffic.
 *
 * Source translation never touches traffic addressed to the gateway: no confirmation needed.
 */
export const NAT_ACTIONS = ['snat', 'masquerade', 'nonat'] as const;

export const firewallNat = defineEntity({
  name: 'firewallNat',
  path: 'firewall/nat',
  module: 'nat',
  route: '/firewall/nat',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    enabled: z.boolean().default(true),
    name: nameField(),
    target: z.enum(NAT_ACTIONS, { error: 'validation.option' }).default('masquerade'),
    src: ipv4SelectorField().default(''),
    dst: ipv4SelectorField().default(''),
    outif: interfaceNameField({ allowEmpty: true }).default(''),
    toaddr: ipv4Field({ allowEmpty: true }).default(''),
    comment: plainTextField(FIREWALL_COMMENT_MAX).default(''),
  }),
  refine(value, ctx) {
    if (value.target === 'snat' && value.toaddr === '') ctx.addIssue('toaddr', 'validation.required');
  },
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'target', format: 'option' },
      { field: 'src' },
      { field: 'dst' },
      { field: 'outif' },
      { field: 'toaddr' },
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
          { name: 'target', widget: 'select', options: NAT_ACTIONS },
          { name: 'src' },
          { name: 'dst' },
          { name: 'outif', ref: INTERFACE_REF },
          { name: 'toaddr', visibleWhen: { field: 'target', equals: 'snat' } },
          { name: 'comment' },
        ],
      },
    ],
  },
  maxRows: 256,
});
export type FirewallNat = z.infer<typeof firewallNat.schema>;
