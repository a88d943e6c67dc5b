import { z } from 'zod';
import { integerInRange } from './field-base.js';

/** Counts and amounts where 0 means "no limit" (spec §5: purchases, flow, duration, ...). */

export function limitField(max: number = Number.MAX_SAFE_INTEGER) {
  return integerInRange(0, max, 'validation.limit.range');
}

/** A byte count (traffic quota, disk size). */
export function bytesField(max: number = Number.MAX_SAFE_INTEGER) {
  return integerInRange(0, max, 'validation.bytes.range');
}

/** A rate in kbit/s; 0 means unlimited. */
export function speedField(max: number = Number.MAX_SAFE_INTEGER) {
  return integerInRange(0, max, 'validation.speed.range');
}

/** Time units of durations (spec §9). */
export const TIME_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

export const SECONDS_PER_UNIT: Readonly<Record<TimeUnit, number>> = {
  seconds: 1,
  minutes: 60,
  hours: 3600,
  days: 86400,
};

export function timeUnitField() {
  return z.enum(TIME_UNITS, { error: 'validation.duration.unit' });
}

export interface DurationFieldOptions {
  /** Smallest value in its own unit; 0 (the default) reads "unlimited" where allowed. */
  min?: number;
  /** Upper bound in seconds (e.g. authentication validity, 20 days). */
  maxSeconds?: number;
}

/** A duration as typed: a whole number and its unit. */
export function durationField(options: DurationFieldOptions = {}) {
  const min = options.min ?? 0;
  return z
    .object({
      value: integerInRange(min, Number.MAX_SAFE_INTEGER, 'validation.duration.value'),
      unit: timeUnitField(),
    })
    .refine(
      (d) => options.maxSeconds === undefined || d.value * SECONDS_PER_UNIT[d.unit] <= options.maxSeconds,
      { error: 'validation.duration.max', path: ['value'] },
    );
}
