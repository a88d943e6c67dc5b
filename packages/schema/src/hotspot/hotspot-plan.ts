import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { nameField, plainTextField } from '../common/text-fields.js';
import { integerInRange } from '../common/field-base.js';
import { limitField, speedField, TIME_UNITS, timeUnitField } from '../common/quantity-fields.js';
import { ACCOUNTING } from '../constants/hotspot-defaults.js';
import {
  durationValueField,
  FLOW_MAX_MB,
  HOTSPOT_MESSAGES,
  PLAN_REF,
  planRefField,
  reminderFlowField,
  reminderTimeField,
  SPEED_MAX_KBPS,
  zBool,
} from './hotspot-fields.js';

/** What a plan is charged by: time, traffic, or whichever runs out first. */
export const PLAN_UNITS = ['time', 'flow', 'both'] as const;
/** Where usage is accounted: on the device, or reported to the RADIUS server. */
export const PLAN_SERVERS = ['local', 'radius'] as const;
/** After expiry the user is taken offline or moved to another plan (spec §3). */
export const EXPIRE_ACTIONS = ['offline', 'switch'] as const;
/** Most purchases of one plan per user; 0 = unlimited. */
export const MAX_PURCHASES = 9999;

/**
 * Tariff / billing plan (spec §3). 0 means unlimited for flow, duration, rates and purchases
 * (§5). The accounting cycle of a plan is 0 (use the device's accounting interval) or within
 * the accounting interval range, 10-300 seconds.
 */
export const hotspotPlan = defineEntity({
  name: 'hotspotPlan',
  path: 'auth/tariff',
  module: 'billingplan',
  route: '/hotspot/billingplan',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    name: nameField(),
    /** Traffic quota in MB. */
    flow: limitField(FLOW_MAX_MB).default(0),
    effecttime: durationValueField().default(0),
    effectunit: timeUnitField().default('hours'),
    upspeed: speedField(SPEED_MAX_KBPS).default(0),
    downspeed: speedField(SPEED_MAX_KBPS).default(0),
    server: z.enum(PLAN_SERVERS, { error: 'validation.option' }).default('local'),
    unit: z.enum(PLAN_UNITS, { error: 'validation.option' }).default('time'),
    maxbuy: limitField(MAX_PURCHASES).default(0),
    cycle: integerInRange(0, ACCOUNTING.intervalMax, 'validation.hotspot.cycle').default(0),
    remind: zBool().default(false),
    remind_time: reminderTimeField().default(10),
    remind_flow: reminderFlowField().default(10),
    expire_action: z.enum(EXPIRE_ACTIONS, { error: 'validation.option' }).default('offline'),
    switch_plan: planRefField().default(''),
    comment: plainTextField(64).default(''),
  }),
  refine(value, ctx) {
    if (value.cycle !== 0 && value.cycle < ACCOUNTING.intervalMin) ctx.addIssue('cycle', 'validation.hotspot.cycle');
    if (value.expire_action === 'switch' && value.switch_plan === '') ctx.addIssue('switch_plan', 'validation.required');
    if (value.expire_action === 'switch' && value.switch_plan === value.name) ctx.addIssue('switch_plan', HOTSPOT_MESSAGES.selfSwitch);
  },
  list: {
    columns: [
      { field: 'name', sortable: true },
      { field: 'flow', sortable: true },
      { field: 'effecttime', sortable: true },
      { field: 'effectunit', format: 'option' },
      { field: 'upspeed' },
      { field: 'downspeed' },
      { field: 'expire_action', format: 'option' },
    ],
    defaultSort: 'name',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'name', addOnly: true },
          { name: 'unit', widget: 'select', options: PLAN_UNITS },
          { name: 'flow' },
          { name: 'effecttime' },
          { name: 'effectunit', widget: 'select', options: TIME_UNITS },
          { name: 'upspeed' },
          { name: 'downspeed' },
          { name: 'comment' },
        ],
      },
      {
        key: 'advanced',
        fields: [
          { name: 'server', widget: 'select', options: PLAN_SERVERS },
          { name: 'maxbuy' },
          { name: 'cycle' },
          { name: 'remind', widget: 'switch' },
          { name: 'remind_time', visibleWhen: { field: 'remind', equals: true } },
          { name: 'remind_flow', visibleWhen: { field: 'remind', equals: true } },
          { name: 'expire_action', widget: 'select', options: EXPIRE_ACTIONS },
          { name: 'switch_plan', visibleWhen: { field: 'expire_action', equals: 'switch' }, ref: PLAN_REF },
        ],
      },
    ],
  },
  maxRows: 256,
});
export type HotspotPlan = z.infer<typeof hotspotPlan.schema>;

/** What the device does when an account reaches its limits. */
export const ACCOUNTING_ACTIONS = ['offline', 'notice'] as const;
/** Accounting on the device or by the RADIUS server. */
export const ACCOUNTING_MODELS = ['local', 'radius'] as const;

/**
 * Accounting settings (spec §3 Accounting, §9): how often usage is counted (10-300 s,
 * default 120), when a user is told their account is running out (24 hours, 10 MB before)
 * and what happens at the end.
 */
export const hotspotAccounting = defineEntity({
  name: 'hotspotAccounting',
  path: 'auth/acct',
  module: 'billingplan',
  route: '/hotspot/billingplan/advanced',
  kind: 'singleton',
  schema: z.object({
    interval: integerInRange(ACCOUNTING.intervalMin, ACCOUNTING.intervalMax, 'validation.hotspot.interval').default(ACCOUNTING.interval),
    timeunit: timeUnitField().default('minutes'),
    /** Hours before expiry at which the user is reminded. */
    expiretime: integerInRange(1, 720, 'validation.hotspot.expireTime').default(ACCOUNTING.expireTime),
    /** MB left at which the user is reminded. */
    expireflow: integerInRange(1, 10240, 'validation.hotspot.expireFlow').default(ACCOUNTING.expireFlow),
    /** The spec's `action`; renamed because `action` is the verb of every write body. */
    limit_action: z.enum(ACCOUNTING_ACTIONS, { error: 'validation.option' }).default('offline'),
    model: z.enum(ACCOUNTING_MODELS, { error: 'validation.option' }).default('local'),
  }),
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'interval' },
          { name: 'timeunit', widget: 'select', options: TIME_UNITS },
          { name: 'expiretime' },
          { name: 'expireflow' },
          { name: 'limit_action', widget: 'select', options: ACCOUNTING_ACTIONS },
          { name: 'model', widget: 'select', options: ACCOUNTING_MODELS },
        ],
      },
    ],
  },
});
export type HotspotAccounting = z.infer<typeof hotspotAccounting.schema>;
