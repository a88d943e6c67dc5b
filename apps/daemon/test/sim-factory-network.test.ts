import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lineMonitoringSchema, monitoringSchema, netifListSchema } from '@portico/schema';
import { readSettings } from '../src/settings.js';
import { ADMIN_PASSWORD, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

/*
 * The simulated device starts as a new device does: its factory network (a WAN by DHCP, the
 * LAN at 192.168.11.1/24 with a DHCP pool) is in the configuration, and its live status shows
 * the links that configuration names, following every later change.
 */

let h: Harness;
let admin: Client;
beforeAll(async () => {
  // The sim driver's own defaults: no port setting given.
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: undefined, PORTICO_WAN_PORTS: undefined } });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const data = async (url: string) => {
  const body = json(await get(h.app, admin, url));
  expect(body.success, `${url} ${JSON.stringify(body)}`).toBe(true);
  return body.data;
};
const netifNames = async () => netifListSchema.parse(await data('/api/status/netif')).items.map((i) => i.ifname);
const interfaceRows = async () => (await data('/api/network')).items as Array<{ id: string; ifname: string }>;

/** Writes an interface change and confirms it, as the console does within its window. */
async function writeInterface(body: Record<string, unknown>): Promise<void> {
  const reply = json(await post(h.app, admin, '/api/network', body));
  expect(reply.success, JSON.stringify(reply)).toBe(true);
  const token = reply.data?.confirm?.token;
  if (token) expect(json(await post(h.app, null, '/api/sysconf/confirm', { token, action: 'confirm' })).success).toBe(true);
}

describe('settings', () => {
  test('the sim driver names its factory ports; the real drivers lay nothing down unless told', () => {
    expect(readSettings({})).toMatchObject({ factoryWanPorts: ['eth0'], factoryLanPorts: ['eth1', 'eth2', 'eth3'] });
    expect(readSettings({ PORTICO_DRIVER: 'linux' })).toMatchObject({ factoryWanPorts: [], factoryLanPorts: [] });
    expect(readSettings({ PORTICO_DRIVER: 'linux', PORTICO_LAN_PORTS: 'lan1 lan2', PORTICO_WAN_PORTS: 'wan0' })).toMatchObject({
      factoryWanPorts: ['wan0'],
      factoryLanPorts: ['lan1', 'lan2'],
    });
    expect(readSettings({ PORTICO_LAN_PORTS: '' })).toMatchObject({ factoryLanPorts: [] });
  });
});

describe('a fresh simulated device', () => {
  test('its factory network is in the configuration, editable like any row', async () => {
    const rows = (await data('/api/network')).items as Array<Record<string, unknown>>;
    // Listed by name.
    expect(rows).toMatchObject([
      { ifname: 'lan', role: 'lan', proto: 'static', hwport: ['eth1', 'eth2', 'eth3'], ipaddr: '192.168.11.1', netmask: '255.255.255.0' },
      { ifname: 'wan', role: 'wan', proto: 'dhcp', hwport: ['eth0'], enabled: true },
    ]);
    expect((await data('/api/dhcp')).items).toMatchObject([{ interface: 'lan', start: '192.168.11.100', pool_size: 100, netmask: '255.255.255.0' }]);
  });

  test('the status pages show the configured links: a WAN with a DHCP lease and the LAN at its address', async () => {
    const netif = netifListSchema.parse(await data('/api/status/netif'));
    expect(netif.items.map((i) => [i.ifname, i.role, i.proto, i.status])).toEqual([
      ['wan', 'wan', 'dhcp', 'up'],
      ['lan', 'lan', 'static', 'up'],
    ]);
    expect(netif.items[0]).toMatchObject({ netmask: '255.255.255.0' });
    expect(netif.items[0]!.ipaddr).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(netif.items[1]).toMatchObject({ ipaddr: '192.168.11.1', netmask: '255.255.255.0' });
    expect((await data('/api/dashboard')).system.wanconnect).toBe(1);
    expect(lineMonitoringSchema.parse(await data('/api/status/linemonitoring')).lines.map((l) => l.name)).toEqual(['wan']);
    const monitoring = monitoringSchema.parse(await data('/api/status/monitoring?range=5m'));
    expect(monitoring.interfaces.map((i) => i.ifname)).toEqual(['wan', 'lan']);
  });

  test('an interface added, renamed, disabled or removed in the configuration follows in the live status', async () => {
    await writeInterface({ action: 'add', ifname: 'wan2', role: 'wan', hwport: ['eth4'], proto: 'pppoe', pppoe_username: 'line2', pppoe_password: 'secret22' });
    expect(await netifNames()).toEqual(['wan', 'lan', 'wan2']);
    const second = netifListSchema.parse(await data('/api/status/netif')).items.find((i) => i.ifname === 'wan2')!;
    expect(second).toMatchObject({ role: 'wan', proto: 'pppoe', status: 'up', netmask: '255.255.255.255' });
    expect((await data('/api/dashboard')).system.wanconnect).toBe(2);
    expect(lineMonitoringSchema.parse(await data('/api/status/linemonitoring')).lines.map((l) => l.name)).toEqual(['wan', 'wan2']);

    // A rename is the old row gone and a new one under the new name.
    const old = (await interfaceRows()).find((r) => r.ifname === 'wan2')!;
    await writeInterface({ action: 'delete', ids: [old.id] });
    await writeInterface({ action: 'add', ifname: 'backup', role: 'wan', hwport: ['eth4'], proto: 'dhcp' });
    expect(await netifNames()).toEqual(['wan', 'lan', 'backup']);

    // A disabled interface is listed down, without an address.
    const backup = (await interfaceRows()).find((r) => r.ifname === 'backup')!;
    await writeInterface({ action: 'update', id: backup.id, enabled: false });
    expect(netifListSchema.parse(await data('/api/status/netif')).items.find((i) => i.ifname === 'backup')).toMatchObject({ status: 'down', ipaddr: '' });
    expect((await data('/api/dashboard')).system.wanconnect).toBe(1);

    await writeInterface({ action: 'delete', ids: [backup.id] });
    expect(await netifNames()).toEqual(['wan', 'lan']);
  });

  test('a changed LAN address shows at once', async () => {
    const lan = (await interfaceRows()).find((r) => r.ifname === 'lan')!;
    await writeInterface({ action: 'update', id: lan.id, ipaddr: '192.168.11.2' });
    expect(netifListSchema.parse(await data('/api/status/netif')).items.find((i) => i.ifname === 'lan')).toMatchObject({ ipaddr: '192.168.11.2', status: 'up' });
    await writeInterface({ action: 'update', id: lan.id, ipaddr: '192.168.11.1' });
  });

  test('a restart lays nothing down again: the configuration stays as it was left', async () => {
    const before = await interfaceRows();
    h = await h.restart();
    admin = await login(h.app, 'admin', ADMIN_PASSWORD);
    expect(await interfaceRows()).toEqual(before);
  });
});
