import { describe, expect, it } from 'vitest';
import {
  checkAclWrite,
  checkDmzWrite,
  checkHostMappingWrite,
  checkLanForwardWrite,
  checkNatWrite,
  checkPortMappingWrite,
  checkShareBlockWrite,
  firewallAcl,
  firewallDmz,
  firewallHostMapping,
  firewallNat,
  firewallPortMapping,
  type FirewallRows,
} from '../src/firewall/index.js';
import type { NetworkInterface } from '../src/network/network-interface.js';
import { checkInterfaceDelete, checkVlanDelete } from '../src/network/network-rules.js';
import type { Vlan } from '../src/network/vlan-interface.js';
import { parsed } from './field-test-utils.js';
import { SAMPLE_INPUT } from './network-samples.js';

const rows: FirewallRows = {
  networkInterface: SAMPLE_INPUT.networkInterface as unknown as NetworkInterface[],
  vlan: SAMPLE_INPUT.vlan as unknown as Vlan[],
};

const portMapping = (row: object) => parsed(firewallPortMapping.schema, { id: 'pm', ...row });
const web = portMapping({ id: 'pm-web', name: 'web', proto: 'tcp', wan: 'wan1', extport: 8080, intip: '192.168.1.10', intport: 80 });

describe('port mapping rules', () => {
  it('the WAN named must be a WAN', () => {
    expect(checkPortMappingWrite(portMapping({ name: 'a', wan: 'wan2', extport: 80, intip: '192.168.1.2' }), rows)).toBeUndefined();
    expect(checkPortMappingWrite(portMapping({ name: 'a', wan: 'lan', extport: 80, intip: '192.168.1.2' }), rows)).toEqual({ wan: 'validation.multiWan.notWan' });
    expect(checkPortMappingWrite(portMapping({ name: 'a', wan: 'nosuch', extport: 80, intip: '192.168.1.2' }), rows)).toEqual({ wan: 'validation.multiWan.notWan' });
  });

  it('two enabled mappings may not claim the same WAN, protocol and port', () => {
    const stored = { ...rows, firewallPortMapping: [web] };
    const candidate = (row: object) => checkPortMappingWrite(portMapping({ name: 'b', intip: '192.168.1.3', ...row }), stored);
    expect(candidate({ proto: 'tcp', wan: 'wan1', extport: 8080 })).toEqual({ extport: 'validation.network.portInUse' });
    // Every WAN includes wan1; both protocols include TCP; a range covering 8080 meets it.
    expect(candidate({ proto: 'tcpudp', wan: '', extport: 8080 })).toEqual({ extport: 'validation.network.portInUse' });
    expect(candidate({ proto: 'tcp', wan: 'wan1', extport: 8000, extport_end: 8080 })).toEqual({ extport: 'validation.network.portInUse' });
    // Different WAN, protocol or port: no clash; a disabled row clashes with nothing.
    expect(candidate({ proto: 'tcp', wan: 'wan2', extport: 8080 })).toBeUndefined();
    expect(candidate({ proto: 'udp', wan: 'wan1', extport: 8080 })).toBeUndefined();
    expect(candidate({ proto: 'tcp', wan: 'wan1', extport: 8000, extport_end: 8079 })).toBeUndefined();
    expect(candidate({ proto: 'tcp', wan: 'wan1', extport: 8080, enabled: false })).toBeUndefined();
    expect(checkPortMappingWrite(portMapping({ name: 'b', wan: 'wan1', extport: 8080, intip: '192.168.1.3' }), { ...rows, firewallPortMapping: [{ ...web, enabled: false }] })).toBeUndefined();
    // An update of the stored row itself is no clash.
    expect(checkPortMappingWrite({ ...web, intip: '192.168.1.99' }, stored)).toBeUndefined();
  });
});

describe('host mapping rules', () => {
  const server = parsed(firewallHostMapping.schema, { id: 'hm-1', name: 'server', wan: 'wan1', public: '203.0.113.4', private: '192.168.1.20' });
  const stored = { ...rows, firewallHostMapping: [server] };
  const write = (row: object) => checkHostMappingWrite(parsed(firewallHostMapping.schema, { id: 'hm-new', name: 'x', wan: 'wan1', public: '203.0.113.5', private: '192.168.1.21', ...row }), stored);

  it('needs a WAN, a public address used once and a private address used once per WAN', () => {
    expect(write({})).toBeUndefined();
    expect(write({ wan: 'lan' })).toEqual({ wan: 'validation.multiWan.notWan' });
    expect(write({ public: '203.0.113.4' })).toEqual({ public: 'validation.ipOverlap' });
    expect(write({ private: '192.168.1.20' })).toEqual({ private: 'validation.ipOverlap' });
    expect(write({ wan: 'wan2', private: '192.168.1.20' })).toBeUndefined();
    expect(checkHostMappingWrite({ ...server, name: 'renamed' }, stored)).toBeUndefined();
  });
});

describe('DMZ rules', () => {
  const first = parsed(firewallDmz.schema, { id: 'dmz-1', wan: 'wan1', host: '192.168.1.30' });
  const stored = { ...rows, firewallDmz: [first] };

  it('one DMZ host per WAN, on a WAN', () => {
    expect(checkDmzWrite(parsed(firewallDmz.schema, { id: 'dmz-2', wan: 'wan2', host: '192.168.1.31' }), stored)).toBeUndefined();
    expect(checkDmzWrite(parsed(firewallDmz.schema, { id: 'dmz-2', wan: 'wan1', host: '192.168.1.31' }), stored)).toEqual({ wan: 'validation.firewall.dmzExists' });
    expect(checkDmzWrite(parsed(firewallDmz.schema, { id: 'dmz-2', wan: 'lan', host: '192.168.1.31' }), stored)).toEqual({ wan: 'validation.multiWan.notWan' });
    expect(checkDmzWrite({ ...first, host: '192.168.1.32' }, stored)).toBeUndefined();
  });
});

describe('interface references', () => {
  it('NAT and filter rules name known interfaces (VLAN sub-interfaces included) or none', () => {
    const nat = (outif: string) => checkNatWrite(parsed(firewallNat.schema, { id: 'n', name: 'n', outif }), rows);
    expect(nat('')).toBeUndefined();
    expect(nat('wan2')).toBeUndefined();
    expect(nat('guest')).toBeUndefined();
    expect(nat('wan9')).toEqual({ outif: 'validation.network.unknownInterface' });
    const acl = (iface: string) => checkAclWrite(parsed(firewallAcl.schema, { id: 'a', name: 'a', iface }), rows);
    expect(acl('')).toBeUndefined();
    expect(acl('lan')).toBeUndefined();
    expect(acl('lan9')).toEqual({ iface: 'validation.network.unknownInterface' });
  });

  it('LAN forward and share-net block lists name known interfaces, each list on its own field', () => {
    expect(checkLanForwardWrite({ enabled: true, lan: ['lan', 'guest'], rejlan: [] }, rows)).toBeUndefined();
    expect(checkLanForwardWrite({ enabled: true, lan: ['lan'], rejlan: ['nope'] }, rows)).toEqual({ rejlan: 'validation.network.unknownInterface' });
    expect(checkLanForwardWrite({ enabled: true, lan: ['nope'], rejlan: ['nope'] }, rows)).toEqual({
      lan: 'validation.network.unknownInterface',
      rejlan: 'validation.network.unknownInterface',
    });
    expect(checkShareBlockWrite({ enabled: true, ifname: ['lan', 'x1'], whitelist: [], blacklist: [] }, rows)).toEqual({ ifname: 'validation.network.unknownInterface' });
    expect(checkShareBlockWrite({ enabled: true, ifname: [], whitelist: [], blacklist: [] }, rows)).toBeUndefined();
  });
});

describe('interfaces the firewall names cannot be deleted', () => {
  const [wan1, wan2, lan] = rows.networkInterface!;
  const guest = rows.vlan![0]!;
  const cases: Array<[string, Record<string, unknown[]>, string]> = [
    ['port mapping WAN', { firewallPortMapping: [portMapping({ name: 'a', wan: 'wan1', extport: 80, intip: '192.168.1.2' })] }, 'wan1'],
    ['host mapping WAN', { firewallHostMapping: [parsed(firewallHostMapping.schema, { id: 'h', name: 'h', wan: 'wan2', public: '203.0.113.9', private: '192.168.1.9' })] }, 'wan2'],
    ['DMZ WAN', { firewallDmz: [parsed(firewallDmz.schema, { id: 'd', wan: 'wan1', host: '192.168.1.30' })] }, 'wan1'],
    ['NAT outgoing interface', { firewallNat: [parsed(firewallNat.schema, { id: 'n', name: 'n', outif: 'guest' })] }, 'guest'],
    ['filter interface', { firewallAcl: [parsed(firewallAcl.schema, { id: 'a', name: 'a', iface: 'lan' })] }, 'lan'],
    ['LAN forward list', { firewallLanForward: [{ enabled: true, lan: [], rejlan: ['guest'] }] }, 'guest'],
    ['share-net block list', { firewallShareBlock: [{ enabled: true, ifname: ['lan'], whitelist: [], blacklist: [] }] }, 'lan'],
  ];
  for (const [what, firewall, name] of cases) {
    it(`${what}: ${name} stays`, () => {
      const stored = { ...rows, ...firewall };
      const verdict = name === 'guest' ? checkVlanDelete([guest], stored) : checkInterfaceDelete([[wan1, wan2, lan].find((r) => r!.ifname === name)!], stored);
      expect(verdict).toBe('validation.network.inUse');
    });
  }

  it('rows meaning "every WAN" or "any interface" hold none; unused interfaces go', () => {
    const stored = {
      ...rows,
      firewallPortMapping: [portMapping({ name: 'a', wan: '', extport: 80, intip: '192.168.1.2' })],
      firewallAcl: [parsed(firewallAcl.schema, { id: 'a', name: 'a', iface: '' })],
      firewallDmz: [parsed(firewallDmz.schema, { id: 'd', wan: 'wan1', host: '192.168.1.30' })],
    };
    expect(checkInterfaceDelete([wan2!], stored)).toBeUndefined();
    expect(checkVlanDelete([guest], stored)).toBeUndefined();
  });
});
