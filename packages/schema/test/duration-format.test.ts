import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  fromSeconds,
  renderDuration,
  SECONDS_PER_UNIT,
  TIME_UNITS,
  toDurationValue,
  toSeconds,
  type DurationTranslator,
} from '../src/index.js';

const english: DurationTranslator = (unit, n) => `${n} ${n === 1 ? unit.slice(0, -1) : unit}`;
const chinese: DurationTranslator = (unit, n) => `${n}${{ days: '天', hours: '小时', minutes: '分钟', seconds: '秒' }[unit]}`;

describe('formatDuration', () => {
  it('splits seconds into days, hours, minutes and seconds', () => {
    expect(formatDuration(0)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 0 });
    expect(formatDuration(59)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 59 });
    expect(formatDuration(3661)).toEqual({ days: 0, hours: 1, minutes: 1, seconds: 1 });
    expect(formatDuration(86400 * 3 + 7200 + 5)).toEqual({ days: 3, hours: 2, minutes: 0, seconds: 5 });
  });

  it('drops fractions and reads negatives and non-numbers as zero', () => {
    expect(formatDuration(90.9)).toEqual({ days: 0, hours: 0, minutes: 1, seconds: 30 });
    expect(formatDuration(-5)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 0 });
    expect(formatDuration(Number.NaN)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 0 });
  });
});

describe('renderDuration', () => {
  it('renders non-zero parts through the translator', () => {
    expect(renderDuration(3661, english)).toBe('1 hour 1 minute 1 second');
    expect(renderDuration(86400 * 2 + 5, english)).toBe('2 days 5 seconds');
    expect(renderDuration(86400 * 2 + 5, chinese, { separator: '' })).toBe('2天5秒');
    expect(renderDuration(0, english)).toBe('0 seconds');
  });

  it('keeps only the largest parts when asked', () => {
    expect(renderDuration(86400 + 3600 * 4 + 61, english, { maxParts: 2 })).toBe('1 day 4 hours');
    expect(renderDuration({ days: 0, hours: 0, minutes: 3, seconds: 0 }, english, { maxParts: 1 })).toBe('3 minutes');
  });
});

describe('time units', () => {
  it('has the four units of the spec', () => {
    expect(TIME_UNITS).toEqual(['seconds', 'minutes', 'hours', 'days']);
    expect(SECONDS_PER_UNIT.days).toBe(86400);
  });

  it('converts to and from seconds', () => {
    expect(toSeconds(2, 'hours')).toBe(7200);
    expect(toSeconds(20, 'days')).toBe(1_728_000);
    expect(fromSeconds(7200, 'minutes')).toBe(120);
    expect(fromSeconds(90, 'minutes')).toBe(1.5);
    for (const unit of TIME_UNITS) expect(fromSeconds(toSeconds(7, unit), unit)).toBe(7);
  });

  it('picks the largest unit that holds a value exactly', () => {
    expect(toDurationValue(7200)).toEqual({ value: 2, unit: 'hours' });
    expect(toDurationValue(86400 * 3)).toEqual({ value: 3, unit: 'days' });
    expect(toDurationValue(90)).toEqual({ value: 90, unit: 'seconds' });
    expect(toDurationValue(0)).toEqual({ value: 0, unit: 'seconds' });
  });
});
