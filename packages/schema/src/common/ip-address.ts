import ipaddr from 'ipaddr.js';
import { parseAccessIp } from './access-ip.js';

/**
 * Address predicates and arithmetic. They accept only the canonical text forms that config
 * files and UIs agree on: dotted-quad IPv4 without leading zeros or hex/octal parts, IPv6
 * without zone index.
 */

export interface NumericRange<T extends number | bigint = number> {
  first: T;
  last: T;
}

const PREFIX4 = /^(?:[0-9]|[12][0-9]|3[0-2])$/;
const PREFIX6 = /^(?:[0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])$/;

// The dotted quad ipaddr.js calls "four-part decimal", as one expression: it runs on every
// client of a hotspot burst, where parsing each address into an object costs more than the rest.
const IPV4_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const IPV4_TEXT = new RegExp(`^${IPV4_OCTET}(?:\\.${IPV4_OCTET}){3}$`);

export function isIpv4(text: string): boolean {
  return IPV4_TEXT.test(text);
}

export function isIpv6(text: string): boolean {
  // Zone indexes (fe80::1%eth0) name a local interface; they are not an address value.
  return text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text);
}

export function isIp(text: string): boolean {
  return isIpv4(text) || isIpv6(text);
}

/** Unsigned 32-bit value of a dotted-quad address. Throws on text that is not one. */
export function ipv4ToInt(text: string): number {
  if (!isIpv4(text)) throw new TypeError(`not an IPv4 address: ${JSON.stringify(text)}`);
  const [a, b, c, d] = ipaddr.IPv4.parse(text).octets as [number, number, number, number];
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

export function intToIpv4(value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new RangeError(`not a 32-bit address value: ${value}`);
  }
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** Prefix length of a contiguous IPv4 mask (255.255.255.0 -> 24), null otherwise. */
export function netmaskToPrefix(text: string): number | null {
  if (!isIpv4(text)) return null;
  return ipaddr.IPv4.parse(text).prefixLengthFromSubnetMask();
}

export function prefixToNetmask(prefix: number): string {
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) throw new RangeError(`bad prefix length: ${prefix}`);
  return ipaddr.IPv4.subnetMaskFromPrefixLength(prefix).toString();
}

/** A contiguous IPv4 mask: ones then zeros, 0.0.0.0 to 255.255.255.255. */
export function isNetmask(text: string): boolean {
  return netmaskToPrefix(text) !== null;
}

function splitCidr(text: string): [string, string] | null {
  const parts = text.split('/');
  return parts.length === 2 ? (parts as [string, string]) : null;
}

/**
 * IPv4 CIDR `a.b.c.d/len`. With `network`, host bits must be zero (10.0.0.0/8, not 10.0.0.1/8).
 */
export function isCidr4(text: string, options: { network?: boolean } = {}): boolean {
  const parts = splitCidr(text);
  if (!parts || !isIpv4(parts[0]) || !PREFIX4.test(parts[1])) return false;
  if (!options.network) return true;
  const range = cidrRange(text);
  return range !== null && range.first === ipv4ToInt(parts[0]);
}

export function isCidr6(text: string, options: { network?: boolean } = {}): boolean {
  const parts = splitCidr(text);
  if (!parts || !isIpv6(parts[0]) || !PREFIX6.test(parts[1])) return false;
  if (!options.network) return true;
  const span = parseAccessIp(text);
  const addr = parseAccessIp(parts[0]);
  return span !== null && addr !== null && span.first === addr.first;
}

/**
 * The addresses an IPv4 network covers, from `a.b.c.d/len` or `a.b.c.d/netmask`, as unsigned
 * integers; null when the text is neither.
 */
export function cidrRange(text: string): NumericRange<number> | null {
  const parts = splitCidr(text);
  if (!parts || !isIpv4(parts[0])) return null;
  const prefix = PREFIX4.test(parts[1]) ? Number(parts[1]) : netmaskToPrefix(parts[1]);
  if (prefix === null) return null;
  const size = 2 ** (32 - prefix);
  const first = Math.floor(ipv4ToInt(parts[0]) / size) * size;
  return { first, last: first + size - 1 };
}

/** An IPv4 range `a-b` with a <= b, as unsigned integers; null otherwise. */
export function parseIpv4Range(text: string): NumericRange<number> | null {
  const parts = text.split('-');
  if (parts.length !== 2 || !isIpv4(parts[0]!) || !isIpv4(parts[1]!)) return null;
  const first = ipv4ToInt(parts[0]!);
  const last = ipv4ToInt(parts[1]!);
  return first <= last ? { first, last } : null;
}

/** Whether two inclusive ranges share at least one value. */
export function rangesOverlap<T extends number | bigint>(a: NumericRange<T>, b: NumericRange<T>): boolean {
  return a.first <= b.last && b.first <= a.last;
}

/**
 * Whether two address entries (single IP, range, CIDR or IP/netmask, either family) share an
 * address. Entries of different families or unparsable entries never overlap.
 */
export function ipEntriesOverlap(a: string, b: string): boolean {
  const ra = parseAccessIp(a);
  const rb = parseAccessIp(b);
  return ra !== null && rb !== null && ra.v6 === rb.v6 && rangesOverlap(ra, rb);
}

/** The first existing entry that overlaps `candidate` ("IP range overlaps existing config"). */
export function findOverlappingEntry(candidate: string, existing: readonly string[]): string | undefined {
  return existing.find((entry) => ipEntriesOverlap(candidate, entry));
}

/** Message for an address or range that collides with configuration already stored. */
export const IP_RANGE_OVERLAP_MESSAGE = 'validation.ipRange.overlap';
/** Message for an address that collides with another entry of the same record. */
export const IP_OVERLAP_MESSAGE = 'validation.ipOverlap';
/** Message for a malformed secondary address or its mask. */
export const SECONDARY_IP_MESSAGE = 'validation.secondaryIp';
