import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { plainTextField } from '../common/text-fields.js';
import { passwordField, PASSWORD_MISMATCH, userNameField } from '../common/account-fields.js';
import { limitField, speedField } from '../common/quantity-fields.js';
import { integerInRange } from '../common/field-base.js';
import { LOCAL_USER_CONCURRENCY_DEFAULT } from '../constants/hotspot-defaults.js';
import { dueTimeField, FLOW_MAX_MB, HOTSPOT_MESSAGES, planRefField, PLAN_REF, SPEED_MAX_KBPS, telField, zBool } from './hotspot-fields.js';

/** Services a local account may sign in to (spec §3 Local user type). */
export const LOCAL_USER_TYPES = ['portal', 'pppoe', 'pptp', 'l2tp', 'voucher'] as const;
/** Userstatus (spec §3): an account past its due time reads expired whatever is stored. */
export const LOCAL_USER_STATUSES = ['normal', 'expired'] as const;
/** Most simultaneous logins of one account; 0 = unlimited. */
export const USERNUM_MAX = 999;

/**
 * Local users (spec §3). The password is stored as a hash by the daemon and never read back;
 * `model` names the billing plan; totals and rates of 0 are unlimited; an empty due time
 * never expires.
 */
export const hotspotUser = defineEntity({
  name: 'hotspotUser',
  path: 'auth/userauth',
  module: 'localuser',
  route: '/hotspot/localuser',
  kind: 'collection',
  schema: z.object({
    id: z.string(),
    username: userNameField(),
    password: passwordField(),
    /** Optional for API clients; when sent (the console always does) it must match. */
    confirm: z.string().optional(),
    type: z.enum(LOCAL_USER_TYPES, { error: 'validation.option' }).default('portal'),
    model: planRefField().default(''),
    usernum: limitField(USERNUM_MAX).default(LOCAL_USER_CONCURRENCY_DEFAULT),
    totalflow: limitField(FLOW_MAX_MB).default(0),
    upspeed: speedField(SPEED_MAX_KBPS).default(0),
    downspeed: speedField(SPEED_MAX_KBPS).default(0),
    duetime: dueTimeField().default(''),
    status: z.enum(LOCAL_USER_STATUSES, { error: 'validation.option' }).default('normal'),
    sms: zBool().default(false),
    tel: telField().default(''),
    comment: plainTextField(64).default(''),
  }),
  writeOnly: ['password', 'confirm'],
  refine(value, ctx) {
    if (value.confirm !== undefined && value.password !== value.confirm) ctx.addIssue('confirm', PASSWORD_MISMATCH);
    if (value.sms && value.tel === '') ctx.addIssue('tel', 'validation.required');
  },
  list: {
    columns: [
      { field: 'username', sortable: true },
      { field: 'type', format: 'option', sortable: true },
      { field: 'model', sortable: true },
      { field: 'usernum' },
      { field: 'duetime', sortable: true },
      { field: 'status', format: 'option', sortable: true },
      { field: 'comment' },
    ],
    defaultSort: 'username',
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'username', addOnly: true },
          { name: 'password', widget: 'password', keepWhenEmpty: true },
          { name: 'confirm', widget: 'password', keepWhenEmpty: true },
          { name: 'type', widget: 'select', options: LOCAL_USER_TYPES },
          { name: 'model', ref: PLAN_REF },
          { name: 'duetime' },
          { name: 'status', widget: 'select', options: LOCAL_USER_STATUSES },
          { name: 'comment' },
        ],
      },
      {
        key: 'advanced',
        fields: [
          { name: 'usernum' },
          { name: 'totalflow' },
          { name: 'upspeed' },
          { name: 'downspeed' },
          { name: 'sms', widget: 'switch' },
          { name: 'tel' },
        ],
      },
    ],
  },
  maxRows: 10_000,
});
export type HotspotUser = z.infer<typeof hotspotUser.schema>;

/**
 * GET auth/userauth/needpassword: the local accounts that keep no sealed password (made before
 * every account kept one, or restored from another device), so CHAP (PPP servers, CMCC and RU
 * portals) cannot check them until their password is set again.
 */
export const localUserPasswordStatusSchema = z.object({ needPassword: z.array(z.string()) });
export type LocalUserPasswordStatus = z.infer<typeof localUserPasswordStatusSchema>;

/** Most accounts one batch creates. */
export const USER_BATCH_MAX = 500;
/** Batch user names are the prefix and a zero-padded number; the prefix leaves room for it. */
export const USER_PREFIX_MAX = 24;

/**
 * Batch creation of local users (spec §3): `count` accounts named `<prefix><n>` (n from 1,
 * zero-padded to the width of count, at least 3 digits), all with one password and due time.
 * A write here creates the accounts as one journalled change; nothing is stored for the batch.
 */
export const hotspotUserBatch = defineEntity({
  name: 'hotspotUserBatch',
  path: 'auth/userbatch',
  module: 'localuser',
  route: '/hotspot/localuser/batch',
  kind: 'singleton',
  schema: z.object({
    prefix: userNameField().refine((v) => v.length <= USER_PREFIX_MAX, { error: HOTSPOT_MESSAGES.prefix }).default('user'),
    count: integerInRange(1, USER_BATCH_MAX, 'validation.hotspot.batchCount').default(10),
    password: passwordField(),
    duetime: dueTimeField().default(''),
    type: z.enum(LOCAL_USER_TYPES, { error: 'validation.option' }).default('portal'),
    model: planRefField().default(''),
    usernum: limitField(USERNUM_MAX).default(LOCAL_USER_CONCURRENCY_DEFAULT),
    comment: plainTextField(64).default(''),
  }),
  writeOnly: ['password'],
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'prefix' },
          { name: 'count' },
          { name: 'password', widget: 'password' },
          { name: 'duetime' },
          { name: 'type', widget: 'select', options: LOCAL_USER_TYPES },
          { name: 'model', ref: PLAN_REF },
          { name: 'usernum' },
          { name: 'comment' },
        ],
      },
    ],
  },
});
export type HotspotUserBatch = z.infer<typeof hotspotUserBatch.schema>;

/** The user names a batch creates, in order. */
export function batchUserNames(prefix: string, count: number): string[] {
  const width = Math.max(3, String(count).length);
  return Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(width, '0')}`);
}
