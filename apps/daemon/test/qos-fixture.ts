import { writeSchema, ENTITIES, type AnyEntity } from '@portico/schema';
import type { ConfigSnapshot, SnapshotRow } from '../src/config/config-types.js';

/** Snapshots for the Smart QoS tests, each row parsed by its entity's write schema. */

function entity(name: string): AnyEntity {
  const found = ENTITIES.find((e) => e.name === name);
  if (!found) throw new Error(`no entity ${name}`);
  return found;
}

export function rowOf(name: string, id: string, input: Record<string, unknown>): SnapshotRow {
  const e = entity(name);
  const parsed = writeSchema(e, e.kind === 'collection' ? 'add' : 'update').safeParse(input);
  if (!parsed.success) throw new Error(`${name}: ${JSON.stringify(parsed.error.issues)}`);
  return { id: e.kind === 'collection' ? id : '', data: { ...(parsed.data as object), ...(e.kind === 'collection' ? { id } : {}) } };
}

export const TWO_WANS = {
  networkInterface: [
    rowOf('networkInterface', 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
    rowOf('networkInterface', 'wan2', { ifname: 'wan2', role: 'wan', hwport: ['wan2'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1' }),
    rowOf('networkInterface', 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1', 'lanp2'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }),
  ],
};

export function qosSnapshot(extra: Record<string, SnapshotRow[]> = {}): ConfigSnapshot {
  return { ...TWO_WANS, ...extra };
}

/** Every Smart QoS feature at once. */
export const FULL_QOS: Record<string, SnapshotRow[]> = {
  qosBase: [rowOf('qosBase', '', { qos: true, qosmode: 'smart', p2pblock: true, balance: true })],
  qosIpRule: [
    rowOf('qosIpRule', 'r1', { name: 'desk', usernet: '192.168.11.20', upspeed1: 2000, downspeed1: 8000 }),
    rowOf('qosIpRule', 'r2', {
      name: 'office hours',
      usernet: '192.168.11.32/30',
      upspeed1: 1000,
      downspeed1: 4000,
      upspeed2: 5000,
      downspeed2: 20000,
      weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'],
      timestart: '08:00',
      timestop: '18:00',
    }),
    rowOf('qosIpRule', 'r3', { name: 'range', usernet: '192.168.11.50-192.168.11.51', upspeed1: 0, downspeed1: 3000 }),
  ],
  qosMacRule: [
    rowOf('qosMacRule', 'm1', { name: 'tv', usernet: '02:00:00:00:00:aa', upspeed1: 500, downspeed1: 6000, upspeed2: 1000, downspeed2: 0, timestart: '22:00', timestop: '06:00' }),
  ],
  qosPortRule: [
    rowOf('qosPortRule', 'p1', { name: 'games', proto: 'udp', dport: ['27015', '3478-3480'], target: 'priority' }),
    rowOf('qosPortRule', 'p2', { name: 'ssh out wan2', proto: 'tcp', dport: ['2222'], target: 'express', userule: true, interface: 'wan2' }),
    rowOf('qosPortRule', 'p3', { name: 'backup', proto: 'all', dport: ['873'], target: 'bulk' }),
  ],
  qosDomainRule: [
    rowOf('qosDomainRule', 'd1', { name: 'video', dest_domain: ['video.example.com', 'cdn.example.net'], target: 'bulk', userule: true, interface: 'wan1' }),
    rowOf('qosDomainRule', 'd2', { name: 'meetings', dest_domain: ['meet.example.org'], target: 'priority' }),
  ],
  qosLoadBalance: [
    rowOf('qosLoadBalance', 'lb1', { interface: 'wan1', weight: 3, upbandwidth: 20000, downbandwidth: 100000, isp: 'telecom' }),
    rowOf('qosLoadBalance', 'lb2', { interface: 'wan2', weight: 1, upbandwidth: 10000, downbandwidth: 50000, isp: 'default' }),
  ],
  qosIsp: [rowOf('qosIsp', 'i1', { group: 'telecom', name: 'Telecom', networks: ['100.64.0.0/16', '192.0.2.0/24'] })],
};

/** `count` single-address rules, no window: the benchmark's and the scaling test's load. */
export function manyIpRules(count: number, rate = 2000): SnapshotRow[] {
  const rows: SnapshotRow[] = [];
  for (let i = 0; i < count; i++) {
    // 10.0.0.2 onwards: inside a 10.0.0.0/16 LAN, past its gateway address.
    const n = i + 2;
    const address = `10.0.${n >> 8}.${n & 255}`;
    rows.push({
      id: `u${i}`,
      data: {
        id: `u${i}`,
        enabled: true,
        name: `user${i}`,
        usernet: address,
        upspeed1: rate,
        downspeed1: rate,
        upspeed2: 0,
        downspeed2: 0,
        weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        timestart: '00:00',
        timestop: '24:00',
      },
    });
  }
  return rows;
}

/** Both WANs in mwan3 (OpenWrt), which the Smart QoS route include marks connections for. */
export const MULTI_WAN = {
  multiWan: [
    rowOf('multiWan', 'mw1', { interface: 'wan1', mode: 'balance', weight: 3, track_ips: ['198.51.100.1'] }),
    rowOf('multiWan', 'mw2', { interface: 'wan2', mode: 'balance', weight: 1, track_ips: ['203.0.113.1'] }),
  ],
};
