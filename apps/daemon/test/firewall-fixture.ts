import { ENTITIES } from '@portico/schema';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import { CONFIG_ENTITIES, REPRESENTATIVE, storedRecord, entityNamed, type ConfigInput } from './network-fixture.js';

/** A snapshot of the representative network plus firewall rows, each validated by its schema. */
export function firewallSnapshot(firewall: Record<string, object | object[]>, network: ConfigInput = REPRESENTATIVE): ConfigSnapshot {
  const out: Record<string, Array<{ id: string; data: Record<string, unknown> }>> = {};
  const put = (name: string, value: object | object[]) => {
    const entity = entityNamed(name);
    if (entity.kind === 'singleton') out[name] = [{ id: '', data: storedRecord(entity, value) }];
    else out[name] = (value as object[]).map((row, i) => ({ id: `${name}-${i + 1}`, data: storedRecord(entity, row, `${name}-${i + 1}`) }));
  };
  for (const [key, name] of Object.entries(CONFIG_ENTITIES)) put(name, network[key as keyof ConfigInput] as object);
  for (const [name, value] of Object.entries(firewall)) {
    if (!ENTITIES.some((e) => e.name === name)) throw new Error(`unknown entity ${name}`);
    put(name, value);
  }
  return out;
}

/** Every firewall feature at once, on the representative network. */
export const FIREWALL_ROWS = {
  firewallPortMapping: [
    { name: 'web', proto: 'tcp', wan: 'wan1', extport: 8080, intip: '192.168.1.10', intport: 80 },
    { name: 'game', proto: 'tcpudp', extport: 27015, intip: '192.168.1.11' },
    { name: 'range', proto: 'udp', wan: 'wan1', extport: 5000, extport_end: 5100, intip: '192.168.1.12' },
    { name: 'office ssh', proto: 'tcp', wan: 'wan1', extport: 2222, intip: '192.168.1.13', intport: 22, src: '198.51.100.0/255.255.255.0' },
    { name: 'off', enabled: false, proto: 'tcp', extport: 9999, intip: '192.168.1.14' },
  ],
  firewallNat: [
    { name: 'branch', target: 'nonat', src: '192.168.1.0/24', dst: '10.20.0.0/16' },
    { name: 'pool', target: 'snat', src: '192.168.20.0/24', outif: 'wan1', toaddr: '203.0.113.3' },
    { name: 'guest', target: 'masquerade', src: '192.168.20.10-192.168.20.50' },
  ],
  firewallHostMapping: [{ name: 'server', wan: 'wan1', public: '203.0.113.4', private: '192.168.1.20' }],
  firewallAcl: [
    { name: 'no telnet', direction: 'forward', target: 'reject', proto: 'tcp', dport: '23' },
    { name: 'block host', direction: 'forward', target: 'drop', src: '192.168.1.66', dst: '198.51.100.0/24' },
    { name: 'no ping', direction: 'input', target: 'drop', proto: 'icmp', iface: 'wan1' },
    { name: 'dns', direction: 'forward', target: 'accept', proto: 'udp', sport: '1024-65535', dport: '53' },
  ],
  firewallLanForward: { enabled: true, lan: [], rejlan: [] },
  firewallShareBlock: { enabled: true, ifname: ['lan'], whitelist: ['192.168.1.10'], blacklist: ['192.168.1.200-192.168.1.210'] },
  firewallSessionLimit: { enabled: true, exempt: ['192.168.1.10'] },
  firewallConnLimit: [
    { name: 'servers', ip: '192.168.1.0/28', perip: 10000, tcp: 0, udp: 0 },
    { name: 'guests', ip: '192.168.20.0/24', perip: 200, tcp: 150, udp: 50 },
  ],
  firewallDmz: [{ wan: 'wan1', host: '192.168.1.30' }],
};
