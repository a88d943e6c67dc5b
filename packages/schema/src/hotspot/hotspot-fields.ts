import { z } from 'zod';
import { stringBase } from '../common/field-base.js';
import { plainTextField } from '../common/text-fields.js';
import { integerInRange } from '../common/field-base.js';
import { AUTH_VALIDITY, EXPIRY_REMINDER } from '../constants/hotspot-defaults.js';
import { SECONDS_PER_UNIT, type TimeUnit } from '../common/quantity-fields.js';
import type { EntityRef } from '../entity/define-entity.js';

/** Field types shared by the Hotspot entities (spec §3, §5). */

/** Messages of the Hotspot rules; the texts live in the validation namespace. */
export const HOTSPOT_MESSAGES = {
  duplicate: 'validation.hotspot.duplicate',
  otherList: 'validation.hotspot.otherList',
  listValue: 'validation.hotspot.listValue',
  zoneInterface: 'validation.hotspot.zoneInterface',
  unknownPlan: 'validation.hotspot.unknownPlan',
  selfSwitch: 'validation.hotspot.selfSwitch',
  dueTime: 'validation.hotspot.dueTime',
  tel: 'validation.hotspot.tel',
  prefix: 'validation.hotspot.prefix',
  userExists: 'validation.hotspot.userExists',
  methods: 'validation.hotspot.methods',
} as const;

/** Delete refusals and other whole-request messages, in the hotspot namespace. */
export const HOTSPOT_MSG = {
  planInUse: 'hotspot.msg.planInUse',
} as const;

/**
 * Text shown on the portal that spans lines (terms of service, notices) is kept as a list of
 * lines, each a safe single line: no stored value ever holds a line break or a control
 * character, and the portal joins the lines when it shows them.
 */
export function linesField(maxLines: number, maxLineLength: number) {
  return z.array(plainTextField(maxLineLength)).max(maxLines, { error: 'validation.text.length' });
}

/** True when the lines hold no visible text. */
export function blankLines(lines: readonly string[]): boolean {
  return lines.every((line) => line.trim() === '');
}

/**
 * Durations are two flat fields, a count and its unit, so the generic form edits them. The
 * authentication validity is 1 unit at least and at most 20 days (spec §5, §9).
 */
export function durationValueField() {
  return integerInRange(0, Number.MAX_SAFE_INTEGER, 'validation.duration.value');
}

export function durationSeconds(value: number, unit: TimeUnit): number {
  return value * SECONDS_PER_UNIT[unit];
}

export function authTimeValid(value: number, unit: TimeUnit): boolean {
  return value >= 1 && durationSeconds(value, unit) <= AUTH_VALIDITY.maxSeconds;
}

/** Expiry reminder lead time, 1-60 (minutes), and traffic, 1-100 MB (spec §5). */
export function reminderTimeField() {
  return integerInRange(EXPIRY_REMINDER.timeMin, EXPIRY_REMINDER.timeMax, 'validation.hotspot.reminderTime');
}
export function reminderFlowField() {
  return integerInRange(EXPIRY_REMINDER.trafficMinMb, EXPIRY_REMINDER.trafficMaxMb, 'validation.hotspot.reminderFlow');
}

/**
 * A due time as an administrator types it: `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` (device local
 * time), a real calendar date. Empty = never expires.
 */
const DUE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}))?$/;

export function isDueTime(text: string): boolean {
  const m = DUE_TIME.exec(text);
  if (!m) return false;
  const [, y, mo, d, h = '00', mi = '00'] = m;
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi));
  return (
    date.getFullYear() === Number(y) &&
    date.getMonth() === Number(mo) - 1 &&
    date.getDate() === Number(d) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(y) >= 2000 &&
    Number(y) <= 2100
  );
}

/** The instant a due time ends (a bare date lasts the whole day), or null when it never ends. */
export function dueTimeEnd(text: string): number | null {
  const m = DUE_TIME.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi] = m;
  if (h === undefined) return new Date(Number(y), Number(mo) - 1, Number(d) + 1).getTime();
  return new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)).getTime();
}

export function dueTimeField() {
  return stringBase().refine((v) => v === '' || isDueTime(v), { error: HOTSPOT_MESSAGES.dueTime });
}

/** A telephone number for SMS notices: digits with an optional leading +, 3-20 digits. */
export function telField() {
  return stringBase().refine((v) => v === '' || /^\+?[0-9]{3,20}$/.test(v), { error: HOTSPOT_MESSAGES.tel });
}

/** A billing plan named by another record; '' = none. Names are unique, so they identify. */
export function planRefField() {
  return plainTextField(32);
}

/** The choices of a plan field: the billing plans by name. */
export const PLAN_REF: EntityRef = [{ entity: 'hotspotPlan', value: 'name' }];

/** Megabytes of traffic; 0 = unlimited. Up to 1 PB. */
export const FLOW_MAX_MB = 1_000_000_000;
/** Rates in kbit/s; 0 = unlimited. Up to 100 Gbit/s. */
export const SPEED_MAX_KBPS = 100_000_000;

export const zBool = () => z.boolean({ error: 'validation.type' });
