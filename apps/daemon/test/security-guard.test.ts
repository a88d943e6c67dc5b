import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { hostname } from 'node:os';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;
beforeEach(async () => {
  h = await startDaemon({ env: { PORTICO_ALLOWED_HOSTS: 'router.example.net, gw.lan' } });
  admin = await adminClient(h);
});
afterEach(async () => {
  await h.close();
});

describe('CSRF token', () => {
  test('a POST with a session but no token, or a wrong one, is refused', async () => {
    const payload = { lang: 'zh-hans' };
    const missing = await h.app.inject({ method: 'POST', url: '/api/changelang', payload, headers: { cookie: admin.cookie } });
    expect(missing.statusCode).toBe(403);
    expect(json(missing)).toEqual({ success: false, msg: 'msg.csrf' });
    const wrong = await post(h.app, admin, '/api/logout', {}, { 'x-csrf-token': 'x'.repeat(43) });
    expect(wrong.statusCode).toBe(403);
    const short = await post(h.app, admin, '/api/admin', { action: 'add' }, { 'x-csrf-token': 'abc' });
    expect(json(short)).toEqual({ success: false, msg: 'msg.csrf' });
    // The session is still fine: nothing was done.
    expect((await get(h.app, admin, '/api/islogin')).statusCode).toBe(200);
  });

  test('the token of another session does not work', async () => {
    const other = await login(h.app, 'admin', 'Admin2025pass');
    const res = await post(h.app, admin, '/api/logout', {}, { 'x-csrf-token': other.csrf });
    expect(res.statusCode).toBe(403);
  });
});

describe('Origin and Host', () => {
  test('a foreign Origin is refused on API calls', async () => {
    const res = await post(h.app, admin, '/api/logout', {}, { origin: 'https://evil.example' });
    expect(res.statusCode).toBe(403);
    expect(json(res)).toEqual({ success: false, msg: 'msg.csrf' });
    const login = await post(h.app, null, '/api/login', { username: 'admin', password: 'x' }, { origin: 'http://localhost:81' });
    expect(login.statusCode).toBe(403);
    const nullOrigin = await post(h.app, null, '/api/login', { username: 'admin', password: 'x' }, { origin: 'null' });
    expect(nullOrigin.statusCode).toBe(403);
  });

  test('the request own origin is accepted', async () => {
    // inject's default Host is localhost:80.
    const res = await post(h.app, admin, '/api/changelang', { lang: 'en-us' }, { origin: 'http://localhost' });
    expect(json(res).success).toBe(true);
    const withPort = await post(h.app, admin, '/api/changelang', { lang: 'en-us' }, { host: '192.168.11.1:8080', origin: 'http://192.168.11.1:8080' });
    expect(json(withPort).success).toBe(true);
  });

  test('Sec-Fetch-Site: cross-site is refused on API calls, even reads', async () => {
    const res = await get(h.app, admin, '/api/islogin', { 'sec-fetch-site': 'cross-site' });
    expect(res.statusCode).toBe(403);
    expect(json(res).msg).toBe('msg.csrf');
    expect((await get(h.app, admin, '/api/islogin', { 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
  });

  test('unknown Host names are refused; IP literals, localhost, the host name and configured names pass', async () => {
    const refused = await get(h.app, admin, '/api/islogin', { host: 'evil.example' });
    expect(refused.statusCode).toBe(421);
    expect(json(refused).success).toBe(false);
    // DNS rebinding against pages too.
    expect((await get(h.app, null, '/', { host: 'attacker.example' })).statusCode).toBe(421);
    for (const host of ['192.168.11.1', '192.168.11.1:8080', '[::1]:8080', '[fe80::1]', 'localhost:8080', hostname(), 'router.example.net', 'GW.LAN:443']) {
      expect((await get(h.app, admin, '/api/islogin', { host })).statusCode, host).toBe(200);
    }
  });
});

describe('allowed source addresses of an account', () => {
  test('enforced at login without telling why, and on every request', async () => {
    const { password } = await addAccount(h, admin, 'ops', 0, { allowd_ips: ['10.1.0.0/16', '192.168.5.7'] });
    const outside = await h.app
      .inject({ method: 'POST', url: '/api/login', payload: { username: 'ops', password }, remoteAddress: '10.2.0.1' })
      .then(json);
    expect(outside).toEqual({ success: false, msg: 'msg.loginWrong' });

    const ops = await login(h.app, 'ops', password, '10.1.2.3');
    expect((await get(h.app, ops, '/api/islogin')).statusCode).toBe(200);
    // The same cookie from an address outside the list is not a session.
    expect((await get(h.app, { ...ops, ip: '10.9.9.9' }, '/api/islogin')).statusCode).toBe(401);
    expect((await get(h.app, { ...ops, ip: '::ffff:10.1.9.9' }, '/api/islogin')).statusCode).toBe(200);
    expect((await login(h.app, 'ops', password, '192.168.5.7')).csrf).toBeTruthy();

    // Narrowing the list takes effect at once.
    const list = json(await get(h.app, admin, '/api/admin')).data.items as Array<{ id: string; username: string }>;
    const id = list.find((u) => u.username === 'ops')!.id;
    const narrowed = await post(h.app, admin, '/api/admin', { action: 'update', id, allowd_ips: ['192.168.5.7'] });
    expect(json(narrowed).success).toBe(true);
    expect((await get(h.app, ops, '/api/islogin')).statusCode).toBe(401);
  });
});

describe('security headers', () => {
  test('every answer carries CSP, frame, sniffing and referrer headers', async () => {
    for (const res of [await get(h.app, admin, '/api/islogin'), await get(h.app, null, '/api/islogin'), await get(h.app, null, '/')]) {
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    expect((await get(h.app, admin, '/api/islogin')).headers['cache-control']).toBe('no-store');
  });
});
