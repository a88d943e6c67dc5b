import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rmSync } from 'node:fs';
import { pagePermission, permits, roleOf, type RoleName } from '@portico/schema';
import { buildApp } from '../src/app.js';
import { policyPermission } from '../src/plugins/security-guard.js';
import type { RouteEntry } from '../src/plugins/route-policy.js';
import { readSettings } from '../src/settings.js';
import { addAccount, adminClient, CountingHasher, get, json, login, post, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
const passwords: Record<RoleName, string> = { manager: '', voucherAdmin: '', guest: '' };
const usernames: Record<RoleName, string> = { manager: 'mgr', voucherAdmin: 'voucher', guest: 'visitor' };
const ROLE_NAMES: RoleName[] = ['manager', 'voucherAdmin', 'guest'];

beforeAll(async () => {
  h = await startDaemon();
  const admin = await adminClient(h);
  passwords.manager = (await addAccount(h, admin, usernames.manager, 0)).password;
  passwords.voucherAdmin = (await addAccount(h, admin, usernames.voucherAdmin, 1)).password;
  passwords.guest = (await addAccount(h, admin, usernames.guest, 2)).password;
});
afterAll(async () => {
  await h.close();
});

/** A fresh session per call: some routes (logout) end the one they are called with. */
const signIn = (role: RoleName): Promise<Client> => login(h.app, usernames[role], passwords[role]);

function fakeAuth(role: RoleName) {
  return { role } as Parameters<typeof policyPermission>[0];
}

// The firmware image route answers only a link the daemon signed for one device, until it expires.
const PUBLIC_ROUTES = ['GET /*', 'GET /api/ac/firmware/image/:sha256', 'GET /api/changelang', 'POST /api/changelang', 'POST /api/login', 'POST /api/sysconf/confirm'];

describe('every route declares who may call it', () => {
  test('each registered route has a policy, or is one of the known public routes', () => {
    const table: RouteEntry[] = h.app.routeTable;
    expect(table.length).toBeGreaterThan(10);
    for (const route of table) {
      const key = `${route.method} ${route.url}`;
      if (route.public) expect(PUBLIC_ROUTES, key).toContain(key);
      else expect(route.policy, key).toBeDefined();
    }
    expect(table.filter((r) => r.public).map((r) => `${r.method} ${r.url}`).sort()).toEqual(PUBLIC_ROUTES);
  });

  test('a route added without a policy stops the daemon from starting', async () => {
    const stateDir = tempDir();
    const settings = readSettings({ PORTICO_STATE_DIR: stateDir, PORTICO_LOG_LEVEL: 'silent' });
    const app = await buildApp(settings, { passwords: new CountingHasher(), announce: () => undefined });
    expect(() => app.get('/api/unguarded', async () => ({ success: true }))).toThrow(/declares neither config.policy nor config.public/);
    await app.close().catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('a policy naming an unknown module stops the daemon from starting', async () => {
    const stateDir = tempDir();
    const settings = readSettings({ PORTICO_STATE_DIR: stateDir, PORTICO_LOG_LEVEL: 'silent' });
    const app = await buildApp(settings, { passwords: new CountingHasher(), announce: () => undefined });
    expect(() =>
      app.get('/api/typo', { config: { policy: { module: 'usermanagment', effect: 'read' } } }, async () => ({ success: true })),
    ).toThrow(/unknown module "usermanagment"/);
    await app.close().catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  });
});

describe('every POST route, for every role', () => {
  test('manager passes, voucher admin per its pages, visitor always gets forbidden', async () => {
    const writes = h.app.routeTable.filter((r) => r.method === 'POST' && r.policy);
    expect(writes.map((r) => r.url)).toEqual(expect.arrayContaining(['/api/admin', '/api/changepwd', '/api/logout']));
    for (const route of writes) {
      const policy = route.policy!;
      for (const role of ROLE_NAMES) {
        const allowed = permits(policyPermission(fakeAuth(role), policy), policy.effect);
        const client = await signIn(role);
        const res = await post(h.app, client, route.url, {});
        const label = `${role} POST ${route.url}`;
        expect(res.statusCode, label).toBe(200);
        if (allowed) expect(json(res), label).not.toEqual({ success: false, msg: 'forbidden' });
        else expect(json(res), label).toEqual({ success: false, msg: 'forbidden' });
        if (role === 'manager') expect(allowed, label).toBe(true);
        // Visitors may only sign out and change their own password.
        if (role === 'guest') expect(allowed, label).toBe(policy.module === 'session');
        if (role === 'voucherAdmin') {
          const modules = typeof policy.module === 'string' ? [policy.module] : policy.module;
          expect(allowed, label).toBe(modules.some((m) => permits(pagePermission('voucherAdmin', m), policy.effect)));
        }
      }
    }
    // One sign-in per route and role (a route may end the session): time grows with the route count.
  }, 120_000);

  test('a visitor may read what its role allows but writes nothing, including add/delete/update actions', async () => {
    const guest = await signIn('guest');
    expect(json(await get(h.app, guest, '/api/admin')).success).toBe(true);
    for (const action of ['add', 'update', 'delete', undefined]) {
      expect(json(await post(h.app, guest, '/api/admin', { action, id: 'x', username: 'x' })), String(action)).toEqual({
        success: false,
        msg: 'forbidden',
      });
    }
    // Reading one record through POST action=get is a read.
    const id = json(await get(h.app, guest, '/api/admin')).data.items[0].id;
    expect(json(await post(h.app, guest, '/api/admin', { action: 'get', id })).success).toBe(true);
  });
});

describe('every GET route, for every role', () => {
  test('reads follow the page permissions of the role', async () => {
    const reads = h.app.routeTable.filter((r) => r.method === 'GET' && r.policy);
    for (const route of reads) {
      for (const role of ROLE_NAMES) {
        const allowed = permits(policyPermission(fakeAuth(role), route.policy!), 'read');
        const res = await get(h.app, await signIn(role), `${route.url}?_=1`);
        const label = `${role} GET ${route.url}`;
        expect(res.statusCode, label).toBe(200);
        if (allowed) expect(res.json(), label).not.toEqual({ success: false, msg: 'forbidden' });
        else expect(res.json(), label).toEqual({ success: false, msg: 'forbidden' });
      }
    }
  }, 120_000);

  test('the privilege is read on every request: a demotion applies at once', async () => {
    const mgr = await signIn('manager');
    const admin = await login(h.app, 'admin', 'Admin2025pass');
    const id = json(await get(h.app, admin, '/api/admin')).data.items.find((u: { username: string }) => u.username === 'mgr').id;
    expect(json(await post(h.app, mgr, '/api/admin', { action: 'update', id: 'nope' })).msg).toBe('msg.notFound');
    expect(json(await post(h.app, admin, '/api/admin', { action: 'update', id, privilege: 2 })).success).toBe(true);
    expect(json(await post(h.app, mgr, '/api/admin', { action: 'update', id: 'nope' }))).toEqual({ success: false, msg: 'forbidden' });
    expect(roleOf(2)).toBe('guest');
    expect(json(await post(h.app, admin, '/api/admin', { action: 'update', id, privilege: 0 })).success).toBe(true);
  });
});
