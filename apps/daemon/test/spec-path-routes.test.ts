import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MSG } from '@portico/schema';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

/*
 * The spec §7 paths that answer beside the finer paths of their areas: each reads and writes
 * the same stores as the finer path does, under the same page permissions.
 */

let h: Harness;
let admin: Client;
let visitor: Client;
beforeAll(async () => {
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' } });
  admin = await adminClient(h);
  const guest = await addAccount(h, admin, 'visitor', 2);
  visitor = await login(h.app, 'visitor', guest.password);
});
afterAll(async () => {
  await h.close();
});

const read = async (url: string, client: Client = admin) => json(await get(h.app, client, url));
const write = async (url: string, body: Record<string, unknown>, client: Client = admin) => json(await post(h.app, client, url, body));

describe('firewall and auth/bwlist: one path for several entities', () => {
  test('GET firewall answers each section as its own path does', async () => {
    const whole = await read('/api/firewall');
    expect(whole.success).toBe(true);
    expect(Object.keys(whole.data).sort()).toEqual(['filter', 'lanforward', 'nat', 'redirect']);
    expect(whole.data.lanforward).toEqual((await read('/api/firewall/lanforward')).data);
    expect(whole.data.redirect).toEqual({ items: [], total: 0 });
  });

  test('POST firewall writes the section its body names, through the same rules', async () => {
    const saved = await write('/api/firewall', { section: 'lanforward', action: 'update', enabled: true, lan: ['lan'], rejlan: [] });
    expect(saved.success, JSON.stringify(saved)).toBe(true);
    expect((await read('/api/firewall/lanforward')).data).toMatchObject({ enabled: true, lan: ['lan'] });
    expect(await write('/api/firewall', { section: 'lanforward', action: 'get' })).toMatchObject({ success: true, data: { enabled: true } });
    expect(await write('/api/firewall', { section: 'lanforward', lan: ['no such one!'] })).toMatchObject({ success: false, errors: { lan: expect.any(String) } });
    expect(await write('/api/firewall', { section: 'dmz', action: 'get' })).toEqual({ success: false, msg: MSG.invalid, errors: { section: 'validation.option' } });
    expect(await write('/api/firewall', { section: 'redirect', action: 'get', id: 'none' })).toEqual({ success: false, msg: MSG.notFound });
  });

  test('auth/bwlist adds to the white list and reads both lists', async () => {
    const added = await write('/api/auth/bwlist', { section: 'whitelist', action: 'add', type: 'ip', value: '10.0.0.5', comment: 'printer' });
    expect(added.success, JSON.stringify(added)).toBe(true);
    expect((await read('/api/auth/whitelist')).data.items).toMatchObject([{ type: 'ip', value: '10.0.0.5', comment: 'printer' }]);
    const lists = (await read('/api/auth/bwlist')).data;
    expect(lists.whitelist.total).toBe(1);
    expect(lists.blacklist).toEqual({ items: [], total: 0 });
  });

  test('a visitor reads every section and writes none', async () => {
    expect((await read('/api/firewall', visitor)).success).toBe(true);
    expect(await write('/api/auth/bwlist', { section: 'blacklist', action: 'add', type: 'ip', value: '10.0.0.6' }, visitor)).toEqual({ success: false, msg: MSG.forbidden });
    expect((await write('/api/auth/bwlist', { section: 'blacklist', action: 'get', id: 'x' }, visitor)).msg).toBe(MSG.notFound);
  });

  test('GET auth: the zones with their authentication model, and the web portal', async () => {
    expect((await write('/api/auth/zone', { action: 'add', name: 'guests', ifname: 'lan', authmodel: 'webportal' })).success).toBe(true);
    const auth = (await read('/api/auth')).data;
    expect(auth.zone.items).toMatchObject([{ name: 'guests', ifname: 'lan', authmodel: 'webportal', https: false }]);
    expect(auth.webportal).toEqual((await read('/api/portal')).data);
  });
});

describe('status paths', () => {
  test('arplist: the resolved IPv4 neighbours an ARP binding is made from', async () => {
    const list = (await read('/api/arplist')).data as { items: Array<{ ip: string; mac: string; family: string }>; total: number };
    expect(list.total).toBe(list.items.length);
    expect(list.total).toBeGreaterThan(0);
    for (const n of list.items) {
      expect(n.family).toBe('4');
      expect(n.mac).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    }
  });

  test('status/user: the online-user actions; disk and log actions are not there yet', async () => {
    expect(await write('/api/status/user', { action: 'kickoff', ip: '192.168.11.250' })).toEqual({ success: false, msg: MSG.notFound });
    expect(await write('/api/status/user', { action: 'blacklist', mac: '02:00:00:00:00:99' })).toEqual({ success: true });
    expect((await read('/api/hotspot/online')).data.blocked).toContain('02:00:00:00:00:99');
    expect(await write('/api/status/user', { action: 'unblock', mac: '02:00:00:00:00:99' })).toEqual({ success: true });
    expect(await write('/api/status/user', { action: 'format' })).toEqual({ success: false, msg: MSG.notAvailableYet });
    expect(await write('/api/status/user', { action: 'savelog' })).toEqual({ success: false, msg: MSG.notAvailableYet });
    expect(await write('/api/status/user', { action: 'format' }, visitor)).toEqual({ success: false, msg: MSG.forbidden });
  });

  test('status/config: the latest revision and the change waiting for confirmation', async () => {
    const state = await write('/api/status/config', { action: 'get' });
    expect(state.success).toBe(true);
    expect(state.data.revision).toBeGreaterThan(0);
    expect(state.data.pending).toMatchObject({ pending: false });
  });

  test('registration: read through POST; activation needs a licence server configured', async () => {
    expect(await write('/api/registration', { action: 'get' })).toEqual(await read('/api/registration'));
    expect(await write('/api/registration', { action: 'update', code: 'ABCD-EFGH-1234' })).toMatchObject({ success: false, msg: 'msg.license.noServer' });
    expect(await write('/api/registration', { action: 'update' }, visitor)).toEqual({ success: false, msg: MSG.forbidden });
  });
});

describe('hotspot paths', () => {
  test('auth/image: the portal picture and logo, none yet', async () => {
    expect(await read('/api/auth/image')).toEqual({ success: true, data: {} });
    expect(await write('/api/auth/image', { action: 'delete', kind: 'picture' })).toEqual({ success: false, msg: MSG.notFound });
    expect(await write('/api/auth/image', { action: 'delete', kind: 'custom' })).toMatchObject({ success: false, errors: { kind: 'validation.option' } });
  });

  test('auth/clearuser removes the expired accounts; auth/cleantel forgets phone numbers', async () => {
    const add = (username: string, extra: Record<string, unknown>) =>
      write('/api/auth/userauth', { action: 'add', username, password: 'Secret123', confirm: 'Secret123', ...extra });
    expect((await add('gone', { duetime: '2020-01-01 00:00' })).success).toBe(true);
    expect((await add('kept', { duetime: '2030-01-01 00:00', tel: '13800000000' })).success).toBe(true);
    expect((await add('other', { tel: '13900000000' })).success).toBe(true);
    const users = async () => (await read('/api/auth/userauth')).data.items as Array<{ id: string; username: string; tel: string }>;

    expect(await write('/api/auth/clearuser', { action: 'clean' })).toEqual({ success: true, data: { removed: 1 } });
    expect((await users()).map((u) => u.username).sort()).toEqual(['kept', 'other']);

    const kept = (await users()).find((u) => u.username === 'kept')!;
    expect(await write('/api/auth/cleantel', { action: 'clean', ids: [kept.id] })).toEqual({ success: true, data: { cleared: 1 } });
    expect((await users()).map((u) => [u.username, u.tel]).sort()).toEqual([['kept', ''], ['other', '13900000000']]);
    expect(await write('/api/auth/cleantel', { action: 'clean' })).toEqual({ success: true, data: { cleared: 1 } });
    expect((await users()).every((u) => u.tel === '')).toBe(true);

    // Both are journalled like any account write.
    const journal = (await read('/api/sysconf/journal')).data.items as Array<{ summary: string }>;
    expect(journal.length).toBeGreaterThanOrEqual(3);
    expect(await write('/api/auth/clearuser', {}, visitor)).toEqual({ success: false, msg: MSG.forbidden });
  });
});
