import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  accessIpField,
  bytesField,
  cidr6Field,
  cidrField,
  domainField,
  durationField,
  hostnameField,
  iptvLanTagField,
  ipField,
  ipRangeField,
  ipv4Field,
  ipv6Field,
  limitField,
  macField,
  mruField,
  mtuField,
  nameField,
  netmaskField,
  passwordField,
  plainTextField,
  portField,
  portRangeField,
  sharedKeyField,
  speedField,
  tunnelPortField,
  userNameField,
  vlanTagField,
  wanTagField,
} from '../src/index.js';
import { firstError, parsed } from './field-test-utils.js';

describe('numeric ranges at their boundaries', () => {
  const cases: Array<[string, z.ZodType, number[], number[], string]> = [
    ['MTU', mtuField(), [46, 1500], [45, 1501], 'validation.mtu.range'],
    ['MRU', mruField(), [46, 1500], [45, 1501], 'validation.mru.range'],
    ['VLAN tag', vlanTagField(), [1, 4094], [0, 4095], 'validation.vlan.range'],
    ['WAN tag', wanTagField(), [0, 4094], [-1, 4095], 'validation.wanTag.range'],
    ['IPTV LAN tag', iptvLanTagField(), [1, 4094], [0, 4095], 'validation.lanTag.range'],
    ['tunnel port', tunnelPortField(), [1024, 65500], [1023, 65501], 'validation.tunnelPort.range'],
    ['port', portField(), [1, 65535], [0, 65536], 'validation.port.range'],
  ];
  for (const [name, schema, good, bad, message] of cases) {
    it(`${name}: accepts ${good.join(', ')}, refuses ${bad.join(', ')}`, () => {
      for (const v of good) expect(firstError(schema, v)).toBeNull();
      for (const v of bad) expect(firstError(schema, v)).toBe(message);
    });
  }

  it('refuses fractions, strings and non-finite numbers as integers', () => {
    expect(firstError(vlanTagField(), 10.5)).toBe('validation.integer');
    expect(firstError(vlanTagField(), '10')).toBe('validation.integer');
    expect(firstError(portField(), Number.NaN)).toBe('validation.integer');
    expect(firstError(portField(), Number.POSITIVE_INFINITY)).toBe('validation.integer');
  });

  it('applies the spec defaults when the value is absent', () => {
    expect(parsed(mtuField(), undefined)).toBe(1450);
    expect(parsed(mruField(), undefined)).toBe(1450);
    expect(parsed(tunnelPortField(), undefined)).toBe(4443);
    expect(parsed(iptvLanTagField(), undefined)).toBe(100);
    expect(firstError(vlanTagField(), undefined)).toBe('validation.required');
  });

  it('limits: 0 means no limit, negatives and values over max are refused', () => {
    expect(firstError(limitField(), 0)).toBeNull();
    expect(firstError(limitField(10), 10)).toBeNull();
    expect(firstError(limitField(10), 11)).toBe('validation.limit.range');
    expect(firstError(limitField(), -1)).toBe('validation.limit.range');
    expect(firstError(bytesField(), -1)).toBe('validation.bytes.range');
    expect(firstError(bytesField(), 1024 ** 4)).toBeNull();
    expect(firstError(speedField(1_000_000), 0)).toBeNull();
    expect(firstError(speedField(1_000_000), 1_000_001)).toBe('validation.speed.range');
  });
});

describe('passwordField and userNameField', () => {
  it('accepts 8 and 32 characters, refuses 7 and 33', () => {
    expect(firstError(passwordField(), 'a'.repeat(7))).toBe('validation.password.length');
    expect(firstError(passwordField(), 'a1'.repeat(4))).toBeNull();
    expect(firstError(passwordField(), 'Ab3'.repeat(10) + 'xy')).toBeNull();
    expect(firstError(passwordField(), 'a'.repeat(33))).toBe('validation.password.length');
  });

  it('refuses non-alphanumerics, spaces and control characters', () => {
    for (const bad of ['abcd_1234', 'abcd 1234', 'pässwort1', 'abcd\n1234', 'abcd!1234']) {
      expect(firstError(passwordField(), bad)).toBe('validation.password.chars');
    }
    expect(firstError(passwordField(), '')).toBe('validation.required');
  });

  it('user names: letters and digits, at most 32', () => {
    expect(firstError(userNameField(), 'admin2')).toBeNull();
    expect(firstError(userNameField(), 'a'.repeat(32))).toBeNull();
    expect(firstError(userNameField(), 'a'.repeat(33))).toBe('validation.name.length');
    expect(firstError(userNameField(), 'ad-min')).toBe('validation.username.chars');
  });
});

describe('nameField and other text', () => {
  it('accepts 32 characters (CJK counted once each) and refuses 33', () => {
    expect(firstError(nameField(), 'n'.repeat(32))).toBeNull();
    expect(firstError(nameField(), '名'.repeat(32))).toBeNull();
    expect(firstError(nameField(), 'n'.repeat(33))).toBe('validation.name.length');
    expect(firstError(nameField(), '名'.repeat(33))).toBe('validation.name.length');
  });

  it('trims surrounding spaces and requires something left', () => {
    expect(parsed(nameField(), '  office  ')).toBe('office');
    expect(firstError(nameField(), '   ')).toBe('validation.required');
  });

  const unsafe = ['a\nb', 'a\rb', 'a\tb', 'a\u0000b', 'a\u007fb', 'a\u0085b', 'a\u2028b', 'evil\u202Etxt.exe', 'a\u2066b', 'a\ud800b'];
  it('every text field refuses control characters, separators, bidi overrides and lone surrogates', () => {
    const fields: z.ZodType[] = [nameField(), plainTextField(100), sharedKeyField(), hostnameField(), domainField(), ipv4Field()];
    for (const field of fields) {
      for (const value of unsafe) expect(firstError(field, value), JSON.stringify(value)).toBe('validation.text.control');
    }
  });

  it('plainTextField: one line up to max characters, empty allowed', () => {
    expect(firstError(plainTextField(5), '')).toBeNull();
    expect(firstError(plainTextField(5), '欢迎光临！')).toBeNull();
    expect(firstError(plainTextField(5), 'hello!')).toBe('validation.text.length');
    expect(firstError(plainTextField(50), 'line one\nline two')).toBe('validation.text.control');
    expect(firstError(plainTextField(50), 'emoji 🙂 ok')).toBeNull();
  });

  it('sharedKeyField: 1-255 printable ASCII', () => {
    expect(firstError(sharedKeyField(), '')).toBe('validation.required');
    expect(firstError(sharedKeyField(), 'k')).toBeNull();
    expect(firstError(sharedKeyField(), '~'.repeat(255))).toBeNull();
    expect(firstError(sharedKeyField(), 'x'.repeat(256))).toBe('validation.sharedKey.length');
    expect(firstError(sharedKeyField(), 'key with spaces & $ymbols!')).toBeNull();
    expect(firstError(sharedKeyField(), 'clé')).toBe('validation.sharedKey.chars');
  });
});

describe('address fields', () => {
  it('ipv4Field accepts dotted quads only', () => {
    for (const ok of ['0.0.0.0', '192.168.1.1', '255.255.255.255']) expect(firstError(ipv4Field(), ok)).toBeNull();
    for (const bad of ['256.1.1.1', '1.2.3', '01.2.3.4', '0x7f.0.0.1', '1.2.3.4 ', '::1', 'host']) {
      expect(firstError(ipv4Field(), bad), bad).toBe('validation.ipv4');
    }
    expect(firstError(ipv4Field(), '')).toBe('validation.required');
    expect(firstError(ipv4Field({ allowEmpty: true }), '')).toBeNull();
  });

  it('ipv6Field and ipField', () => {
    for (const ok of ['::1', '2001:db8::1', 'fe80::1:2', '::ffff:192.0.2.1']) expect(firstError(ipv6Field(), ok)).toBeNull();
    for (const bad of ['2001:db8::g', '1.2.3.4', 'fe80::1%eth0', '2001:db8:::1']) {
      expect(firstError(ipv6Field(), bad), bad).toBe('validation.ipv6');
    }
    expect(firstError(ipField(), '10.0.0.1')).toBeNull();
    expect(firstError(ipField(), '2001:db8::1')).toBeNull();
    expect(firstError(ipField(), '10.0.0')).toBe('validation.ip');
  });

  it('cidrField and cidr6Field', () => {
    expect(firstError(cidrField(), '10.0.0.0/8')).toBeNull();
    expect(firstError(cidrField(), '0.0.0.0/0')).toBeNull();
    expect(firstError(cidrField(), '10.1.2.3/32')).toBeNull();
    expect(firstError(cidrField(), '10.0.0.0/33')).toBe('validation.cidr');
    expect(firstError(cidrField(), '10.0.0.0/255.0.0.0')).toBe('validation.cidr');
    expect(firstError(cidrField(), '10.0.0.0')).toBe('validation.cidr');
    expect(firstError(cidrField({ network: true }), '10.0.0.1/8')).toBe('validation.cidrHostBits');
    expect(firstError(cidrField({ network: true }), '10.0.0.0/8')).toBeNull();
    expect(firstError(cidr6Field(), '2001:db8::/32')).toBeNull();
    expect(firstError(cidr6Field(), '2001:db8::/129')).toBe('validation.cidr6');
    expect(firstError(cidr6Field({ network: true }), '2001:db8::1/64')).toBe('validation.cidrHostBits');
  });

  it('netmaskField accepts contiguous masks only', () => {
    for (const ok of ['255.255.255.0', '255.255.254.0', '255.255.255.255', '128.0.0.0']) {
      expect(firstError(netmaskField(), ok), ok).toBeNull();
    }
    for (const bad of ['255.0.255.0', '255.255.255.1', '0.255.255.255', '255.255.256.0']) {
      expect(firstError(netmaskField(), bad), bad).toBe('validation.netmask');
    }
    expect(firstError(netmaskField(), '0.0.0.0')).toBe('validation.netmask');
    expect(firstError(netmaskField({ allowZero: true }), '0.0.0.0')).toBeNull();
  });

  it('ipRangeField: a-b with a <= b', () => {
    expect(firstError(ipRangeField(), '192.168.1.100-192.168.1.200')).toBeNull();
    expect(firstError(ipRangeField(), '192.168.1.100-192.168.1.100')).toBeNull();
    expect(firstError(ipRangeField(), '192.168.1.200-192.168.1.100')).toBe('validation.ipRange.order');
    expect(firstError(ipRangeField(), '192.168.1.100')).toBe('validation.ipRange.format');
    expect(firstError(ipRangeField(), '192.168.1.1-192.168.1.300')).toBe('validation.ipRange.format');
    expect(firstError(ipRangeField(), '1.1.1.1-2.2.2.2-3.3.3.3')).toBe('validation.ipRange.format');
  });

  it('accessIpField: single, range, CIDR, IP/netmask or empty', () => {
    for (const ok of ['', '192.168.1.10', '192.168.1.10-192.168.1.20', '192.168.1.0/24', '192.168.1.0/255.255.255.0', '2001:db8::/48']) {
      expect(firstError(accessIpField(), ok), ok).toBeNull();
    }
    for (const bad of ['192.168.1.20-192.168.1.10', '192.168.1.0/255.0.255.0', '192.168.1.0/33', '192.168.1', ' 192.168.1.1', '10.0.0.1-2001:db8::1']) {
      expect(firstError(accessIpField(), bad), bad).toBe('validation.accessIp');
    }
  });

  it('macField: any case, normalised lower-case with colons', () => {
    expect(parsed(macField(), 'AA:bb:CC:dd:EE:0f')).toBe('aa:bb:cc:dd:ee:0f');
    expect(parsed(macField(), '00-1A-2B-3C-4D-5E')).toBe('00:1a:2b:3c:4d:5e');
    expect(parsed(macField(), 'ff:ff:ff:ff:ff:ff')).toBe('ff:ff:ff:ff:ff:ff');
    for (const bad of ['00:11:22:33:44', '00:11:22:33:44:55:66', '00:11:22:33:44:gg', '001122334455', '00:11-22:33:44:55', '00:00:00:00:00:00']) {
      expect(firstError(macField(), bad), bad).toBe('validation.mac');
    }
  });

  it('macField unicast refuses multicast and broadcast', () => {
    expect(firstError(macField({ unicast: true }), '02:11:22:33:44:55')).toBeNull();
    expect(firstError(macField({ unicast: true }), '01:00:5e:00:00:01')).toBe('validation.macUnicast');
    expect(firstError(macField({ unicast: true }), 'FF:FF:FF:FF:FF:FF')).toBe('validation.macUnicast');
  });

  it('portRangeField: single port or a-b with a <= b', () => {
    for (const ok of ['80', '1', '65535', '1000-2000', '22-22']) expect(firstError(portRangeField(), ok), ok).toBeNull();
    expect(firstError(portRangeField(), '2000-1000')).toBe('validation.portRange.order');
    for (const bad of ['0', '65536', '080', '1000-', '-80', '1-2-3', '80 ', 'http']) {
      expect(firstError(portRangeField(), bad), bad).toBe('validation.portRange.format');
    }
  });

  it('hostnameField follows RFC 1123 labels', () => {
    for (const ok of ['router', 'gw-1', '3com', 'a.b.c', 'x'.repeat(63)]) expect(firstError(hostnameField(), ok), ok).toBeNull();
    for (const bad of ['-router', 'router-', 'rou_ter', 'a..b', 'x'.repeat(64), 'a.' + 'b'.repeat(252)]) {
      expect(firstError(hostnameField(), bad), bad).toBe('validation.hostname');
    }
  });

  it('domainField needs a fully qualified name of at most 253 characters', () => {
    const label = 'a'.repeat(63);
    const longest = [label, label, label, 'b'.repeat(57), 'com'].join('.');
    expect(longest.length).toBe(253);
    expect(firstError(domainField(), longest)).toBeNull();
    expect(firstError(domainField(), `a${longest}`)).toBe('validation.domain');
    for (const ok of ['example.com', 'xn--fiqs8s.cn', 'a-b.example.co.uk']) expect(firstError(domainField(), ok), ok).toBeNull();
    for (const bad of ['localhost', '1.2.3.4', 'example..com', '*.example.com', 'exa mple.com']) {
      expect(firstError(domainField(), bad), bad).toBe('validation.domain');
    }
    expect(firstError(domainField({ wildcard: true }), '*.example.com')).toBeNull();
  });
});

describe('durationField', () => {
  it('takes a whole value and a time unit', () => {
    expect(parsed(durationField(), { value: 0, unit: 'days' })).toEqual({ value: 0, unit: 'days' });
    expect(firstError(durationField(), { value: -1, unit: 'days' })).toBe('validation.duration.value');
    expect(firstError(durationField(), { value: 1, unit: 'weeks' })).toBe('validation.duration.unit');
    expect(firstError(durationField({ min: 1 }), { value: 0, unit: 'hours' })).toBe('validation.duration.value');
  });

  it('enforces an upper bound in seconds across units (authentication validity 20 days)', () => {
    const field = durationField({ maxSeconds: 20 * 86400 });
    expect(firstError(field, { value: 20, unit: 'days' })).toBeNull();
    expect(firstError(field, { value: 480, unit: 'hours' })).toBeNull();
    expect(firstError(field, { value: 21, unit: 'days' })).toBe('validation.duration.max');
    expect(firstError(field, { value: 28801, unit: 'minutes' })).toBe('validation.duration.max');
  });
});

describe('JSON schema generation', () => {
  it('every field factory can be described as JSON schema (the OpenAPI document needs it)', () => {
    const schema = z.object({
      name: nameField(),
      ip: ipv4Field(),
      mac: macField(),
      mtu: mtuField(),
      range: portRangeField(),
      duration: durationField(),
      text: plainTextField(64),
    });
    const json = z.toJSONSchema(schema, { io: 'input' }) as { properties: Record<string, { default?: unknown }> };
    expect(Object.keys(json.properties)).toEqual(['name', 'ip', 'mac', 'mtu', 'range', 'duration', 'text']);
    expect(json.properties.mtu?.default).toBe(1450);
  });
});
