import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { adminClient, addAccount, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { localUsers, verifyLocalUser } from '../src/domains/hotspot-config/local-user-store.js';

let h: Harness;
let admin: Client;

beforeEach(async () => {
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' } });
  admin = await adminClient(h);
});
afterEach(async () => {
  await h.close();
});

const plan = { action: 'add', name: 'day', flow: 0, effecttime: 24, effectunit: 'hours', upspeed: 2048, downspeed: 8192 };

describe('billing plans', () => {
  test('a plan is added with defaults and listed; 0 reads unlimited', async () => {
    const added = json(await post(h.app, admin, '/api/auth/tariff', plan));
    expect(added.success, JSON.stringify(added)).toBe(true);
    expect(added.data).toMatchObject({ name: 'day', maxbuy: 0, cycle: 0, expire_action: 'offline' });
    const list = json(await get(h.app, admin, '/api/auth/tariff'));
    expect(list.data.total).toBe(1);
  });

  test('field errors: reminder bounds, cycle, duplicate name, unknown switch target', async () => {
    const bad = json(await post(h.app, admin, '/api/auth/tariff', { ...plan, remind_time: 61, remind_flow: 0, cycle: 5 }));
    expect(bad.success).toBe(false);
    expect(bad.errors).toMatchObject({ remind_time: 'validation.hotspot.reminderTime', remind_flow: 'validation.hotspot.reminderFlow', cycle: 'validation.hotspot.cycle' });
    expect(json(await post(h.app, admin, '/api/auth/tariff', plan)).success).toBe(true);
    const dup = json(await post(h.app, admin, '/api/auth/tariff', plan));
    expect(dup.errors).toEqual({ name: 'validation.nameExists' });
    const target = json(await post(h.app, admin, '/api/auth/tariff', { ...plan, name: 'week', expire_action: 'switch', switch_plan: 'nope' }));
    expect(target.errors).toEqual({ switch_plan: 'validation.hotspot.unknownPlan' });
    const ok = json(await post(h.app, admin, '/api/auth/tariff', { ...plan, name: 'week', expire_action: 'switch', switch_plan: 'day' }));
    expect(ok.success, JSON.stringify(ok)).toBe(true);
  });

  test('a plan referenced by a user or another plan cannot be deleted', async () => {
    const day = json(await post(h.app, admin, '/api/auth/tariff', plan)).data;
    const week = json(await post(h.app, admin, '/api/auth/tariff', { ...plan, name: 'week', expire_action: 'switch', switch_plan: 'day' })).data;
    const refused = json(await post(h.app, admin, '/api/auth/tariff', { action: 'delete', id: day.id }));
    expect(refused).toMatchObject({ success: false, msg: 'hotspot.msg.planInUse' });
    // Deleting both together leaves nothing pointing at either.
    expect(json(await post(h.app, admin, '/api/auth/tariff', { action: 'delete', ids: [day.id, week.id] })).success).toBe(true);
    const again = json(await post(h.app, admin, '/api/auth/tariff', plan)).data;
    const user = { action: 'add', username: 'alice', password: 'Secret123', confirm: 'Secret123', model: 'day' };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/tariff', { action: 'delete', id: again.id })).msg).toBe('hotspot.msg.planInUse');
  });

  test('accounting settings read their defaults and keep the 10-300 s interval', async () => {
    const read = json(await get(h.app, admin, '/api/auth/acct'));
    expect(read.data).toMatchObject({ interval: 120, expiretime: 24, expireflow: 10 });
    for (const interval of [9, 301]) {
      const bad = json(await post(h.app, admin, '/api/auth/acct', { ...read.data, interval }));
      expect(bad.errors).toEqual({ interval: 'validation.hotspot.interval' });
    }
    expect(json(await post(h.app, admin, '/api/auth/acct', { ...read.data, interval: 10 })).success).toBe(true);
  });
});

describe('local users', () => {
  const user = { action: 'add', username: 'alice', password: 'Secret123', confirm: 'Secret123', duetime: '2030-01-01 12:00' };

  test('passwords are stored as hashes, never returned, and verifyLocalUser checks them', async () => {
    const added = json(await post(h.app, admin, '/api/auth/userauth', user));
    expect(added.success, JSON.stringify(added)).toBe(true);
    expect(added.data.password).toBeUndefined();
    const list = json(await get(h.app, admin, '/api/auth/userauth'));
    expect(JSON.stringify(list)).not.toContain('Secret123');
    const row = h.app.appContext.db.prepare('SELECT password_hash, data FROM hotspot_local_users').get() as { password_hash: string; data: string };
    expect(row.password_hash).toMatch(/^\$scrypt\$/);
    expect(row.data).not.toContain('Secret123');
    const journal = h.app.appContext.db.prepare('SELECT changes FROM revisions').all() as Array<{ changes: string }>;
    expect(journal.map((r) => r.changes).join('')).not.toContain('Secret123');
    const ctx = h.app.appContext;
    expect((await verifyLocalUser(ctx, 'alice', 'Secret123'))?.username).toBe('alice');
    expect(await verifyLocalUser(ctx, 'alice', 'Wrong1234')).toBeNull();
    expect(await verifyLocalUser(ctx, 'nobody', 'Secret123')).toBeNull();
  });

  test('field errors and case-insensitive unique names; an edit keeps the password when left empty', async () => {
    const bad = json(await post(h.app, admin, '/api/auth/userauth', { ...user, type: 'ftp', duetime: '2030-02-30' }));
    expect(bad.errors).toEqual({ type: 'validation.option', duetime: 'validation.hotspot.dueTime' });
    const mismatch = json(await post(h.app, admin, '/api/auth/userauth', { ...user, confirm: 'Secret124' }));
    expect(mismatch.errors).toEqual({ confirm: 'validation.password.mismatch' });
    const added = json(await post(h.app, admin, '/api/auth/userauth', user)).data;
    expect(json(await post(h.app, admin, '/api/auth/userauth', { ...user, username: 'ALICE' })).errors).toEqual({ username: 'validation.nameExists' });
    const edited = json(await post(h.app, admin, '/api/auth/userauth', { action: 'update', id: added.id, password: '', confirm: '', comment: 'desk' }));
    expect(edited.success, JSON.stringify(edited)).toBe(true);
    expect(await localUsers(h.app.appContext).verifyLocalUser('alice', 'Secret123')).not.toBeNull();
  });

  test('an account past its due time reads expired', async () => {
    await post(h.app, admin, '/api/auth/userauth', { ...user, duetime: '2025-03-01' });
    expect(json(await get(h.app, admin, '/api/auth/userauth')).data.items[0].status).toBe('normal');
    h.clock.advance(2 * 86400);
    // The admin session has idled out meanwhile; the store answers what the list would.
    expect(localUsers(h.app.appContext).list()[0]!.status).toBe('expired');
  });

  test('renewing is moving the due time: the expired status the edit form read back is the due time\'s, not kept', async () => {
    const store = localUsers(h.app.appContext);
    const added = await store.insert({ ...user, status: 'normal', duetime: '2025-03-01' });
    h.clock.advance(2 * 86400);
    const read = store.get(added.id)!;
    expect(read.status).toBe('expired');
    // The form sends back every field it showed, the status it read among them.
    const renewed = await store.update(added.id, { ...read, duetime: '2030-01-01', password: '' });
    expect(renewed!.status).toBe('normal');
    // A status of expired chosen while the due time is still ahead is kept, and outlives a later move.
    const held = await store.update(added.id, { ...renewed!, status: 'expired', password: '' });
    expect(held!.status).toBe('expired');
    expect((await store.update(added.id, { ...held!, duetime: '2031-01-01', password: '' }))!.status).toBe('expired');
  });

  test('batch creation makes count accounts in one journalled revision; a taken prefix is refused', async () => {
    const before = (h.app.appContext.db.prepare('SELECT COUNT(*) AS n FROM revisions').get() as { n: number }).n;
    const batch = { prefix: 'guest', count: 12, password: 'Guest2025', duetime: '2030-06-30', type: 'portal', model: '', usernum: 1, comment: '' };
    const created = json(await post(h.app, admin, '/api/auth/userbatch', batch));
    expect(created.success, JSON.stringify(created)).toBe(true);
    expect(created.data.created).toHaveLength(12);
    expect(created.data.password).toBeUndefined();
    const after = (h.app.appContext.db.prepare('SELECT COUNT(*) AS n FROM revisions').get() as { n: number }).n;
    expect(after - before).toBe(1);
    const names = json(await get(h.app, admin, '/api/auth/userauth')).data.items.map((u: { username: string }) => u.username);
    expect(names).toContain('guest001');
    expect(names).toContain('guest012');
    expect(await verifyLocalUser(h.app.appContext, 'guest007', 'Guest2025')).not.toBeNull();
    const again = json(await post(h.app, admin, '/api/auth/userbatch', { ...batch, count: 3 }));
    expect(again.errors).toEqual({ prefix: 'validation.hotspot.userExists' });
    const bounds = json(await post(h.app, admin, '/api/auth/userbatch', { ...batch, prefix: 'x', count: 501 }));
    expect(bounds.errors).toEqual({ count: 'validation.hotspot.batchCount' });
  });
});

describe('zones, lists, portal and notices', () => {
  test('a zone needs an existing interface, one zone per interface, validity at most 20 days', async () => {
    const zone = { action: 'add', name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 20, authtime_unit: 'days' };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
    expect(json(await post(h.app, admin, '/api/auth/zone', { ...zone, name: 'other' })).errors).toEqual({ ifname: 'validation.hotspot.zoneInterface' });
    expect(json(await post(h.app, admin, '/api/auth/zone', { ...zone, name: 'x', ifname: 'lan9' })).errors).toEqual({ ifname: 'validation.network.unknownInterface' });
    expect(json(await post(h.app, admin, '/api/auth/zone', { ...zone, name: 'y', authtime: 481, authtime_unit: 'hours' })).errors).toMatchObject({
      authtime: 'validation.hotspot.authTime',
    });
  });

  test('white list duplicates and entries on both lists are refused', async () => {
    const entry = { action: 'add', type: 'mac', value: '02-00-00-00-00-AA', comment: 'printer' };
    const added = json(await post(h.app, admin, '/api/auth/whitelist', entry));
    expect(added.data.value).toBe('02:00:00:00:00:aa');
    expect(json(await post(h.app, admin, '/api/auth/whitelist', { ...entry, value: '02:00:00:00:00:aa' })).errors).toEqual({ value: 'validation.hotspot.duplicate' });
    expect(json(await post(h.app, admin, '/api/auth/blacklist', entry)).errors).toEqual({ value: 'validation.hotspot.otherList' });
    expect(json(await post(h.app, admin, '/api/auth/whitelist', { action: 'add', type: 'ip', value: 'example.com' })).errors).toEqual({
      value: 'validation.hotspot.listValue',
    });
    expect(json(await post(h.app, admin, '/api/auth/whitelist', { action: 'add', type: 'url', value: '*.example.com' })).success).toBe(true);
  });

  test('the portal password is write-only and required by the password method', async () => {
    const read = json(await get(h.app, admin, '/api/portal')).data;
    expect(read.methods).toEqual(['voucher']);
    const missing = json(await post(h.app, admin, '/api/portal', { ...read, methods: ['password'] }));
    expect(missing.errors).toEqual({ password: 'validation.required' });
    expect(json(await post(h.app, admin, '/api/portal', { ...read, methods: ['password'], password: 'Shared2025' })).success).toBe(true);
    const again = json(await get(h.app, admin, '/api/portal')).data;
    expect(again.password).toBeUndefined();
    // Left empty, the stored password is kept.
    expect(json(await post(h.app, admin, '/api/portal', { ...again, welcome: 'Hi', password: '' })).success).toBe(true);
  });

  test('reminders: defaults 24 h and port 80; local notice interfaces must exist', async () => {
    const reminder = json(await get(h.app, admin, '/api/auth/reminder')).data;
    expect(reminder).toMatchObject({ interval: 24, port: 80, enabled: false });
    const notice = json(await post(h.app, admin, '/api/auth/localnotice', { enabled: true, interfaces: ['wan7'], content: ['Maintenance', 'tonight'] }));
    expect(notice.errors).toEqual({ interfaces: 'validation.network.unknownInterface' });
    expect(json(await post(h.app, admin, '/api/auth/localnotice', { enabled: true, interfaces: ['lan'], content: ['Maintenance', 'tonight'] })).success).toBe(true);
  });
});

describe('visitor role', () => {
  test('reads hotspot configuration but every write is refused with forbidden', async () => {
    const visitor = await addAccount(h, admin, 'viewer', 2);
    const client = await login(h.app, 'viewer', visitor.password);
    expect(json(await get(h.app, client, '/api/auth/tariff')).success).toBe(true);
    for (const [url, body] of [
      ['/api/auth/tariff', plan],
      ['/api/auth/userauth', { action: 'add', username: 'bob', password: 'Secret123', confirm: 'Secret123' }],
      ['/api/auth/userbatch', { prefix: 'v', count: 1, password: 'Guest2025' }],
      ['/api/auth/voucherbatch', { action: 'add', amount: 1, validity: 1 }],
      ['/api/portal/files', { action: 'delete', kind: 'logo' }],
    ] as const) {
      expect(json(await post(h.app, client, url, body)), url).toMatchObject({ success: false, msg: 'forbidden' });
    }
  });
});
