import { describe, expect, it } from 'vitest';
import { DEFAULT_CAPABILITY_STRING, formatCapabilities, parseCapabilities, parseModuleList } from '../src/index.js';

describe('parseCapabilities', () => {
  it('uses the product default without a string', () => {
    const caps = parseCapabilities();
    expect([...caps].sort()).toEqual(['cmcc', 'gateway', 'nas', 'phtunnel', 'qrcode', 'vlan', 'wifidog']);
    expect(parseCapabilities(undefined)).toEqual(parseCapabilities(DEFAULT_CAPABILITY_STRING));
    expect(parseCapabilities(null)).toEqual(caps);
  });

  it('reads an empty string as no optional features', () => {
    expect(parseCapabilities('').size).toBe(0);
    expect(parseCapabilities('  , ').size).toBe(0);
  });

  it('tolerates commas, repeated whitespace and case, and ignores unknown tokens', () => {
    const caps = parseCapabilities(' vlan,,IPTV\twifi_cpe\n  teleport, nas ');
    expect([...caps].sort()).toEqual(['iptv', 'nas', 'vlan', 'wifi_cpe']);
  });

  it('formats a set back in declaration order', () => {
    expect(formatCapabilities(parseCapabilities('wifi_cpe vlan gateway'))).toBe('gateway vlan wifi_cpe');
  });
});

describe('parseModuleList', () => {
  it('splits on spaces and commas and drops what cannot be a module', () => {
    expect([...parseModuleList('iptv, ddns  lan2lan,../etc,Vendor999')]).toEqual(['iptv', 'ddns', 'lan2lan', 'vendor999']);
    expect(parseModuleList('').size).toBe(0);
    expect(parseModuleList(undefined).size).toBe(0);
  });
});
