import { describe, expect, it } from 'vitest';
import {
  accessIpAllows,
  cidrRange,
  findOverlappingEntry,
  intToIpv4,
  ipEntriesOverlap,
  ipv4ToInt,
  isCidr4,
  isCidr6,
  isIpv4,
  isIpv6,
  isMac,
  isNetmask,
  isUnicastMac,
  netmaskToPrefix,
  normalizeMac,
  parseIpv4Range,
  parsePortRange,
  prefixToNetmask,
  rangesOverlap,
} from '../src/index.js';

describe('IPv4 arithmetic', () => {
  it('converts addresses to unsigned integers and back', () => {
    expect(ipv4ToInt('0.0.0.0')).toBe(0);
    expect(ipv4ToInt('192.168.1.1')).toBe(0xc0a80101);
    expect(ipv4ToInt('255.255.255.255')).toBe(0xffffffff);
    expect(intToIpv4(0xc0a80101)).toBe('192.168.1.1');
    expect(intToIpv4(0xffffffff)).toBe('255.255.255.255');
    expect(() => ipv4ToInt('1.2.3')).toThrow(TypeError);
    expect(() => intToIpv4(2 ** 32)).toThrow(RangeError);
  });

  it('netmasks and prefixes', () => {
    expect(netmaskToPrefix('255.255.255.0')).toBe(24);
    expect(netmaskToPrefix('0.0.0.0')).toBe(0);
    expect(netmaskToPrefix('255.255.0.255')).toBeNull();
    expect(prefixToNetmask(20)).toBe('255.255.240.0');
    expect(isNetmask('255.255.255.252')).toBe(true);
    expect(isNetmask('255.255.255.253')).toBe(false);
  });

  it('cidrRange covers prefix and netmask forms and ignores host bits', () => {
    expect(cidrRange('192.168.1.77/24')).toEqual({ first: ipv4ToInt('192.168.1.0'), last: ipv4ToInt('192.168.1.255') });
    expect(cidrRange('10.0.0.0/255.0.0.0')).toEqual({ first: ipv4ToInt('10.0.0.0'), last: ipv4ToInt('10.255.255.255') });
    expect(cidrRange('0.0.0.0/0')).toEqual({ first: 0, last: 0xffffffff });
    expect(cidrRange('1.2.3.4/32')).toEqual({ first: ipv4ToInt('1.2.3.4'), last: ipv4ToInt('1.2.3.4') });
    expect(cidrRange('10.0.0.0/255.0.255.0')).toBeNull();
    expect(cidrRange('10.0.0.0/40')).toBeNull();
  });

  it('predicates', () => {
    expect(isIpv4('10.0.0.1')).toBe(true);
    expect(isIpv4('10.0.0.01')).toBe(false);
    expect(isIpv6('::')).toBe(true);
    expect(isIpv6('10.0.0.1')).toBe(false);
    expect(isCidr4('10.0.0.0/8')).toBe(true);
    expect(isCidr4('10.0.0.0/08')).toBe(false);
    expect(isCidr4('10.1.0.0/8', { network: true })).toBe(false);
    expect(isCidr6('fd00::/8')).toBe(true);
    expect(isCidr6('fd00::/8/8')).toBe(false);
  });

  it('parses IPv4 ranges in order only', () => {
    expect(parseIpv4Range('10.0.0.1-10.0.0.9')).toEqual({ first: ipv4ToInt('10.0.0.1'), last: ipv4ToInt('10.0.0.9') });
    expect(parseIpv4Range('10.0.0.9-10.0.0.1')).toBeNull();
    expect(parseIpv4Range('10.0.0.9')).toBeNull();
  });
});

describe('overlap', () => {
  it('rangesOverlap counts touching ends as overlap', () => {
    expect(rangesOverlap({ first: 1, last: 5 }, { first: 5, last: 9 })).toBe(true);
    expect(rangesOverlap({ first: 1, last: 4 }, { first: 5, last: 9 })).toBe(false);
    expect(rangesOverlap({ first: 3, last: 4 }, { first: 1, last: 9 })).toBe(true);
    expect(rangesOverlap({ first: 10n, last: 20n }, { first: 0n, last: 9n })).toBe(false);
  });

  it('ipEntriesOverlap compares any access-IP form of the same family', () => {
    expect(ipEntriesOverlap('192.168.1.0/24', '192.168.1.100-192.168.1.200')).toBe(true);
    expect(ipEntriesOverlap('192.168.1.0/255.255.255.128', '192.168.1.200')).toBe(false);
    expect(ipEntriesOverlap('192.168.1.0/25', '192.168.1.127')).toBe(true);
    expect(ipEntriesOverlap('::/0', '10.0.0.1')).toBe(false);
    expect(ipEntriesOverlap('garbage', '10.0.0.1')).toBe(false);
  });

  it('findOverlappingEntry names the existing entry in conflict', () => {
    const existing = ['10.0.0.0/24', '10.0.1.10-10.0.1.20', '2001:db8::/64'];
    expect(findOverlappingEntry('10.0.1.15', existing)).toBe('10.0.1.10-10.0.1.20');
    expect(findOverlappingEntry('2001:db8::5', existing)).toBe('2001:db8::/64');
    expect(findOverlappingEntry('10.0.2.0/24', existing)).toBeUndefined();
  });

  it('accessIpAllows matches an address against the allowed list', () => {
    expect(accessIpAllows([], '203.0.113.9')).toBe(true);
    expect(accessIpAllows(['192.168.1.0/24'], '192.168.1.50')).toBe(true);
    expect(accessIpAllows(['192.168.1.0/24'], '::ffff:192.168.1.50')).toBe(true);
    expect(accessIpAllows(['192.168.1.0/24'], '192.168.2.50')).toBe(false);
  });
});

describe('MAC and port helpers', () => {
  it('isMac accepts the colon form in any case', () => {
    expect(isMac('00:1A:2b:3C:4d:5E')).toBe(true);
    expect(isMac('00-1a-2b-3c-4d-5e')).toBe(false);
    expect(normalizeMac('00-1A-2B-3C-4D-5E')).toBe('00:1a:2b:3c:4d:5e');
    expect(normalizeMac('00:1a:2b:3c:4d')).toBeNull();
    expect(isUnicastMac('00:1a:2b:3c:4d:5e')).toBe(true);
    expect(isUnicastMac('33:33:00:00:00:01')).toBe(false);
  });

  it('parsePortRange', () => {
    expect(parsePortRange('443')).toEqual({ first: 443, last: 443 });
    expect(parsePortRange('1000-2000')).toEqual({ first: 1000, last: 2000 });
    expect(parsePortRange('2000-1000')).toBeNull();
    expect(parsePortRange('0-10')).toBeNull();
    expect(parsePortRange('70000')).toBeNull();
  });
});
