import { z } from 'zod';
import { defineEntity, type RefineContext } from '../entity/define-entity.js';
import { integerInRange } from '../common/field-base.js';
import { macField } from '../common/mac-address.js';
import { nameField } from '../common/text-fields.js';
import { clockField, clockMinutes, SPEED_MAX_KBIT, usernetField, WEEKDAYS, weekdaysField } from './qos-fields.js';

/**
 * IP and MAC bandwidth rules (spec §3 Flow "enabled, name, usernet, upspeed1/2, downspeed1/2,
 * weekdays, timestart, timestop"). Every address the rule covers gets its own limit:
 * `upspeed1`/`downspeed1` inside the weekly window (weekdays, timestart-timestop), and
 * `upspeed2`/`downspeed2` outside it. Speeds are kbit/s; 0 leaves that direction unlimited.
 * A window that ends before it starts runs over midnight.
 */
const speed = () => integerInRange(0, SPEED_MAX_KBIT, 'validation.speed.range').default(0);

const windowFields = {
  enabled: z.boolean().default(true),
  name: nameField(),
  upspeed1: speed(),
  downspeed1: speed(),
  upspeed2: speed(),
  downspeed2: speed(),
  weekdays: weekdaysField().default([...WEEKDAYS]),
  timestart: clockField().default('00:00'),
  timestop: clockField().default('24:00'),
};

function refineWindow(value: { timestart: string; timestop: string; weekdays: readonly string[] }, ctx: RefineContext) {
  if (clockMinutes(value.timestart) === clockMinutes(value.timestop)) ctx.addIssue('timestop', 'validation.invalid');
  if (value.weekdays.length === 0) ctx.addIssue('weekdays', 'validation.required');
  if (new Set(value.weekdays).size !== value.weekdays.length) ctx.addIssue('weekdays', 'validation.invalid');
}

const speedColumns = [
  { field: 'upspeed1', sortable: true },
  { field: 'downspeed1', sortable: true },
  { field: 'upspeed2' },
  { field: 'downspeed2' },
  { field: 'weekdays', format: 'tags' },
  { field: 'timestart' },
  { field: 'timestop' },
  { field: 'enabled', format: 'enabled' },
] as const;

const formFields = (addressField: string) => [
  { name: 'enabled', widget: 'switch' as const },
  { name: 'name' },
  { name: addressField },
  { name: 'upspeed1' },
  { name: 'downspeed1' },
  { name: 'weekdays', widget: 'tags' as const },
  { name: 'timestart' },
  { name: 'timestop' },
  { name: 'upspeed2' },
  { name: 'downspeed2' },
];

/** Rows a device keeps; the tc renderer checks the class budget over all rules. */
export const BANDWIDTH_RULES_MAX = 10_000;

export const qosIpRule = defineEntity({
  name: 'qosIpRule',
  path: 'flow/ipqos',
  module: 'smartqos',
  route: '/smartqos/flowcontrol',
  formRoutes: { prefix: 'ip' },
  kind: 'collection',
  schema: z.object({ id: z.string(), usernet: usernetField(), ...windowFields }),
  refine: (value, ctx) => refineWindow(value, ctx),
  list: { columns: [{ field: 'name', sortable: true }, { field: 'usernet', sortable: true }, ...speedColumns], defaultSort: 'name' },
  form: { tabs: [{ key: 'basic', fields: formFields('usernet') }] },
  maxRows: BANDWIDTH_RULES_MAX,
});
export type QosIpRule = z.infer<typeof qosIpRule.schema>;

/** The same rule for one device by its MAC address (`usernet` holds the MAC), listed beside the IP rules. */
export const qosMacRule = defineEntity({
  name: 'qosMacRule',
  path: 'flow/macqos',
  module: 'smartqos',
  route: '/smartqos/flowcontrol',
  formRoutes: { prefix: 'mac' },
  kind: 'collection',
  schema: z.object({ id: z.string(), usernet: macField({ unicast: true }), ...windowFields }),
  refine: (value, ctx) => refineWindow(value, ctx),
  list: { columns: [{ field: 'name', sortable: true }, { field: 'usernet', sortable: true }, ...speedColumns], defaultSort: 'name' },
  form: { tabs: [{ key: 'basic', fields: formFields('usernet') }] },
  maxRows: BANDWIDTH_RULES_MAX,
});
export type QosMacRule = z.infer<typeof qosMacRule.schema>;

export type QosBandwidthRule = QosIpRule | QosMacRule;
