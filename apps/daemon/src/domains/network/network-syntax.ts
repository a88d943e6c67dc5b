import { isCidr4, isCidr6, isIpv4, isIpv6, isMac } from '@portico/schema';
import { assertInert } from '../../engine/engine-types.js';

/**
 * Tokens as they are written into the network files. The schemas validated every value
 * already; these checks are the last line before a file: a value that is not exactly the
 * expected token throws, so no rendered file ever carries a stray quote, separator or line.
 */

export class RenderValueError extends Error {}

function check(value: string, what: string, ok: boolean): string {
  assertInert(value, what);
  if (!ok) throw new RenderValueError(`${what} ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

/** A Linux network device name: at most 15 characters, no slash, no whitespace, not . or .. */
const DEVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/;

export function device(value: string): string {
  return check(value, 'device name', DEVICE_NAME.test(value) && value !== '.' && value !== '..');
}

export function ipv4(value: string): string {
  return check(value, 'IPv4 address', isIpv4(value));
}

export function ipv6(value: string): string {
  return check(value, 'IPv6 address', isIpv6(value));
}

/** `a.b.c.d/len` */
export function cidr4(value: string): string {
  return check(value, 'IPv4 network', isCidr4(value));
}

/** `x::y/len` */
export function cidr6(value: string): string {
  return check(value, 'IPv6 network', isCidr6(value));
}

/** Lower-case, colon-separated. */
export function mac(value: string): string {
  return check(value, 'MAC address', isMac(value) && value === value.toLowerCase());
}

/** One DNS label (a DHCP host name): letters, digits and inner hyphens, 1-63 characters. */
export function hostLabel(value: string): string {
  return check(value, 'host name', /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(value));
}

/** A tag or set name in dnsmasq and nftables: letters, digits and underscores. */
export function identifier(value: string): string {
  return check(value, 'identifier', /^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(value));
}

export function integer(value: number, min: number, max: number, what: string): string {
  if (!Number.isInteger(value) || value < min || value > max) throw new RenderValueError(`${what} ${value} is out of range`);
  return String(value);
}

/** `0x0000ff00`: marks and masks in one fixed width so files diff cleanly. */
export function hex32(value: number): string {
  integer(value, 0, 0xffffffff, 'mark');
  return `0x${value.toString(16).padStart(8, '0')}`;
}

/**
 * An nftables quoted string (interface names). nft has no escape for a double quote inside a
 * string, so only characters that need none are allowed.
 */
export function nftString(value: string): string {
  check(value, 'nftables string', /^[A-Za-z0-9._:-]{1,64}$/.test(value));
  return `"${value}"`;
}
