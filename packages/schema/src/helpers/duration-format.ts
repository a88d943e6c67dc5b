import { SECONDS_PER_UNIT, TIME_UNITS, type TimeUnit } from '../common/quantity-fields.js';

/** Durations split into days, hours, minutes and seconds (spec §9). */
export interface DurationParts {
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

export const DURATION_PARTS = ['days', 'hours', 'minutes', 'seconds'] as const;
export type DurationPart = (typeof DURATION_PARTS)[number];

/** Whole seconds (fractions dropped, negatives read as 0) split into parts. */
export function formatDuration(totalSeconds: number): DurationParts {
  const s = Number.isFinite(totalSeconds) && totalSeconds > 0 ? Math.floor(totalSeconds) : 0;
  return {
    days: Math.floor(s / 86400),
    hours: Math.floor((s % 86400) / 3600),
    minutes: Math.floor((s % 3600) / 60),
    seconds: s % 60,
  };
}

/**
 * Renders one part with its count, e.g. `(unit, n) => t(\`common.duration.${unit}\`, { count: n })`.
 * The caller supplies the words so every language reads naturally.
 */
export type DurationTranslator = (unit: DurationPart, count: number) => string;

export interface RenderDurationOptions {
  /** Between parts; '' suits Chinese, ' ' (default) suits English. */
  separator?: string;
  /** Keep only the largest N non-zero parts (uptime shows "3 days 4 hours"). */
  maxParts?: number;
}

/** Non-zero parts from largest to smallest; zero renders as "0 seconds". */
export function renderDuration(
  value: number | DurationParts,
  translate: DurationTranslator,
  options: RenderDurationOptions = {},
): string {
  const parts = typeof value === 'number' ? formatDuration(value) : value;
  let shown = DURATION_PARTS.filter((unit) => parts[unit] > 0);
  if (options.maxParts !== undefined) shown = shown.slice(0, Math.max(1, options.maxParts));
  if (shown.length === 0) return translate('seconds', 0);
  return shown.map((unit) => translate(unit, parts[unit])).join(options.separator ?? ' ');
}

export function toSeconds(value: number, unit: TimeUnit): number {
  return value * SECONDS_PER_UNIT[unit];
}

/** Seconds expressed in `unit` (may be fractional). */
export function fromSeconds(seconds: number, unit: TimeUnit): number {
  return seconds / SECONDS_PER_UNIT[unit];
}

/** The largest unit that holds `seconds` exactly: 7200 -> { value: 2, unit: 'hours' }. */
export function toDurationValue(seconds: number): { value: number; unit: TimeUnit } {
  for (const unit of [...TIME_UNITS].reverse()) {
    const size = SECONDS_PER_UNIT[unit];
    if (seconds !== 0 && seconds % size === 0) return { value: seconds / size, unit };
  }
  return { value: seconds, unit: 'seconds' };
}
