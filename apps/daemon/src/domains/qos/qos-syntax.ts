import { CLOCK_PATTERN, WEEKDAYS, type Weekday } from '@portico/schema';
import { integer, RenderValueError } from '../network/network-public.js';

/** Tokens of the QoS files, checked like the network's (network-syntax.ts). */

/** An HTB class id `<hex major>:<hex minor>` (major 1: the root tree), as both tc and nftables read it. */
export function classId(minor: number, major = 1): string {
  integer(minor, 1, 0xffff, 'class minor');
  integer(major, 1, 0xffff, 'class major');
  return `${major.toString(16)}:${minor.toString(16)}`;
}

/** A rate in kbit/s as tc writes it. */
export function kbit(value: number): string {
  return `${integer(value, 1, 100_000_000, 'rate')}kbit`;
}

const NFT_DAYS: Readonly<Record<Weekday, string>> = {
  mon: '"Monday"',
  tue: '"Tuesday"',
  wed: '"Wednesday"',
  thu: '"Thursday"',
  fri: '"Friday"',
  sat: '"Saturday"',
  sun: '"Sunday"',
};

export function nftDays(days: readonly Weekday[]): string {
  for (const day of days) if (!WEEKDAYS.includes(day)) throw new RenderValueError(`weekday ${JSON.stringify(day)} cannot be rendered`);
  return days.length === 1 ? NFT_DAYS[days[0]!] : `{ ${days.map((d) => NFT_DAYS[d]).join(', ')} }`;
}

/** `"HH:MM"`; the end of day `24:00` is the last second of the day for nftables. */
export function nftClock(value: string): string {
  if (!CLOCK_PATTERN.test(value)) throw new RenderValueError(`time ${JSON.stringify(value)} cannot be rendered`);
  return value === '24:00' ? '"23:59:59"' : `"${value}"`;
}
