import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_PASSWORD, adminClient, get, json, login, post, startDaemon, type Harness } from './daemon-harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startDaemon({ env: { PORTICO_SESSION_IDLE: '1800', PORTICO_SESSION_MAX: '43200' } });
});
afterEach(async () => {
  await h.close();
});

describe('envelope and session basics', () => {
  test('reads answer { success, data } and ignore the _ timestamp', async () => {
    const admin = await adminClient(h);
    const res = await get(h.app, admin, `/api/islogin?_=${Date.now()}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const body = json(res);
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({ username: 'admin', privilege: 0, role: 'manager', mustChangePassword: false, lang: 'en-US' });
    expect(body.data.csrf).toBe(admin.csrf);
    expect(body.data.capabilities).toEqual(expect.arrayContaining(['gateway', 'nas', 'vlan', 'qrcode', 'cmcc', 'wifidog', 'phtunnel']));
  });

  test('writes default to action update and also accept _', async () => {
    const admin = await adminClient(h);
    const res = await post(h.app, admin, '/api/changelang?_=123', { lang: 'zh-hans' });
    expect(json(res)).toMatchObject({ success: true, data: { lang: 'zh-CN' } });
  });

  test('without a session protected routes answer HTTP 401 unauthorized', async () => {
    for (const url of ['/api/islogin', '/api/menu', '/api/admin', '/api/dashboard', '/api/logout', '/api/openapi.json']) {
      const res = await get(h.app, null, `${url}?_=1`);
      expect(res.statusCode, url).toBe(401);
      expect(json(res), url).toEqual({ success: false, msg: 'unauthorized' });
    }
    const write = await post(h.app, null, '/api/admin', { action: 'add' });
    expect(write.statusCode).toBe(401);
    const forged = await get(h.app, null, '/api/islogin', { cookie: 'portico_sid=' + 'A'.repeat(43) });
    expect(forged.statusCode).toBe(401);
  });

  test('unknown API paths answer a JSON 404', async () => {
    const res = await get(h.app, null, '/api/no-such-thing');
    expect(res.statusCode).toBe(404);
    expect(json(res)).toEqual({ success: false, msg: 'msg.notFound' });
  });

  test('invalid JSON and non-JSON bodies are refused', async () => {
    const admin = await adminClient(h);
    const broken = await h.app.inject({
      method: 'POST',
      url: '/api/changelang',
      payload: '{not json',
      headers: { 'content-type': 'application/json', cookie: admin.cookie, 'x-csrf-token': admin.csrf },
    });
    expect(broken.statusCode).toBe(400);
    expect(json(broken).success).toBe(false);
    const text = await h.app.inject({ method: 'POST', url: '/api/login', payload: 'username=admin', headers: { 'content-type': 'text/plain' } });
    expect(text.statusCode).toBe(415);
  });
});

describe('login', () => {
  test('success sets an HttpOnly, SameSite=Strict session cookie and returns the profile', async () => {
    const res = await post(h.app, null, '/api/login', { username: 'admin', password: h.initialPassword });
    const body = json(res);
    expect(body).toMatchObject({
      success: true,
      data: { username: 'admin', privilege: 0, role: 'manager', mustChangePassword: true, lang: 'en-US' },
    });
    expect(body.data.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = res.cookies.find((c) => c.name === 'portico_sid')!;
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Strict');
    expect(cookie.path).toBe('/');
    // Plain HTTP: no Secure flag (the browser would drop the cookie); HTTPS adds it and __Host-.
    expect(cookie.secure).toBeFalsy();
    expect(String(res.headers['set-cookie'])).not.toMatch(/Domain=/i);
  });

  test('the session id is stored hashed, never as sent', async () => {
    const client = await login(h.app, 'admin', h.initialPassword!);
    const raw = client.cookie.split('=')[1]!;
    const rows = h.app.appContext.db.prepare('SELECT id_hash FROM sessions').all() as Array<{ id_hash: string }>;
    expect(rows.length).toBe(1);
    expect(rows[0]!.id_hash).not.toContain(raw);
    expect(rows[0]!.id_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('empty fields answer msg.loginRequired', async () => {
    for (const payload of [{}, { username: 'admin' }, { password: 'x' }, { username: '  ', password: 'abc' }]) {
      expect(json(await post(h.app, null, '/api/login', payload))).toEqual({ success: false, msg: 'msg.loginRequired' });
    }
    expect(h.hasher.verifications).toBe(0);
  });

  test('wrong password and unknown user answer the same msg.loginWrong', async () => {
    expect(json(await post(h.app, null, '/api/login', { username: 'admin', password: 'wrongPass1' }))).toEqual({
      success: false,
      msg: 'msg.loginWrong',
    });
    expect(json(await post(h.app, null, '/api/login', { username: 'nobody', password: 'wrongPass1' }))).toEqual({
      success: false,
      msg: 'msg.loginWrong',
    });
    // The unknown name is checked against a decoy hash, so timing does not tell names apart.
    expect(h.hasher.verifications).toBe(2);
  });

  test('a new session id at every login; the id presented before login is revoked', async () => {
    const first = await login(h.app, 'admin', h.initialPassword!);
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'admin', password: h.initialPassword },
      headers: { cookie: first.cookie },
    });
    const second = res.cookies.find((c) => c.name === 'portico_sid')!.value;
    expect(`portico_sid=${second}`).not.toBe(first.cookie);
    expect((await get(h.app, first, '/api/islogin')).statusCode).toBe(401);
    expect((await get(h.app, { ...first, cookie: `portico_sid=${second}` }, '/api/islogin')).statusCode).toBe(200);
  });
});

describe('logout and timeouts', () => {
  test('GET and POST logout revoke the session and clear the cookie', async () => {
    const a = await login(h.app, 'admin', h.initialPassword!);
    const out = await get(h.app, a, '/api/logout');
    expect(json(out)).toEqual({ success: true });
    const cleared = out.cookies.find((c) => c.name === 'portico_sid')!;
    expect(cleared.value).toBe('');
    expect((await get(h.app, a, '/api/islogin')).statusCode).toBe(401);

    const b = await login(h.app, 'admin', h.initialPassword!);
    expect(json(await post(h.app, b, '/api/logout'))).toEqual({ success: true });
    expect((await get(h.app, b, '/api/islogin')).statusCode).toBe(401);
  });

  test('idle timeout ends a session left unused; use keeps it alive', async () => {
    const client = await login(h.app, 'admin', h.initialPassword!);
    h.clock.advance(1700);
    expect((await get(h.app, client, '/api/islogin')).statusCode).toBe(200);
    h.clock.advance(1700);
    expect((await get(h.app, client, '/api/islogin')).statusCode).toBe(200);
    h.clock.advance(1801);
    expect((await get(h.app, client, '/api/islogin')).statusCode).toBe(401);
  });

  test('absolute timeout ends a session however busy', async () => {
    const client = await login(h.app, 'admin', h.initialPassword!);
    for (let elapsed = 0; elapsed < 43200 - 1500; elapsed += 1500) {
      h.clock.advance(1500);
      expect((await get(h.app, client, '/api/islogin')).statusCode).toBe(200);
    }
    h.clock.advance(1600);
    expect((await get(h.app, client, '/api/islogin')).statusCode).toBe(401);
  });
});

describe('password change', () => {
  test('until the password is changed only the shell routes answer', async () => {
    const client = await login(h.app, 'admin', h.initialPassword!);
    for (const url of ['/api/dashboard', '/api/admin', '/api/status/netif']) {
      expect(json(await get(h.app, client, url)), url).toEqual({ success: false, msg: 'msg.changePassword' });
    }
    expect(json(await post(h.app, client, '/api/admin', { action: 'add' }))).toEqual({ success: false, msg: 'msg.changePassword' });
    expect(json(await get(h.app, client, '/api/islogin')).success).toBe(true);
    expect(json(await get(h.app, client, '/api/menu')).success).toBe(true);
    expect(json(await get(h.app, null, '/api/changelang')).success).toBe(true);
    expect(json(await post(h.app, client, '/api/changelang', { lang: 'en-us' })).success).toBe(true);
  });

  test('rules and errors land on the right field', async () => {
    const client = await login(h.app, 'admin', h.initialPassword!);
    const change = (payload: object) => post(h.app, client, '/api/changepwd', payload).then(json);
    expect(await change({ oldpassword: 'Wrong12345', password: 'NewPass123', confirm: 'NewPass123' })).toEqual({
      success: false,
      msg: 'msg.reviewFields',
      errors: { oldpassword: 'validation.password.wrong' },
    });
    expect(await change({ oldpassword: h.initialPassword, password: h.initialPassword, confirm: h.initialPassword })).toEqual({
      success: false,
      msg: 'msg.reviewFields',
      errors: { password: 'validation.password.same' },
    });
    const short = await change({ oldpassword: h.initialPassword, password: 'Ab1', confirm: 'Ab1' });
    expect(short.errors).toEqual({ password: 'validation.password.length' });
    const symbols = await change({ oldpassword: h.initialPassword, password: 'Abc!12345', confirm: 'Abc!12345' });
    expect(symbols.errors).toEqual({ password: 'validation.password.chars' });
    const mismatch = await change({ oldpassword: h.initialPassword, password: 'NewPass123', confirm: 'NewPass124' });
    expect(mismatch.errors).toEqual({ confirm: 'validation.password.mismatch' });
    const missing = await change({ password: 'NewPass123', confirm: 'NewPass123' });
    expect(missing.errors).toEqual({ oldpassword: 'validation.required' });
  });

  test('success revokes every session, issues a fresh one and clears the gate', async () => {
    const other = await login(h.app, 'admin', h.initialPassword!, '127.0.0.2');
    const client = await login(h.app, 'admin', h.initialPassword!);
    const res = await post(h.app, client, '/api/changepwd', { oldpassword: h.initialPassword, password: ADMIN_PASSWORD, confirm: ADMIN_PASSWORD });
    const body = json(res);
    expect(body.success).toBe(true);
    expect(body.data.csrf).not.toBe(client.csrf);
    const fresh = res.cookies.find((c) => c.name === 'portico_sid')!.value;
    expect(`portico_sid=${fresh}`).not.toBe(client.cookie);

    expect((await get(h.app, client, '/api/islogin')).statusCode).toBe(401);
    expect((await get(h.app, other, '/api/islogin')).statusCode).toBe(401);
    const next = { ...client, cookie: `portico_sid=${fresh}`, csrf: body.data.csrf };
    const profile = json(await get(h.app, next, '/api/islogin'));
    expect(profile.data.mustChangePassword).toBe(false);
    expect(json(await get(h.app, next, '/api/dashboard')).success).toBe(true);
    expect(existsSync(join(h.stateDir, 'initial-admin-password'))).toBe(false);
    // The old password no longer signs in; the new one does.
    expect(json(await post(h.app, null, '/api/login', { username: 'admin', password: h.initialPassword })).msg).toBe('msg.loginWrong');
    expect((await login(h.app, 'admin', ADMIN_PASSWORD)).csrf).toBeTruthy();
  });
});

describe('language', () => {
  test('GET changelang lists the languages and the hidden flag', async () => {
    expect(json(await get(h.app, null, '/api/changelang', { 'accept-language': 'zh-TW,zh;q=0.9' }))).toEqual({
      success: true,
      data: { lang: 'zh-TW', languages: ['zh-CN', 'zh-TW', 'en-US'], hidden: false },
    });
  });

  test('POST changelang maps spec codes, sets the cookie, and with a session the account language', async () => {
    const anonymous = await post(h.app, null, '/api/changelang', { lang: 'zh-hant' });
    expect(json(anonymous).data.lang).toBe('zh-TW');
    const cookie = anonymous.cookies.find((c) => c.name === 'portico_lang')!;
    expect(cookie.value).toBe('zh-TW');
    expect(json(await post(h.app, null, '/api/changelang', { lang: 'klingon' }))).toEqual({
      success: false,
      msg: 'msg.reviewFields',
      errors: { lang: 'validation.option' },
    });

    const admin = await adminClient(h);
    expect(json(await post(h.app, admin, '/api/changelang', { lang: 'zh-hans' })).data.lang).toBe('zh-CN');
    expect(json(await get(h.app, admin, '/api/islogin')).data.lang).toBe('zh-CN');
    // The account keeps its language on a later sign-in from another browser.
    const again = await login(h.app, 'admin', ADMIN_PASSWORD);
    expect(json(await get(h.app, again, '/api/islogin')).data.lang).toBe('zh-CN');
  });

  test('hidden_language capability is reported', async () => {
    const hidden = await startDaemon({ env: { PORTICO_CAPABILITIES: 'gateway hidden_language' } });
    expect(json(await get(hidden.app, null, '/api/changelang')).data.hidden).toBe(true);
    await hidden.close();
  });
});
