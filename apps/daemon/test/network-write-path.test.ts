import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;

beforeEach(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterEach(async () => {
  await h.close();
});

const lan = {
  action: 'add',
  ifname: 'lan',
  role: 'lan',
  hwport: ['eth2'],
  proto: 'static',
  ipaddr: '192.168.11.1',
  netmask: '255.255.255.0',
};

async function confirm(reply: { data?: { confirm?: { token: string } } }) {
  const token = reply.data?.confirm?.token;
  expect(token, 'an interface write needs confirmation').toBeTruthy();
  const done = json(await post(h.app, null, '/api/sysconf/confirm', { token, action: 'confirm' }));
  expect(done.success).toBe(true);
}

describe('network writes reach the renderer through the config engine', () => {
  test('an interface and a DHCP server are rendered into checked files under the sim state dir', async () => {
    const added = json(await post(h.app, admin, '/api/network', lan));
    expect(added.success, JSON.stringify(added)).toBe(true);
    await confirm(added);
    const dhcp = json(
      await post(h.app, admin, '/api/dhcp', { action: 'add', interface: 'lan', start: '192.168.11.100', pool_size: 50, netmask: '255.255.255.0' }),
    );
    expect(dhcp.success, JSON.stringify(dhcp)).toBe(true);
    const rendered = join(h.stateDir, 'rendered', 'etc/portico');
    const dnsmasq = readFileSync(join(rendered, 'dnsmasq.conf'), 'utf8');
    expect(dnsmasq).toContain('dhcp-range=set:lan,192.168.11.100,192.168.11.149,255.255.255.0');
    expect(readFileSync(join(rendered, 'network.ip'), 'utf8')).toContain('address replace 192.168.11.1/24');
    // The console's own port is always open to the LAN.
    expect(readFileSync(join(rendered, 'network.nft'), 'utf8')).toMatch(/tcp dport \{[^}]*\b8080\b/);
  });

  test('the spec §5 cross-record rules refuse conflicting rows with a field error', async () => {
    await confirm(json(await post(h.app, admin, '/api/network', lan)));
    const lease = { action: 'add', mac: '02:00:00:00:00:10', ip: '192.168.11.10', hostname: 'printer' };
    expect(json(await post(h.app, admin, '/api/dhcpstatic', lease)).success).toBe(true);
    const clash = json(await post(h.app, admin, '/api/dhcpstatic', { ...lease, ip: '192.168.11.11', hostname: 'other' }));
    expect(clash.success).toBe(false);
    expect(Object.keys(clash.errors ?? {})).toContain('mac');
    const outside = json(await post(h.app, admin, '/api/dhcpstatic', { ...lease, mac: '02:00:00:00:00:11', ip: '10.9.9.9' }));
    expect(outside.success).toBe(false);
  });

  test('an unconfirmed interface change is put back and the files follow', async () => {
    await confirm(json(await post(h.app, admin, '/api/network', lan)));
    const list = json(await get(h.app, admin, '/api/network'));
    const id = list.data.items[0].id as string;
    const changed = json(await post(h.app, admin, '/api/network', { action: 'update', id, ipaddr: '192.168.12.1' }));
    expect(changed.success, JSON.stringify(changed)).toBe(true);
    const ip = join(h.stateDir, 'rendered', 'etc/portico/network.ip');
    expect(readFileSync(ip, 'utf8')).toContain('192.168.12.1/24');
    const reverted = json(await post(h.app, null, '/api/sysconf/confirm', { token: changed.data.confirm.token, action: 'revert' }));
    expect(reverted.success).toBe(true);
    expect(readFileSync(ip, 'utf8')).toContain('192.168.11.1/24');
    expect(existsSync(ip)).toBe(true);
  });
});

describe('network apply at start', () => {
  test('an unconfigured device gets no network files (no lockout); a configured one is applied in full at start', async () => {
    const rendered = join(h.stateDir, 'rendered', 'etc/portico/network.nft');
    expect(existsSync(rendered)).toBe(false);
    await confirm(json(await post(h.app, admin, '/api/network', lan)));
    expect(existsSync(rendered)).toBe(true);
    rmSync(rendered);
    h = await h.restart();
    expect(existsSync(rendered)).toBe(true);
  });
});

describe('singleton settings through the API', () => {
  test('ARP authentication: every field, the redirect mode included, is set and read back', async () => {
    const written = json(
      await post(h.app, admin, '/api/arpauth', { enabled: true, auth_action: 'redirect', jurl: 'https://portal.example.com/bind' }),
    );
    expect(written.success, JSON.stringify(written)).toBe(true);
    await confirm(written);
    const read = json(await get(h.app, admin, '/api/arpauth'));
    expect(read.data).toMatchObject({ enabled: true, auth_action: 'redirect', jurl: 'https://portal.example.com/bind' });
    // Redirect mode needs its address.
    const missing = json(await post(h.app, admin, '/api/arpauth', { enabled: true, auth_action: 'redirect', jurl: '' }));
    expect(missing).toMatchObject({ success: false, errors: { jurl: 'validation.required' } });
  });
});
