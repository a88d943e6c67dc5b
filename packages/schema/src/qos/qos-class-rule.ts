import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { nameField } from '../common/text-fields.js';
import { interfaceNameField, WAN_REF } from '../network/network-fields.js';
import { domainListField, portListField, QOS_CLASSES } from './qos-fields.js';

/**
 * Port and domain rules (spec §3 Flow "port and domain classify rules: enabled, userule, name,
 * target, interface, proto or dest_domain"). A rule puts matching traffic in the `target`
 * priority class; with `userule` it also routes it out of the WAN `interface` (a policy route).
 * Port rules match destination ports (`dport`) of `proto`; domain rules match the addresses
 * the local DNS resolver answered for `dest_domain` and its subdomains.
 */
export const CLASS_RULE_PROTOS = ['tcp', 'udp', 'all'] as const;
export const CLASS_RULES_MAX = 256;

const common = {
  enabled: z.boolean().default(true),
  name: nameField(),
  target: z.enum(QOS_CLASSES, { error: 'validation.option' }).default('normal'),
  userule: z.boolean().default(false),
  interface: interfaceNameField({ allowEmpty: true }).default(''),
};

function refineRoute(value: { userule: boolean; interface: string }, ctx: { addIssue(field: string, message: string): void }) {
  if (value.userule && value.interface === '') ctx.addIssue('interface', 'validation.multiWan.notWan');
}

const routeFields = [
  { name: 'userule', widget: 'switch' as const },
  { name: 'interface', visibleWhen: { field: 'userule', equals: true }, ref: WAN_REF },
];

export const qosPortRule = defineEntity({
  name: 'qosPortRule',
  path: 'flow/qosclass',
  module: 'smartqos',
  route: '/smartqos/portroute',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    ...common,
    proto: z.enum(CLASS_RULE_PROTOS, { error: 'validation.option' }).default('tcp'),
    dport: portListField(),
  }),
  refine: (value, ctx) => refineRoute(value, ctx),
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'proto', format: 'option' },
      { field: 'dport', format: 'tags' },
      { field: 'target', format: 'option', sortable: true },
      { field: 'userule', format: 'bool' },
      { field: 'interface' },
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
          { name: 'proto', widget: 'select', options: CLASS_RULE_PROTOS },
          { name: 'dport', widget: 'tags' },
          { name: 'target', widget: 'select', options: QOS_CLASSES },
          ...routeFields,
        ],
      },
    ],
  },
  maxRows: CLASS_RULES_MAX,
});
export type QosPortRule = z.infer<typeof qosPortRule.schema>;

export const qosDomainRule = defineEntity({
  name: 'qosDomainRule',
  path: 'flow/policyroute',
  module: 'smartqos',
  route: '/smartqos/domainroute',
  kind: 'collection',
  schema: z.object({ id: z.string(), ...common, dest_domain: domainListField() }),
  refine: (value, ctx) => refineRoute(value, ctx),
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'dest_domain', format: 'tags' },
      { field: 'target', format: 'option', sortable: true },
      { field: 'userule', format: 'bool' },
      { field: 'interface' },
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
          { name: 'dest_domain', widget: 'tags' },
          { name: 'target', widget: 'select', options: QOS_CLASSES },
          ...routeFields,
        ],
      },
    ],
  },
  maxRows: CLASS_RULES_MAX,
});
export type QosDomainRule = z.infer<typeof qosDomainRule.schema>;
