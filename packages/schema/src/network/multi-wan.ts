import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { ipv4Field } from '../common/ip-fields.js';
import { interfaceNameField, WAN_REF } from './network-fields.js';

/**
 * Multi-WAN (spec §7 `vwan`): one entry per WAN. `balance` members share new connections by
 * weight; `failover` members carry traffic only when no balance member is up, the lowest
 * priority number first. Track IPs are probed through the WAN to tell whether it is up.
 */
export const MULTI_WAN_MODES = ['balance', 'failover'] as const;
export const WAN_WEIGHT_MAX = 100;
export const WAN_PRIORITY_MAX = 99;
export const TRACK_IPS_MAX = 4;

export const multiWan = defineEntity({
  name: 'multiWan',
  path: 'vwan',
  module: 'multiwan',
  route: '/netconf/multiwan',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    interface: interfaceNameField(),
    enabled: z.boolean().default(true),
    mode: z.enum(MULTI_WAN_MODES, { error: 'validation.option' }).default('balance'),
    weight: integerInRange(1, WAN_WEIGHT_MAX, 'validation.multiWan.weight').default(1),
    priority: integerInRange(1, WAN_PRIORITY_MAX, 'validation.multiWan.priority').default(1),
    track_ips: z.array(ipv4Field()).max(TRACK_IPS_MAX, { error: 'validation.tooBig' }).default([]),
  }),
  list: {
    columns: [
      { field: 'interface', sortable: true },
      { field: 'mode', format: 'option', sortable: true },
      { field: 'weight', sortable: true },
      { field: 'priority', sortable: true },
      { field: 'track_ips', format: 'tags' },
      { field: 'enabled', format: 'enabled' },
    ],
    defaultSort: 'priority',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'interface', addOnly: true, ref: WAN_REF },
          { name: 'enabled', widget: 'switch' },
          { name: 'mode', widget: 'select', options: MULTI_WAN_MODES },
          { name: 'weight', visibleWhen: { field: 'mode', equals: 'balance' } },
          { name: 'priority' },
          { name: 'track_ips', widget: 'tags' },
        ],
      },
    ],
  },
  cutsAccess: true,
  maxRows: 8,
});
export type MultiWan = z.infer<typeof multiWan.schema>;
