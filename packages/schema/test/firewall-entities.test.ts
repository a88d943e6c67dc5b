import { describe, expect, it } from 'vitest';
import { fieldErrors, writeSchema, type AnyEntity } from '../src/entity/define-entity.js';
import { entityByPath } from '../src/entity/entity-registry.js';
import {
  CONN_LIMIT_MAX,
  CONN_TIMEOUT_MAX,
  firewallAcl,
  firewallConnLimit,
  firewallDmz,
  firewallHostMapping,
  firewallLanForward,
  firewallNat,
  firewallPortMapping,
  firewallSessionLimit,
  firewallShareBlock,
  parseIpv4Selector,
} from '../src/firewall/index.js';

/** Field errors of a write, `{}` when accepted. */
function errorsOf(entity: unknown, input: object, mode: 'add' | 'update' = 'add'): Record<string, string> {
  const result = writeSchema(entity as AnyEntity, mode).safeParse(input);
  return result.success ? {} : fieldErrors(result.error);
}

function parse(entity: unknown, input: object, mode: 'add' | 'update' = 'add'): Record<string, unknown> {
  const result = writeSchema(entity as AnyEntity, mode).safeParse(input);
  if (!result.success) throw new Error(JSON.stringify(fieldErrors(result.error)));
  return result.data as Record<string, unknown>;
}

const mapping = { name: 'web', proto: 'tcp', wan: 'wan1', extport: 8080, intip: '192.168.1.10', intport: 80 };
const nat = { name: 'pool', target: 'snat', src: '192.168.20.0/24', outif: 'wan1', toaddr: '203.0.113.3' };
const host = { name: 'server', wan: 'wan1', public: '203.0.113.4', private: '192.168.1.20' };
const filter = { name: 'no telnet', direction: 'forward', target: 'reject', proto: 'tcp', dport: '23' };
const limit = { name: 'guests', ip: '192.168.20.0/24', perip: 200, tcp: 150, udp: 50 };
const dmz = { wan: 'wan1', host: '192.168.1.30' };

describe('firewall declarations', () => {
  it('registers each Firewall entity under its spec §7 API path', () => {
    const expected: Record<string, string> = {
      'firewall/redirect': 'firewallPortMapping',
      'firewall/nat': 'firewallNat',
      hostmapping: 'firewallHostMapping',
      'firewall/filter': 'firewallAcl',
      'firewall/lanforward': 'firewallLanForward',
      unshare: 'firewallShareBlock',
      sessionlimit: 'firewallSessionLimit',
      'sessionlimit/rules': 'firewallConnLimit',
      dmz: 'firewallDmz',
    };
    for (const [path, name] of Object.entries(expected)) expect(entityByPath(path)?.name, path).toBe(name);
  });

  it('marks exactly the entities that can divert traffic to the gateway as cutting access', () => {
    const cutting = [firewallPortMapping, firewallHostMapping, firewallAcl, firewallDmz].map((e) => (e as AnyEntity).cutsAccess);
    expect(cutting).toEqual([true, true, true, true]);
    for (const e of [firewallNat, firewallConnLimit, firewallLanForward, firewallShareBlock, firewallSessionLimit]) {
      expect((e as AnyEntity).cutsAccess ?? false, (e as AnyEntity).name).toBe(false);
    }
  });

  it('fills the spec defaults', () => {
    expect(parse(firewallPortMapping, { name: 'a', extport: 80, intip: '192.168.1.2' })).toMatchObject({
      enabled: true,
      proto: 'tcp',
      wan: '',
      extport_end: 0,
      intport: 0,
      src: '',
      comment: '',
    });
    expect(parse(firewallNat, { name: 'a' })).toMatchObject({ target: 'masquerade', src: '', dst: '', outif: '', toaddr: '' });
    expect(parse(firewallAcl, { name: 'a' })).toMatchObject({ direction: 'forward', target: 'drop', proto: 'all', iface: '', sport: '', dport: '' });
    // Spec §9: 3000 connections per IP, TCP unlimited, UDP 800.
    expect(parse(firewallSessionLimit, {}, 'update')).toMatchObject({ enabled: true, perip: 3000, tcp: 0, udp: 800, exempt: [] });
    expect(parse(firewallConnLimit, { name: 'a', ip: '10.0.0.1' })).toMatchObject({ perip: 3000, tcp: 0, udp: 800 });
    expect(parse(firewallLanForward, {}, 'update')).toEqual({ enabled: false, lan: [], rejlan: [] });
    expect(parse(firewallShareBlock, {}, 'update')).toEqual({ enabled: false, ifname: [], whitelist: [], blacklist: [] });
    expect(parse(firewallDmz, dmz)).toMatchObject({ enabled: true, comment: '' });
  });
});

describe('address selectors', () => {
  it('takes one address, a range, a prefix or a netmask; IPv6 and junk are refused', () => {
    expect(parseIpv4Selector('192.168.1.1')).toMatchObject({ form: 'address' });
    expect(parseIpv4Selector('192.168.1.1-192.168.1.9')).toMatchObject({ form: 'range' });
    expect(parseIpv4Selector('192.168.1.0/24')).toMatchObject({ form: 'network', last: parseIpv4Selector('192.168.1.255')!.first });
    expect(parseIpv4Selector('192.168.1.0/255.255.255.0')).toMatchObject({ form: 'network' });
    for (const bad of ['fd00::1', '192.168.1.300', '10.0.0.0/8/8', '10.0.0.1-10.0.0.2-10.0.0.3', '10.1-10.2', '0x0a.0.0.1', '10.0.0.1/255.0.255.0', '192.168.1.0/33', '192.168.1.9-192.168.1.1', 'any', '1.2.3.4 ']) {
      expect(parseIpv4Selector(bad), bad).toBeNull();
    }
    expect(errorsOf(firewallNat, { name: 'a', src: 'fd00::/64' })).toEqual({ src: 'validation.accessIp' });
    expect(errorsOf(firewallNat, { name: 'a', dst: '1'.repeat(65) })).toEqual({ dst: 'validation.accessIp' });
  });
});

describe('port mapping fields', () => {
  it('external port 1-65535, end and internal port 0-65535', () => {
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 1 })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 65535, intport: 65535 })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 0 })).toEqual({ extport: 'validation.port.range' });
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 65536 })).toEqual({ extport: 'validation.port.range' });
    expect(errorsOf(firewallPortMapping, { ...mapping, intport: 65536 })).toEqual({ intport: 'validation.port.range' });
    expect(errorsOf(firewallPortMapping, { ...mapping, intport: -1 })).toEqual({ intport: 'validation.port.range' });
    expect(errorsOf(firewallPortMapping, { ...mapping, intport: 0, extport_end: 65536 })).toEqual({ extport_end: 'validation.port.range' });
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 80.5 })).toEqual({ extport: 'validation.integer' });
  });

  it('a range ends at or after its start and keeps its port numbers', () => {
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 5000, extport_end: 5000, intport: 0 })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 5000, extport_end: 4999, intport: 0 })).toEqual({ extport_end: 'validation.portRange.order' });
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 5000, extport_end: 5100, intport: 0 })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 5000, extport_end: 5100, intport: 5000 })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 5000, extport_end: 5100, intport: 5001 })).toEqual({
      intport: 'validation.firewall.internalPortRange',
    });
    // One port (no end) may move to any internal port.
    expect(errorsOf(firewallPortMapping, { ...mapping, extport: 5000, intport: 22 })).toEqual({});
  });

  it('protocol, addresses and names', () => {
    expect(errorsOf(firewallPortMapping, { ...mapping, proto: 'icmp' })).toEqual({ proto: 'validation.option' });
    expect(errorsOf(firewallPortMapping, { ...mapping, intip: '192.168.1.256' })).toEqual({ intip: 'validation.ipv4' });
    expect(errorsOf(firewallPortMapping, { ...mapping, intip: '' })).toEqual({ intip: 'validation.required' });
    expect(errorsOf(firewallPortMapping, { ...mapping, wan: 'WAN1' })).toEqual({ wan: 'validation.ifname' });
    expect(errorsOf(firewallPortMapping, { ...mapping, wan: 'a'.repeat(10) })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, wan: 'a'.repeat(11) })).toEqual({ wan: 'validation.ifname' });
    expect(errorsOf(firewallPortMapping, { ...mapping, name: '' })).toEqual({ name: 'validation.required' });
    expect(errorsOf(firewallPortMapping, { ...mapping, name: 'n'.repeat(32) })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, name: 'n'.repeat(33) })).toEqual({ name: 'validation.name.length' });
    expect(errorsOf(firewallPortMapping, { ...mapping, comment: 'c'.repeat(64) })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, comment: 'c'.repeat(65) })).toEqual({ comment: 'validation.text.length' });
    expect(errorsOf(firewallPortMapping, { ...mapping, src: '198.51.100.0/24' })).toEqual({});
    expect(errorsOf(firewallPortMapping, { ...mapping, extra: 1 })).toEqual({ _: 'validation.unknownField' });
  });
});

describe('NAT rule fields', () => {
  it('snat needs a target address; masquerade and nonat do not', () => {
    expect(errorsOf(firewallNat, nat)).toEqual({});
    expect(errorsOf(firewallNat, { ...nat, toaddr: '' })).toEqual({ toaddr: 'validation.required' });
    expect(errorsOf(firewallNat, { ...nat, target: 'masquerade', toaddr: '' })).toEqual({});
    expect(errorsOf(firewallNat, { ...nat, target: 'nonat', toaddr: '' })).toEqual({});
    expect(errorsOf(firewallNat, { ...nat, toaddr: '203.0.113' })).toEqual({ toaddr: 'validation.ipv4' });
    expect(errorsOf(firewallNat, { ...nat, target: 'dnat' })).toEqual({ target: 'validation.option' });
    expect(errorsOf(firewallNat, { ...nat, outif: 'eth 0' })).toEqual({ outif: 'validation.ifname' });
  });
});

describe('host mapping fields', () => {
  it('needs a WAN and two IPv4 addresses', () => {
    expect(errorsOf(firewallHostMapping, host)).toEqual({});
    expect(errorsOf(firewallHostMapping, { ...host, wan: '' })).toEqual({ wan: 'validation.required' });
    expect(errorsOf(firewallHostMapping, { ...host, public: 'fd00::1' })).toEqual({ public: 'validation.ipv4' });
    expect(errorsOf(firewallHostMapping, { ...host, private: '' })).toEqual({ private: 'validation.required' });
  });
});

describe('filter rule fields', () => {
  it('ports only with TCP or UDP, each a port or an ordered range', () => {
    for (const proto of ['tcp', 'udp', 'tcpudp']) expect(errorsOf(firewallAcl, { ...filter, proto, sport: '1-65535', dport: '65535' }), proto).toEqual({});
    for (const proto of ['all', 'icmp']) {
      expect(errorsOf(firewallAcl, { ...filter, proto, dport: '23' }), proto).toEqual({ dport: 'validation.firewall.portsNeedProtocol' });
      expect(errorsOf(firewallAcl, { ...filter, proto, dport: '', sport: '53' }), proto).toEqual({ sport: 'validation.firewall.portsNeedProtocol' });
      expect(errorsOf(firewallAcl, { ...filter, proto, dport: '' }), proto).toEqual({});
    }
    expect(errorsOf(firewallAcl, { ...filter, dport: '0' })).toEqual({ dport: 'validation.portRange.format' });
    expect(errorsOf(firewallAcl, { ...filter, dport: '65536' })).toEqual({ dport: 'validation.portRange.format' });
    expect(errorsOf(firewallAcl, { ...filter, dport: '2000-1000' })).toEqual({ dport: 'validation.portRange.order' });
    expect(errorsOf(firewallAcl, { ...filter, dport: '1000-1000' })).toEqual({});
  });

  it('direction, target and protocol are options; addresses are IPv4 selectors', () => {
    expect(errorsOf(firewallAcl, { ...filter, direction: 'output' })).toEqual({ direction: 'validation.option' });
    expect(errorsOf(firewallAcl, { ...filter, target: 'log' })).toEqual({ target: 'validation.option' });
    expect(errorsOf(firewallAcl, { ...filter, proto: 'gre', dport: '' })).toEqual({ proto: 'validation.option' });
    expect(errorsOf(firewallAcl, { ...filter, src: '10.0.0.0/255.0.0.0', dst: '10.0.0.1-10.0.0.9' })).toEqual({});
    expect(errorsOf(firewallAcl, { ...filter, src: '10.0.0.0/8/8' })).toEqual({ src: 'validation.accessIp' });
  });
});

describe('connection limit fields', () => {
  it('limits are 0 (no limit) up to the maximum', () => {
    for (const field of ['perip', 'tcp', 'udp'] as const) {
      expect(errorsOf(firewallConnLimit, { ...limit, [field]: 0 }), field).toEqual({});
      expect(errorsOf(firewallConnLimit, { ...limit, [field]: CONN_LIMIT_MAX }), field).toEqual({});
      expect(errorsOf(firewallConnLimit, { ...limit, [field]: CONN_LIMIT_MAX + 1 }), field).toEqual({ [field]: 'validation.limit.range' });
      expect(errorsOf(firewallConnLimit, { ...limit, [field]: -1 }), field).toEqual({ [field]: 'validation.limit.range' });
      expect(errorsOf(firewallSessionLimit, { [field]: CONN_LIMIT_MAX + 1 }, 'update'), field).toEqual({ [field]: 'validation.limit.range' });
    }
  });

  it('a range row needs its addresses', () => {
    expect(errorsOf(firewallConnLimit, { ...limit, ip: '' })).toEqual({ ip: 'validation.accessIp' });
    expect(errorsOf(firewallConnLimit, { ...limit, ip: '192.168.20.5' })).toEqual({});
  });

  it('timeouts are 1 second up to five days', () => {
    for (const field of ['tcp_established', 'udp_unreplied', 'tcp_generic']) {
      expect(errorsOf(firewallSessionLimit, { [field]: 1 }, 'update'), field).toEqual({});
      expect(errorsOf(firewallSessionLimit, { [field]: CONN_TIMEOUT_MAX }, 'update'), field).toEqual({});
      expect(errorsOf(firewallSessionLimit, { [field]: 0 }, 'update'), field).toEqual({ [field]: 'validation.tooBig' });
      expect(errorsOf(firewallSessionLimit, { [field]: CONN_TIMEOUT_MAX + 1 }, 'update'), field).toEqual({ [field]: 'validation.tooBig' });
    }
  });

  it('exempt addresses: selectors, none empty, at most 256', () => {
    expect(errorsOf(firewallSessionLimit, { exempt: ['192.168.1.10', '192.168.1.0/28'] }, 'update')).toEqual({});
    expect(errorsOf(firewallSessionLimit, { exempt: [''] }, 'update')).toEqual({ exempt: 'validation.accessIp' });
    expect(errorsOf(firewallSessionLimit, { exempt: Array(256).fill('10.0.0.1') }, 'update')).toEqual({});
    expect(errorsOf(firewallSessionLimit, { exempt: Array(257).fill('10.0.0.1') }, 'update')).toEqual({ exempt: 'validation.tooBig' });
  });
});

describe('LAN forward, share-net block and DMZ fields', () => {
  it('interface lists hold interface names, at most 64', () => {
    expect(errorsOf(firewallLanForward, { enabled: true, lan: ['lan', 'guest'], rejlan: ['guest'] }, 'update')).toEqual({});
    expect(errorsOf(firewallLanForward, { lan: ['Lan'] }, 'update')).toEqual({ lan: 'validation.ifname' });
    expect(errorsOf(firewallLanForward, { rejlan: Array(64).fill('lan') }, 'update')).toEqual({});
    expect(errorsOf(firewallLanForward, { rejlan: Array(65).fill('lan') }, 'update')).toEqual({ rejlan: 'validation.tooBig' });
    expect(errorsOf(firewallShareBlock, { ifname: ['lan;x'] }, 'update')).toEqual({ ifname: 'validation.ifname' });
  });

  it('share-net lists are address selectors', () => {
    expect(errorsOf(firewallShareBlock, { whitelist: ['192.168.1.10'], blacklist: ['192.168.1.200-192.168.1.210'] }, 'update')).toEqual({});
    expect(errorsOf(firewallShareBlock, { blacklist: ['example.com'] }, 'update')).toEqual({ blacklist: 'validation.accessIp' });
  });

  it('a DMZ names a WAN and one host address', () => {
    expect(errorsOf(firewallDmz, dmz)).toEqual({});
    expect(errorsOf(firewallDmz, { ...dmz, wan: '' })).toEqual({ wan: 'validation.required' });
    expect(errorsOf(firewallDmz, { ...dmz, host: '192.168.1.0/24' })).toEqual({ host: 'validation.ipv4' });
  });
});
