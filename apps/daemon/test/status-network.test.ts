import { describe, expect, test } from 'vitest';
import {
  arpInfoQuerySchema,
  dhcpLeaseQuerySchema,
  systemRouteQuerySchema,
  type Netif,
} from '@portico/schema';
import type { LiveStatusSource, NetworkFacts, ProbeRecord, RouteRecord } from '../src/drivers/live-source.js';
import { NetworkStatus } from '../src/domains/status/status-network.js';
import { buildConfig, REPRESENTATIVE } from './network-fixture.js';
import { TestClock } from './daemon-harness.js';

/*
 * The status service over fixed facts: which addresses are active, abandoned or free, how
 * neighbours compare with the ARP bindings, which table belongs to which WAN, and what a line
 * is worth when its probes answer or not.
 */

const config = buildConfig(REPRESENTATIVE);
const clock = new TestClock(Date.UTC(2025, 2, 1, 12, 0, 0));
const HOUR = 3600_000;

const netif = (ifname: string, role: Netif['role'], status: Netif['status'], extra: Partial<Netif> = {}): Netif => ({
  ifname,
  role,
  status,
  proto: 'static',
  ipaddr: '',
  netmask: '',
  gateway: '',
  mac: '',
  mtu: 1500,
  rx_bytes: 1000,
  tx_bytes: 2000,
  rx_rate: 100,
  tx_rate: 50,
  uptime: 0,
  ...extra,
});

function fixture(overrides: Partial<NetworkFacts> = {}, netifs: Netif[] = []) {
  const probes: string[] = [];
  const facts: NetworkFacts = {
    leases: async () => [
      { expires: clock.ms + HOUR, mac: 'aa:00:00:00:00:01', ip: '192.168.1.100', hostname: '<b>laptop</b>', clientId: '' },
      { expires: 0, mac: 'aa:00:00:00:00:02', ip: '192.168.1.101', hostname: '', clientId: '' },
      { expires: clock.ms - HOUR, mac: 'aa:00:00:00:00:03', ip: '192.168.1.102', hostname: 'gone', clientId: '' },
      // A static host: outside the pool, inside the LAN.
      { expires: clock.ms + HOUR, mac: '00:11:22:33:44:55', ip: '192.168.1.10', hostname: 'printer', clientId: '' },
      // An old record of the same address as an active one: the active one counts.
      { expires: clock.ms - 2 * HOUR, mac: 'aa:00:00:00:00:09', ip: '192.168.1.100', hostname: 'old', clientId: '' },
    ],
    neighbours: async () => [
      { ip: '192.168.1.100', family: '4', device: 'br-lan', mac: 'aa:00:00:00:00:01', state: 'reachable', router: false },
      { ip: '192.168.1.150', family: '4', device: 'br-lan', mac: 'bb:00:00:00:00:01', state: 'stale', router: false },
      { ip: '192.168.1.151', family: '4', device: 'br-lan', mac: '', state: 'failed', router: false },
      { ip: '192.168.1.10', family: '4', device: 'br-lan', mac: '00:11:22:33:44:55', state: 'permanent', router: false },
      { ip: '192.168.1.20', family: '4', device: 'br-lan', mac: 'cc:00:00:00:00:01', state: 'reachable', router: false },
      { ip: 'fe80::a800:ff:fe00:1', family: '6', device: 'br-lan', mac: 'aa:00:00:00:00:01', state: 'stale', router: false },
      { ip: 'fe80::1', family: '6', device: 'eth0', mac: '00:1e:73:00:00:01', state: 'weird', router: true },
    ],
    routes: async (): Promise<RouteRecord[]> => [
      { family: '4', table: 'main', type: 'unicast', destination: '192.168.1.0/24', gateway: '', device: 'br-lan', protocol: 'kernel', scope: 'link', metric: 0, source: '192.168.1.1', nexthops: [] },
      { family: '4', table: '102', type: 'unicast', destination: 'default', gateway: '', device: 'ppp-wan2', protocol: 'static', scope: 'global', metric: 0, source: '', nexthops: [] },
      { family: '4', table: '101', type: 'unicast', destination: 'default', gateway: '203.0.113.1', device: 'eth0', protocol: 'static', scope: 'global', metric: 0, source: '', nexthops: [] },
      { family: '4', table: 'local', type: 'local', destination: '192.168.1.1', gateway: '', device: 'br-lan', protocol: 'kernel', scope: 'host', metric: 0, source: '', nexthops: [] },
      { family: '6', table: 'main', type: 'unicast', destination: 'default', gateway: 'fe80::1', device: 'eth0', protocol: 'ra', scope: 'global', metric: 1024, source: '', nexthops: [] },
      { family: '4', table: 'main', type: 'unicast', destination: 'default', gateway: '203.0.113.1', device: 'eth0', protocol: 'static', scope: 'global', metric: 10, source: '', nexthops: [] },
    ],
    probe: async (device, target): Promise<ProbeRecord> => {
      probes.push(`${device} ${target}`);
      return target === '198.51.100.1' ? { target, sent: 3, received: 2, latency: 4.5 } : { target, sent: 3, received: 0, latency: null };
    },
    ...overrides,
  };
  const live = { netif: () => ({ items: netifs, total: netifs.length }) } as unknown as LiveStatusSource;
  return { status: new NetworkStatus({ facts, live, config: () => config, now: clock.now }), probes };
}

const leaseQuery = (q: object = {}) => dhcpLeaseQuerySchema.parse(q);

describe('DHCP leases', () => {
  test('active, abandoned (expired or in use without a lease) and free, counted over the pool', async () => {
    const { status } = fixture();
    const all = await status.dhcpLeases(leaseQuery({ page_size: 500 }));
    // LAN pool 192.168.1.100-199 (100 addresses) plus the static host .10 outside it; the
    // guest pool runs from .10 to the end of its network (245 addresses, all free).
    expect(all.counts).toEqual({ active: 3, abandoned: 2, free: 96 + 245 });
    expect(all.total).toBe(101 + 245);
    expect(all.pools).toEqual([
      { interface: 'lan', first: '192.168.1.100', last: '192.168.1.199', size: 100, lease_minutes: 720 },
      { interface: 'guest', first: '192.168.20.10', last: '192.168.20.254', size: 245, lease_minutes: 60 },
    ]);
    const byIp = new Map(all.items.map((i) => [i.ip, i]));
    expect(byIp.get('192.168.1.100')).toEqual({
      ip: '192.168.1.100',
      mac: 'aa:00:00:00:00:01',
      hostname: '<b>laptop</b>',
      interface: 'lan',
      start: clock.ms + HOUR - 720 * 60_000,
      end: clock.ms + HOUR,
      status: 'active',
      reason: null,
    });
    expect(byIp.get('192.168.1.101')).toMatchObject({ status: 'active', start: null, end: null });
    expect(byIp.get('192.168.1.102')).toMatchObject({ status: 'abandoned', reason: 'expired', mac: 'aa:00:00:00:00:03' });
    expect(byIp.get('192.168.1.150')).toMatchObject({ status: 'abandoned', reason: 'conflict', mac: 'bb:00:00:00:00:01', end: null });
    // A failed neighbour is not a host in use; a static host outside the pool is not a conflict.
    expect(byIp.get('192.168.1.151')).toMatchObject({ status: 'free', mac: '' });
    expect(byIp.get('192.168.1.10')).toMatchObject({ status: 'active', interface: 'lan' });
    expect(byIp.has('192.168.1.20')).toBe(false);
    expect(all.items.map((i) => i.ip).slice(0, 3)).toEqual(['192.168.1.10', '192.168.1.100', '192.168.1.101']);
  });

  test('filters by state and text, pages through the result', async () => {
    const { status } = fixture();
    expect((await status.dhcpLeases(leaseQuery({ status: 'abandoned' }))).items.map((i) => i.ip)).toEqual(['192.168.1.102', '192.168.1.150']);
    expect((await status.dhcpLeases(leaseQuery({ q: 'LAPTOP' }))).items.map((i) => i.ip)).toEqual(['192.168.1.100']);
    const free = await status.dhcpLeases(leaseQuery({ status: 'free', page: 2, page_size: 10 }));
    expect(free.total).toBe(96 + 245);
    expect(free.items).toHaveLength(10);
    expect(free.items[0]!.ip).toBe('192.168.1.113');
    expect((await status.dhcpLeases(leaseQuery({ status: 'free', page: 35, page_size: 10 }))).items).toHaveLength(1);
    expect((await status.dhcpLeases(leaseQuery({ status: 'free', page: 36, page_size: 10 }))).items).toHaveLength(0);
  });

  test('the query refuses bad states and page sizes', () => {
    expect(dhcpLeaseQuerySchema.safeParse({ status: 'bogus' }).success).toBe(false);
    expect(dhcpLeaseQuerySchema.safeParse({ page_size: '501' }).success).toBe(false);
    expect(dhcpLeaseQuerySchema.safeParse({ page: '0' }).success).toBe(false);
  });
});

describe('ARP and neighbour info', () => {
  test('both families, binding match, host names from leases, unknown states as none', async () => {
    const { status } = fixture();
    const info = await status.arpInfo(arpInfoQuerySchema.parse({}));
    expect(info.total).toBe(7);
    expect(info.interfaces).toEqual(['br-lan', 'eth0']);
    const byIp = new Map(info.items.map((i) => [i.ip, i]));
    expect(byIp.get('192.168.1.10')).toMatchObject({ binding: 'bound', state: 'permanent', hostname: 'printer' });
    expect(byIp.get('192.168.1.20')).toMatchObject({ binding: 'mismatch' });
    expect(byIp.get('192.168.1.100')).toMatchObject({ binding: 'none', hostname: '<b>laptop</b>', family: '4' });
    expect(byIp.get('fe80::1')).toMatchObject({ state: 'none', router: true, family: '6' });
    const v6 = await status.arpInfo(arpInfoQuerySchema.parse({ family: '6', interface: 'br-lan' }));
    expect(v6.items.map((i) => i.ip)).toEqual(['fe80::a800:ff:fe00:1']);
  });
});

describe('system routes', () => {
  test('every table but local, policy tables named by their WAN, main first and defaults on top', async () => {
    const { status } = fixture();
    const routes = await status.systemRoutes(systemRouteQuerySchema.parse({}));
    expect(routes.tables).toEqual(['main', '101', '102']);
    expect(routes.items.map((r) => `${r.table} ${r.family} ${r.destination} ${r.wan}`)).toEqual([
      'main 4 default ',
      'main 4 192.168.1.0/24 ',
      'main 6 default ',
      '101 4 default wan1',
      '102 4 default wan2',
    ]);
    const v6 = await status.systemRoutes(systemRouteQuerySchema.parse({ family: '6' }));
    expect(v6.items).toHaveLength(1);
    expect((await status.systemRoutes(systemRouteQuerySchema.parse({ table: '101' }))).items[0]!.gateway).toBe('203.0.113.1');
  });
});

describe('line monitoring', () => {
  test('configured WANs probe their track IPs; loss, latency and online follow the answers', async () => {
    const { status, probes } = fixture({}, [
      netif('eth0', 'wan', 'up', { ipaddr: '203.0.113.2', gateway: '203.0.113.1', rx_rate: 900 }),
      netif('ppp-wan2', 'wan', 'down'),
      netif('br-lan', 'lan', 'up'),
    ]);
    const lines = await status.lineMonitoring();
    expect(lines.refresh_ms).toBe(5000);
    expect(lines.lines.map((l) => l.name)).toEqual(['wan1', 'wan2']);
    const [wan1, wan2] = lines.lines;
    expect(wan1).toMatchObject({ interface: 'eth0', link: 'up', online: true, table: 101, latency: 4.5, loss: 33.3, rx_rate: 900, gateway: '203.0.113.1' });
    expect(wan1!.probes).toEqual([{ target: '198.51.100.1', sent: 3, received: 2, loss: 33.3, latency: 4.5 }]);
    expect(wan1!.checked_at).toBe(clock.ms);
    // A link that is down is not probed: offline with full loss.
    expect(wan2).toMatchObject({ interface: 'ppp-wan2', link: 'down', online: false, loss: 100, latency: null, probes: [] });
    expect(lines.wanconnect).toBe(1);
    expect(probes).toEqual(['eth0 198.51.100.1']);
    // Refreshes within the round's life share it.
    await status.lineMonitoring();
    expect(probes).toHaveLength(1);
    clock.advance(5);
    await status.lineMonitoring();
    expect(probes).toHaveLength(2);
  });

  test('details of one line carry its rate series; an unknown name gives null', async () => {
    const { status } = fixture({}, [netif('eth0', 'wan', 'up', { ipaddr: '203.0.113.2', rx_rate: 700, tx_rate: 70 })]);
    status.sampleTraffic();
    const details = await status.lineDetails('wan1', '5m');
    expect(details?.points).toEqual([{ t: Math.floor(clock.ms / 5000) * 5000, rx_rate: 700, tx_rate: 70 }]);
    expect(await status.lineDetails('wan9', '5m')).toBeNull();
  });
});

describe('monitoring', () => {
  test('per-interface totals, rates and averaged points per range', () => {
    let rate = 100;
    const netifs = () => [netif('eth0', 'wan', 'up', { rx_rate: rate, tx_rate: rate / 2 })];
    const live = { netif: () => ({ items: netifs(), total: 1 }) } as unknown as LiveStatusSource;
    const start = Math.floor(clock.ms / 600_000) * 600_000;
    const local = new TestClock(start);
    const status = new NetworkStatus({ facts: fixture().status['options'].facts, live, config: () => config, now: local.now });
    for (let i = 0; i < 6; i += 1) {
      status.sampleTraffic();
      local.advance(5);
      rate += 100;
    }
    const fine = status.monitoring('5m');
    expect(fine.step).toBe(5);
    expect(fine.interfaces[0]!.points.map((p) => p.rx_rate)).toEqual([100, 200, 300, 400, 500, 600]);
    const coarse = status.monitoring('24h');
    expect(coarse.step).toBe(600);
    expect(coarse.interfaces[0]!.points).toEqual([{ t: start, rx_rate: 350, tx_rate: 175 }]);
    expect(coarse.interfaces[0]).toMatchObject({ ifname: 'eth0', rx_bytes: 1000, tx_bytes: 2000 });
  });
});
