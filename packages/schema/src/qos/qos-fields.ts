import { z } from 'zod';
import { checkedString, type TextFieldOptions } from '../common/field-base.js';
import { cidrRange, intToIpv4, isIpv4, parseIpv4Range } from '../common/ip-address.js';
import { parsePortRange } from '../common/port-fields.js';
import { isDomain } from '../common/text-fields.js';
import { ISP_GROUPS, type IspGroup } from '../constants/qos-defaults.js';

/**
 * Field types of Smart QoS (spec §3 "Flow", §9): priority classes, ISP groups, the users a
 * bandwidth rule covers, weekly time windows, port lists and domain lists.
 */

/** Spec §9: the four priority classes, highest first. */
export const QOS_CLASSES = ['priority', 'express', 'normal', 'bulk'] as const;
export type QosClass = (typeof QOS_CLASSES)[number];

// Spec §9 ISP groups (constants/qos-defaults.ts): `default` is the built-in set of a group-less
// WAN; `none` matches nothing.
export { ISP_GROUPS, type IspGroup };
/** Groups that carry an operator definition file (a list of networks). */
export const ISP_FILE_GROUPS = ['telecom', 'mobile', 'unicom', 'education', 'custom1', 'custom2', 'custom3'] as const;
export type IspFileGroup = (typeof ISP_FILE_GROUPS)[number];
/** The operator groups the device ships a definition file for; an uploaded file replaces it. */
export const ISP_BUILTIN_GROUPS = ['telecom', 'mobile', 'unicom', 'education'] as const satisfies readonly IspFileGroup[];
export type IspBuiltinGroup = (typeof ISP_BUILTIN_GROUPS)[number];

/** Spec §9: flow chart ranges, with their length in seconds. */
export const FLOW_CHART_RANGES = {
  '5m': 300,
  '30m': 1800,
  '1h': 3600,
  '24h': 86_400,
  '1w': 604_800,
  '1mo': 2_592_000,
} as const;
export type FlowChartRange = keyof typeof FLOW_CHART_RANGES;

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A rule's addresses are limited one by one; a rule covers at most this many. */
export const USERNET_MAX_ADDRESSES = 256;

/** The addresses of a `usernet` value (an address, a range a-b or a CIDR), as unsigned integers. */
export function usernetRange(text: string): { first: number; last: number } | null {
  if (isIpv4(text)) {
    const value = cidrRange(`${text}/32`)!.first;
    return { first: value, last: value };
  }
  if (text.includes('/')) {
    if (!/^[0-9.]+\/(?:[0-9]|[12][0-9]|3[0-2])$/.test(text)) return null;
    const range = cidrRange(text);
    if (!range) return null;
    // A /31 or wider network leaves out its network and broadcast addresses.
    return range.last - range.first >= 2 ? { first: range.first + 1, last: range.last - 1 } : range;
  }
  return parseIpv4Range(text);
}

/** Every address of a `usernet` value, in order; empty when the value is not one. */
export function usernetAddresses(text: string): string[] {
  const range = usernetRange(text);
  if (!range || range.last - range.first + 1 > USERNET_MAX_ADDRESSES) return [];
  const out: string[] = [];
  for (let value = range.first; value <= range.last; value++) out.push(intToIpv4(value));
  return out;
}

export function usernetField(options: TextFieldOptions = {}) {
  return checkedString((v) => usernetRange(v) !== null, 'validation.accessIp', options).refine(
    (v) => {
      const range = usernetRange(v);
      return range === null || range.last - range.first + 1 <= USERNET_MAX_ADDRESSES;
    },
    { error: 'validation.tooBig' },
  );
}

/** `HH:MM`, 00:00-23:59; `24:00` is accepted as the end of a day. */
export const CLOCK_PATTERN = /^(?:[01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$/;

export function clockField() {
  return checkedString((v) => CLOCK_PATTERN.test(v), 'validation.invalid');
}

/** Minutes since midnight of a `HH:MM` value. */
export function clockMinutes(text: string): number {
  const [hours, minutes] = text.split(':').map(Number) as [number, number];
  return hours * 60 + minutes;
}

export function weekdaysField() {
  return z.array(z.enum(WEEKDAYS, { error: 'validation.option' })).max(WEEKDAYS.length, { error: 'validation.tooBig' });
}

/** Destination ports: `80`, `1000-2000`, up to 16 entries; none means every port of the protocol. */
export const PORT_LIST_MAX = 16;

export function portListField() {
  return z
    .array(checkedString((v) => parsePortRange(v) !== null, 'validation.portRange.format'))
    .max(PORT_LIST_MAX, { error: 'validation.tooBig' })
    .default([]);
}

/** Domains a rule follows (`example.com` covers its subdomains too), up to 32; a rule without any matches nothing. */
export const DOMAIN_LIST_MAX = 32;

export function domainListField() {
  return z
    .array(checkedString((v) => isDomain(v), 'validation.domain'))
    .max(DOMAIN_LIST_MAX, { error: 'validation.tooBig' })
    .default([]);
}

/** A rate in kbit/s (0 = unlimited), up to 10 Gbit/s. */
export const SPEED_MAX_KBIT = 10_000_000;
