import { expect } from 'vitest';

/** What the Smart QoS lab tests share: rule windows on the gateway's clock, and the ±10 % rate check. */

function hhmm(minutes: number): string {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** A window around the current local time (its first limits apply), or one that excludes it (its second). */
export function windowAround(now: Date, inside: boolean): { timestart: string; timestop: string } {
  const minutes = now.getHours() * 60 + now.getMinutes();
  return inside ? { timestart: hhmm(minutes - 60), timestop: hhmm(minutes + 60) } : { timestart: hhmm(minutes + 120), timestop: hhmm(minutes + 180) };
}

/** A measured rate (kbit/s) lands within `tolerance` of the limit; logged, so a run shows its figures. */
export function expectRateWithin(measured: number, limit: number, what = 'limit', tolerance = 0.1): void {
  console.info(`measured ${Math.round(measured)} kbit/s for a ${limit} kbit/s ${what}`);
  expect(measured, `${Math.round(measured)} kbit/s against ${limit}`).toBeGreaterThanOrEqual(limit * (1 - tolerance));
  expect(measured, `${Math.round(measured)} kbit/s against ${limit}`).toBeLessThanOrEqual(limit * (1 + tolerance));
}
