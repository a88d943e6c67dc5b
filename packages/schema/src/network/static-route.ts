import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { cidrField, ipv4Field } from '../common/ip-fields.js';
import { plainTextField } from '../common/text-fields.js';
import { interfaceNameField, ROUTE_INTERFACE_REF } from './network-fields.js';
import { COMMENT_MAX } from './dhcp-static.js';

/**
 * Static routes (spec §3). A route names a gateway, an interface or both; the target is a
 * network address (`10.20.0.0/16`, `0.0.0.0/0` for a default route).
 */
export const ROUTE_METRIC_MAX = 9999;

export const staticRoute = defineEntity({
  name: 'staticRoute',
  path: 'staticroute',
  module: 'staticroute',
  route: '/netconf/staticroute',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    target: cidrField({ network: true }),
    gateway: ipv4Field({ allowEmpty: true }).default(''),
    interface: interfaceNameField({ allowEmpty: true }).default(''),
    metric: integerInRange(0, ROUTE_METRIC_MAX, 'validation.metric.range').default(0),
    enabled: z.boolean().default(true),
    comment: plainTextField(COMMENT_MAX).default(''),
  }),
  refine(value, ctx) {
    if (value.gateway === '' && value.interface === '') ctx.addIssue('gateway', 'validation.staticRoute.via');
  },
  list: {
    columns: [
      { field: 'target', sortable: true },
      { field: 'gateway' },
      { field: 'interface', sortable: true },
      { field: 'metric', sortable: true },
      { field: 'enabled', format: 'enabled' },
      { field: 'comment' },
    ],
    defaultSort: 'target',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'target' },
          { name: 'gateway' },
          { name: 'interface', ref: ROUTE_INTERFACE_REF },
          { name: 'metric' },
          { name: 'enabled', widget: 'switch' },
          { name: 'comment' },
        ],
      },
    ],
  },
  cutsAccess: true,
  maxRows: 256,
});
export type StaticRoute = z.infer<typeof staticRoute.schema>;
