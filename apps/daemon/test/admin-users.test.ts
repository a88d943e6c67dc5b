import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;
beforeEach(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterEach(async () => {
  await h.close();
});

type Row = { id: string; username: string; privilege: number; disabled: boolean; allowd_ips: string[] };
const list = async (query = ''): Promise<{ items: Row[]; total: number }> => json(await get(h.app, admin, `/api/admin${query}`)).data;
const write = (payload: object) => post(h.app, admin, '/api/admin', payload).then(json);
const builtinId = async () => (await list()).items.find((u) => u.username === 'admin')!.id;

describe('admin users: reads', () => {
  test('the built-in admin shows enabled with privilege 0; no password field is ever returned', async () => {
    await addAccount(h, admin, 'alice', 1);
    const res = await get(h.app, admin, '/api/admin?_=5');
    expect(res.body).not.toMatch(/password|scrypt|confirm|hash/i);
    const data = json(res).data;
    expect(data.total).toBe(2);
    expect(data.items).toContainEqual({ id: expect.any(String), username: 'admin', disabled: false, privilege: 0, allowd_ips: [] });
    const got = await write({ action: 'get', id: data.items[0].id });
    expect(got.success).toBe(true);
    expect(Object.keys(got.data).sort()).toEqual(['allowd_ips', 'disabled', 'id', 'privilege', 'username']);
  });

  test('paging, sorting and filtering', async () => {
    for (const name of ['carol', 'bob', 'dave', 'erin']) await addAccount(h, admin, name, name === 'bob' ? 2 : 1);
    const names = (rows: Row[]) => rows.map((r) => r.username);
    expect(names((await list()).items)).toEqual(['admin', 'bob', 'carol', 'dave', 'erin']);
    expect(names((await list('?sort=username&order=desc')).items)).toEqual(['erin', 'dave', 'carol', 'bob', 'admin']);
    const page = await list('?page=2&pageSize=2');
    expect(page).toMatchObject({ total: 5 });
    expect(names(page.items)).toEqual(['carol', 'dave']);
    expect(names((await list('?q=AR')).items)).toEqual(['carol']);
    expect(names((await list('?privilege=1')).items)).toEqual(['carol', 'dave', 'erin']);
    expect(json(await get(h.app, admin, '/api/admin?sort=password'))).toEqual({ success: false, msg: 'msg.reviewFields', errors: { sort: 'validation.option' } });
    expect(json(await get(h.app, admin, '/api/admin?pageSize=0')).errors).toEqual({ pageSize: 'validation.tooSmall' });
  });
});

describe('admin users: writes', () => {
  test('add validates every field and reports errors per field', async () => {
    const bad = await write({ action: 'add', username: 'bad name', password: 'short', confirm: 'other', privilege: 7, allowd_ips: ['1.2.3.999'] });
    expect(bad).toEqual({
      success: false,
      msg: 'msg.reviewFields',
      errors: {
        username: 'validation.username.chars',
        password: 'validation.password.length',
        privilege: 'validation.option',
        allowd_ips: 'validation.accessIp',
      },
    });
    // Cross-field rules run once the fields themselves are valid.
    expect((await write({ action: 'add', username: 'zed', password: 'Zed12345', confirm: 'Zed12346', privilege: 1 })).errors).toEqual({
      confirm: 'validation.password.mismatch',
    });
    const unknown = await write({ action: 'add', username: 'zed', password: 'Zed12345', confirm: 'Zed12345', privilege: 1, role: 'x' });
    expect(unknown.success).toBe(false);
    expect(unknown.errors).toBeDefined();
    const fine = await write({ action: 'add', username: 'zed', password: 'Zed12345', confirm: 'Zed12345', privilege: 1 });
    expect(fine).toMatchObject({ success: true, data: { username: 'zed', privilege: 1, disabled: false, allowd_ips: [] } });
    expect(fine.data.password).toBeUndefined();
  });

  test('usernames are unique, whatever the letter case', async () => {
    await addAccount(h, admin, 'alice', 1);
    for (const username of ['alice', 'ALICE', 'admin']) {
      expect(await write({ action: 'add', username, password: 'Pass12345', confirm: 'Pass12345', privilege: 1 })).toEqual({
        success: false,
        msg: 'msg.reviewFields',
        errors: { username: 'validation.nameExists' },
      });
    }
    // Parallel adds of one name: exactly one wins.
    const results = await Promise.all(
      [1, 2, 3].map(() => write({ action: 'add', username: 'twin', password: 'Pass12345', confirm: 'Pass12345', privilege: 2 })),
    );
    expect(results.filter((r) => r.success).length).toBe(1);
    expect(results.filter((r) => r.errors?.username === 'validation.nameExists').length).toBe(2);
  });

  test('update keeps the password when sent empty and cannot rename', async () => {
    const { id, password } = await addAccount(h, admin, 'bob', 1);
    const updated = await write({ action: 'update', id, username: 'robert', password: '', confirm: '', privilege: 2, disabled: false, allowd_ips: [] });
    expect(updated).toMatchObject({ success: true, data: { id, username: 'bob', privilege: 2 } });
    expect((await login(h.app, 'bob', password)).csrf).toBeTruthy();
    // Default action is update.
    expect((await write({ id, privilege: 1 })).data.privilege).toBe(1);
    expect(await write({ action: 'update', id: 'missing', privilege: 1 })).toEqual({ success: false, msg: 'msg.notFound' });
    expect((await write({ action: 'update', privilege: 1 })).errors).toEqual({ id: 'validation.required' });
    expect((await write({ action: 'update', id, password: 'NewPass123', confirm: '' })).errors).toEqual({ confirm: 'validation.password.mismatch' });
  });

  test('the built-in admin cannot be deleted, disabled or given another privilege', async () => {
    const id = await builtinId();
    const { password } = await addAccount(h, admin, 'ops', 0);
    const ops = await login(h.app, 'ops', password);
    const as = (payload: object) => post(h.app, ops, '/api/admin', payload).then(json);
    expect(await as({ action: 'delete', id })).toEqual({ success: false, msg: 'msg.builtinAdmin' });
    expect(await as({ action: 'delete', ids: [id] })).toEqual({ success: false, msg: 'msg.builtinAdmin' });
    expect(await as({ action: 'update', id, disabled: true })).toEqual({ success: false, msg: 'msg.builtinAdmin' });
    expect(await as({ action: 'update', id, privilege: 2 })).toEqual({ success: false, msg: 'msg.builtinAdmin' });
    expect((await as({ action: 'update', id, allowd_ips: ['127.0.0.1'] })).success).toBe(true);
  });

  test('an account cannot delete or disable itself', async () => {
    const { id, password } = await addAccount(h, admin, 'ops', 0);
    const ops = await login(h.app, 'ops', password);
    const as = (payload: object) => post(h.app, ops, '/api/admin', payload).then(json);
    expect(await as({ action: 'delete', id })).toEqual({ success: false, msg: 'msg.selfAccount' });
    expect(await as({ action: 'update', id, disabled: true })).toEqual({ success: false, msg: 'msg.selfAccount' });
    expect((await get(h.app, ops, '/api/islogin')).statusCode).toBe(200);
  });

  test('disabling, deleting or setting a password signs the account out everywhere', async () => {
    const bob = await addAccount(h, admin, 'bob', 1);
    const carol = await addAccount(h, admin, 'carol', 2);
    const dave = await addAccount(h, admin, 'dave', 0);

    const bobSession = await login(h.app, 'bob', bob.password);
    expect((await write({ action: 'update', id: bob.id, disabled: true })).success).toBe(true);
    expect((await get(h.app, bobSession, '/api/islogin')).statusCode).toBe(401);
    expect(await h.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'bob', password: bob.password } }).then(json)).toEqual({
      success: false,
      msg: 'msg.loginWrong',
    });

    const carolSession = await login(h.app, 'carol', carol.password);
    expect((await write({ action: 'update', id: carol.id, password: 'Fresh1234', confirm: 'Fresh1234' })).success).toBe(true);
    expect((await get(h.app, carolSession, '/api/islogin')).statusCode).toBe(401);
    expect((await login(h.app, 'carol', 'Fresh1234')).csrf).toBeTruthy();

    const daveSession = await login(h.app, 'dave', dave.password);
    expect((await write({ action: 'delete', ids: [dave.id, carol.id] })).success).toBe(true);
    expect((await get(h.app, daveSession, '/api/islogin')).statusCode).toBe(401);
    expect((await list()).items.map((u) => u.username).sort()).toEqual(['admin', 'bob']);
    expect(await write({ action: 'delete', id: dave.id })).toEqual({ success: false, msg: 'msg.notFound' });
  });

  test('changing the built-in admin password through the list keeps the caller signed in', async () => {
    const id = await builtinId();
    expect((await write({ action: 'update', id, password: 'Other12345', confirm: 'Other12345' })).success).toBe(true);
    expect((await get(h.app, admin, '/api/islogin')).statusCode).toBe(200);
    expect((await login(h.app, 'admin', 'Other12345')).csrf).toBeTruthy();
    expect(existsSync(join(h.stateDir, 'initial-admin-password'))).toBe(false);
  });

  test('maxRows bounds the number of accounts', async () => {
    const db = h.app.appContext.db;
    const insert = db.prepare(
      "INSERT INTO admin_users (id, username, password_hash, privilege, created_at, updated_at) VALUES (?, ?, 'x', 2, 0, 0)",
    );
    for (let i = 1; i < 64; i++) insert.run(`bulk-${i}`, `bulk${i}`);
    expect(await write({ action: 'add', username: 'onemore', password: 'Pass12345', confirm: 'Pass12345', privilege: 2 })).toEqual({
      success: false,
      msg: 'msg.maxRows',
    });
  });

  test('unknown actions are refused', async () => {
    expect(await write({ action: 'explode' })).toEqual({ success: false, msg: 'msg.reviewFields', errors: { action: 'validation.option' } });
  });
});
