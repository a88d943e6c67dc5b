import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  arpInfoSchema,
  CHART_RANGE_KEYS,
  dhcpLeaseListSchema,
  lineDetailsSchema,
  lineMonitoringSchema,
  monitoringSchema,
  systemRouteListSchema,
} from '@portico/schema';
import { HOSTILE_HOSTNAMES } from '../src/drivers/sim/sim-clients.js';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

/*
 * The network status routes of the simulated device: what they answer agrees with the clients
 * and links the rest of its live status shows, and every route is read-only and guarded.
 */

let h: Harness;
let admin: Client;
beforeAll(async () => {
  // The factory network with a second WAN: lines wan and wan2, and the LAN.
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1', PORTICO_WAN_PORTS: 'eth0 eth2' } });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const data = async (url: string, client: Client = admin) => {
  const body = json(await get(h.app, client, url));
  expect(body.success, `${url} ${JSON.stringify(body)}`).toBe(true);
  return body.data;
};

const NETWORK_STATUS_URLS = [
  '/api/dhcpv4info',
  '/api/arpinfo',
  '/api/systemroute',
  '/api/status/monitoring',
  '/api/status/linemonitoring',
  '/api/status/linemonitoring/details?name=wan',
];

describe('simulated network status', () => {
  test('every online client holds an active lease and is a reachable or stale neighbour', async () => {
    const users = (await data('/api/status/user')).items as { ip: string; mac: string; hostname: string }[];
    const leases = dhcpLeaseListSchema.parse(await data('/api/dhcpv4info?status=active&page_size=500'));
    const arp = arpInfoSchema.parse(await data('/api/arpinfo?family=4&page_size=500'));
    expect(users.length).toBeGreaterThanOrEqual(20);
    const leaseOf = new Map(leases.items.map((l) => [l.ip, l]));
    const neighbourOf = new Map(arp.items.map((n) => [n.ip, n]));
    for (const user of users) {
      expect(leaseOf.get(user.ip), user.ip).toMatchObject({ mac: user.mac, hostname: user.hostname, status: 'active' });
      expect(neighbourOf.get(user.ip), user.ip).toMatchObject({ mac: user.mac, interface: 'lan' });
      expect(['reachable', 'stale']).toContain(neighbourOf.get(user.ip)!.state);
    }
    // Lease ends lie ahead, starts a lease time before them.
    for (const lease of leases.items) {
      expect(lease.end!).toBeGreaterThan(h.clock.ms);
      if (lease.interface === 'lan') expect(lease.end! - lease.start!).toBe(720 * 60_000);
    }
  });

  test('abandoned leases belong to clients that have gone, and ran out before now', async () => {
    const online = new Set(((await data('/api/status/user')).items as { mac: string }[]).map((u) => u.mac));
    const abandoned = dhcpLeaseListSchema.parse(await data('/api/dhcpv4info?status=abandoned&page_size=500'));
    for (const lease of abandoned.items) {
      expect(online.has(lease.mac), lease.ip).toBe(false);
      expect(lease.reason).toBe('expired');
      expect(lease.end!).toBeLessThanOrEqual(h.clock.ms);
    }
  });

  test('host names come back exactly as the clients announced them, markup included', async () => {
    const leases = dhcpLeaseListSchema.parse(await data('/api/dhcpv4info?page_size=500'));
    const names = new Set(leases.items.map((l) => l.hostname));
    expect(HOSTILE_HOSTNAMES.filter((n) => names.has(n)).length).toBeGreaterThanOrEqual(3);
  });

  test('states count over the factory pool: active + abandoned + free covers it', async () => {
    const leases = dhcpLeaseListSchema.parse(await data('/api/dhcpv4info?page_size=1'));
    expect(leases.pools).toEqual([{ interface: 'lan', first: '192.168.11.100', last: '192.168.11.199', size: 100, lease_minutes: 720 }]);
    const { active, abandoned, free } = leases.counts;
    expect(active).toBeGreaterThan(0);
    expect(leases.total).toBe(active + abandoned + free);
    expect(leases.items).toHaveLength(1);
    const freeOnly = dhcpLeaseListSchema.parse(await data('/api/dhcpv4info?status=free&page_size=5'));
    expect(freeOnly.items.every((l) => l.status === 'free' && l.mac === '')).toBe(true);
  });

  test('routes: the main table, the WAN policy tables 101 and 102, IPv6, and configured static routes', async () => {
    const before = systemRouteListSchema.parse(await data('/api/systemroute'));
    expect(before.tables).toEqual(['main', '101', '102']);
    expect(before.items.filter((r) => r.table === '101')).toMatchObject([{ destination: 'default', wan: 'wan', interface: 'wan' }]);
    expect(before.items.some((r) => r.family === '6')).toBe(true);
    expect(before.items.some((r) => r.destination === '192.168.11.0/24' && r.protocol === 'kernel')).toBe(true);

    const added = json(await post(h.app, admin, '/api/staticroute', { action: 'add', target: '10.20.0.0/16', gateway: '192.168.11.254', metric: 7 }));
    expect(added.success, JSON.stringify(added)).toBe(true);
    const after = systemRouteListSchema.parse(await data('/api/systemroute?family=4&table=main'));
    expect(after.items).toContainEqual(
      expect.objectContaining({ destination: '10.20.0.0/16', gateway: '192.168.11.254', protocol: 'static', metric: 7 }),
    );
    expect(after.items.every((r) => r.family === '4' && r.table === 'main')).toBe(true);
  });

  test('line monitoring agrees with the dashboard; details carry the line and its series', async () => {
    const lines = lineMonitoringSchema.parse(await data('/api/status/linemonitoring'));
    const dashboard = await data('/api/dashboard');
    expect(lines.lines.map((l) => l.name)).toEqual(['wan', 'wan2']);
    expect(lines.wanconnect).toBe(dashboard.system.wanconnect);
    for (const line of lines.lines) {
      if (line.online) expect(line.latency).toBeGreaterThan(0);
      expect(line.table).toBeGreaterThan(100);
    }
    for (const range of CHART_RANGE_KEYS) {
      const details = lineDetailsSchema.parse(await data(`/api/status/linemonitoring/details?name=wan2&range=${range}`));
      expect(details.line.name).toBe('wan2');
      expect(details.range).toBe(range);
    }
    expect(json(await get(h.app, admin, '/api/status/linemonitoring/details?name=nope'))).toEqual({ success: false, msg: 'msg.notFound' });
  });

  test('monitoring lists every interface for every range', async () => {
    for (const range of CHART_RANGE_KEYS) {
      const monitoring = monitoringSchema.parse(await data(`/api/status/monitoring?range=${range}`));
      expect(monitoring.interfaces.map((i) => i.ifname)).toEqual(['wan', 'wan2', 'lan']);
      expect(monitoring.interfaces[0]!.points.length).toBeGreaterThanOrEqual(1);
    }
    expect(json(await get(h.app, admin, '/api/status/monitoring?range=2y'))).toMatchObject({ success: false, errors: { range: 'validation.option' } });
  });
});

describe('guard', () => {
  test('no session: unauthorized; GETs need no CSRF token; a visitor reads, a voucher admin is refused', async () => {
    const guestAccount = await addAccount(h, admin, 'viewer1', 2);
    const voucherAccount = await addAccount(h, admin, 'voucher1', 1);
    const guest = await login(h.app, 'viewer1', guestAccount.password);
    const voucher = await login(h.app, 'voucher1', voucherAccount.password);
    for (const url of NETWORK_STATUS_URLS) {
      const anonymous = await get(h.app, null, url);
      expect(anonymous.statusCode, url).toBe(401);
      // The client helper sends no CSRF header on GET.
      expect(json(await get(h.app, guest, url)).success, url).toBe(true);
      expect(json(await get(h.app, voucher, url)), url).toEqual({ success: false, msg: 'forbidden' });
      // A foreign page may not read them with the administrator's cookie.
      expect((await get(h.app, admin, url, { origin: 'https://evil.example' })).statusCode, url).toBe(403);
    }
  });

  test('the routes are read-only: no POST is registered on them', async () => {
    for (const url of NETWORK_STATUS_URLS) {
      const path = url.split('?')[0]!;
      expect(h.app.routeTable.filter((r) => r.url === path).map((r) => r.method), path).toEqual(['GET']);
      expect((await post(h.app, admin, path, {})).statusCode, path).toBe(404);
    }
  });
});
