import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { json, post, type Client, type Harness } from './daemon-harness.js';
import type { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { nameTaken } from '../src/domains/hotspot/hotspot-self-service.js';
import { PORTAL_PAGES } from '../src/domains/hotspot/hotspot-portal.js';
import { localUsers } from '../src/domains/hotspot-config/local-user-store.js';
import { fromClient as from, PORTAL_HOST, portalLogin as loginAt, startHotspotDaemon } from './hotspot-fixture.js';

/**
 * The engine signs clients in against the device's real local users and vouchers (through the
 * daemon's own stores), and the self-service API works on the same accounts.
 */

let h: Harness;
let admin: Client;
let dataplane: SimDataplane;
let portal: FastifyInstance;

beforeEach(async () => {
  ({ h, admin, dataplane, portal } = await startHotspotDaemon());
});
afterEach(async () => {
  await h.close();
});

const portalLogin = (ip: string, body: Record<string, unknown>) => loginAt(portal, ip, body);

describe('sign-in methods against the device stores', () => {
  test('state carries the zone texts as plain text and the configured methods', async () => {
    const state = json(await portal.inject({ method: 'GET', url: '/portal-api/state', ...from('192.168.11.50') }));
    expect(state.success).toBe(true);
    expect(state.data.zone.logintext).toBe('Line one\nLine two');
    expect(state.data.zone.methods).toEqual(['voucher', 'local', 'password']);
    expect(state.data.authorized).toBe(false);
  });

  test('local user: wrong password, right password, usernum, expired account', async () => {
    const user = { action: 'add', username: 'alice', password: 'Secret123', confirm: 'Secret123', usernum: 1, totalflow: 5 };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    expect(await portalLogin('192.168.11.50', { method: 'local', username: 'alice', password: 'Wrong1234' })).toEqual({ success: false, msg: 'portal.error.userOrPassword' });
    const ok = await portalLogin('192.168.11.50', { method: 'local', username: 'alice', password: 'Secret123' });
    expect(ok.success, JSON.stringify(ok)).toBe(true);
    expect(ok.data.bytesRemaining).toBe(5_000_000);
    expect(h.app.hotspot.engine.session('192.168.11.50')).toMatchObject({ kind: 'local', account: 'local:alice' });
    expect([...dataplane.clients.values()].map((c) => c.ip)).toContain('192.168.11.50');
    // A second device over the account's limit of one.
    expect(await portalLogin('192.168.11.51', { method: 'local', username: 'alice', password: 'Secret123' })).toEqual({ success: false, msg: 'portal.error.onlineLimit' });
    const expired = { action: 'add', username: 'bob', password: 'Secret123', confirm: 'Secret123', duetime: '2020-01-01' };
    expect(json(await post(h.app, admin, '/api/auth/userauth', expired)).success).toBe(true);
    expect(await portalLogin('192.168.11.52', { method: 'local', username: 'bob', password: 'Secret123' })).toEqual({ success: false, msg: 'portal.error.expired' });
  });

  test('voucher: a real code signs in, the session is keyed by voucher id not code, a wrong code is refused', async () => {
    const batch = json(await post(h.app, admin, '/api/auth/voucherbatch', { action: 'add', name: 'b1', codelength: 8, amount: 2, validity: 2, unit: 'hours', usernum: 1, plan: '' }));
    expect(batch.success, JSON.stringify(batch)).toBe(true);
    const [code] = batch.data.codes as string[];
    expect(await portalLogin('192.168.11.60', { method: 'voucher', code: 'ZZZZZZZZ' })).toEqual({ success: false, msg: 'portal.error.code' });
    const ok = await portalLogin('192.168.11.60', { method: 'voucher', code });
    expect(ok.success, JSON.stringify(ok)).toBe(true);
    expect(ok.data.secondsRemaining).toBe(7200);
    const session = h.app.hotspot.engine.session('192.168.11.60')!;
    expect(session.account).toMatch(/^voucher:/);
    expect(session.account).not.toContain(code!);
    // The voucher admits one device; another device is refused.
    expect(await portalLogin('192.168.11.61', { method: 'voucher', code })).toEqual({ success: false, msg: 'portal.error.onlineLimit' });
  });

  test('pre-shared password from the portal settings; the guessing limit trips after five failures', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await portalLogin('192.168.11.70', { method: 'password', password: `Nope${i}` })).msg).toBe('portal.error.password');
    }
    expect((await portalLogin('192.168.11.70', { method: 'password', password: 'Shared2025' })).msg).toBe('portal.error.tooMany');
    const ok = await portalLogin('192.168.11.71', { method: 'password', password: 'Shared2025' });
    expect(ok.success).toBe(true);
    expect(ok.data.secondsRemaining).toBe(86_400);
  });
});

describe('self-service API', () => {
  const cookieOf = (res: { cookies: Array<{ name: string; value: string }> }) => {
    const cookie = res.cookies.find((c) => c.name === 'portico_portal_user');
    return cookie ? `portico_portal_user=${cookie.value}` : '';
  };

  test('register, sign in (HttpOnly cookie), me, change password, logout', async () => {
    const reg = await portal.inject({ method: 'POST', url: '/portal-api/user/register', payload: { username: 'carol', password: 'Carol2025', tel: '13800000000' }, ...from('192.168.11.80') });
    expect(json(reg)).toEqual({ success: true, data: {} });
    expect(localUsers(h.app.appContext).byUsername('carol')).toMatchObject({ type: 'portal', usernum: 1, tel: '13800000000' });
    const again = await portal.inject({ method: 'POST', url: '/portal-api/user/register', payload: { username: 'CAROL', password: 'Carol2025' }, ...from('192.168.11.80') });
    expect(json(again)).toEqual({ success: false, msg: 'portal.error.userExists' });
    const weak = await portal.inject({ method: 'POST', url: '/portal-api/user/register', payload: { username: 'dave', password: 'x' }, ...from('192.168.11.80') });
    expect(json(weak)).toMatchObject({ success: false, errors: { password: expect.stringMatching(/^validation\./) } });

    const signIn = await portal.inject({ method: 'POST', url: '/portal-api/user/login', payload: { username: 'carol', password: 'Carol2025' }, ...from('192.168.11.80') });
    expect(json(signIn)).toEqual({ success: true, data: { username: 'carol', plan: '', duetime: '', totalflow: 0, usedflow: 0, usernum: 1 } });
    const header = String(signIn.headers['set-cookie']);
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Strict');
    const cookie = cookieOf(signIn);

    const me = await portal.inject({ method: 'GET', url: '/portal-api/user/me', remoteAddress: '192.168.11.80', headers: { ...PORTAL_HOST, cookie } });
    expect(json(me).data.username).toBe('carol');
    // The cookie is bound to the address it was issued to.
    const elsewhere = await portal.inject({ method: 'GET', url: '/portal-api/user/me', remoteAddress: '192.168.11.81', headers: { ...PORTAL_HOST, cookie } });
    expect(json(elsewhere).success).toBe(false);

    const wrongOld = await portal.inject({ method: 'POST', url: '/portal-api/user/cpwd', payload: { oldPassword: 'Nope12345', newPassword: 'Carol2026' }, remoteAddress: '192.168.11.80', headers: { ...PORTAL_HOST, cookie } });
    expect(json(wrongOld)).toMatchObject({ success: false, errors: { oldPassword: 'portal.error.password' } });
    const cpwd = await portal.inject({ method: 'POST', url: '/portal-api/user/cpwd', payload: { oldPassword: 'Carol2025', newPassword: 'Carol2026' }, remoteAddress: '192.168.11.80', headers: { ...PORTAL_HOST, cookie } });
    expect(json(cpwd).success).toBe(true);
    expect(await localUsers(h.app.appContext).verifyLocalUser('carol', 'Carol2026')).not.toBeNull();

    const out = await portal.inject({ method: 'POST', url: '/portal-api/user/logout', remoteAddress: '192.168.11.80', headers: { ...PORTAL_HOST, cookie } });
    expect(json(out).success).toBe(true);
    const after = await portal.inject({ method: 'GET', url: '/portal-api/user/me', remoteAddress: '192.168.11.80', headers: { ...PORTAL_HOST, cookie } });
    expect(json(after).success).toBe(false);
  });

  test('me reports the traffic the account used on the network', async () => {
    const user = { action: 'add', username: 'erin', password: 'Secret123', confirm: 'Secret123', totalflow: 10 };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    expect((await portalLogin('192.168.11.90', { method: 'local', username: 'erin', password: 'Secret123' })).success).toBe(true);
    dataplane.addTraffic('192.168.11.90', 1000, 2500);
    await h.app.hotspot.engine.tick();
    const signIn = await portal.inject({ method: 'POST', url: '/portal-api/user/login', payload: { username: 'erin', password: 'Secret123' }, ...from('192.168.11.90') });
    expect(json(signIn).data).toMatchObject({ totalflow: 10_000_000, usedflow: 3500 });
  });

  test('sign-in failures count towards the guessing limit', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await portal.inject({ method: 'POST', url: '/portal-api/user/login', payload: { username: 'nobody', password: `Bad${i}` }, ...from('192.168.11.95') });
      expect(json(res).msg).toBe('portal.error.userOrPassword');
    }
    const locked = await portal.inject({ method: 'POST', url: '/portal-api/user/login', payload: { username: 'nobody', password: 'Bad' }, ...from('192.168.11.95') });
    expect(json(locked).msg).toBe('portal.error.tooMany');
  });

  test('a name that is a batch prefix of existing accounts is taken', () => {
    const users = [{ username: 'guest007' }, { username: 'Alice' }] as never;
    expect(nameTaken('guest', users)).toBe(true);
    expect(nameTaken('alice', users)).toBe(true);
    expect(nameTaken('guests', users)).toBe(false);
  });
});

describe('portal pages', () => {
  test('every public portal route is served by the portal listener', () => {
    for (const page of ['/auth', '/notice', '/terminal', '/terminal/user', '/terminal/user/login', '/terminal/user/register', '/terminal/user/cpwd', '/terminal/user/mgr', '/terminal/user/mgrsuc', '/user', '/user/login', '/user/mgr']) {
      expect(PORTAL_PAGES).toContain(page);
    }
  });

  test('pages, API answers, redirects and errors carry the console security headers', async () => {
    const answers = await Promise.all([
      portal.inject({ method: 'GET', url: '/auth/portal', ...from('192.168.11.20') }),
      portal.inject({ method: 'GET', url: '/portal-api/state', ...from('192.168.11.20') }),
      portal.inject({ method: 'POST', url: '/portal-api/login', payload: { method: 'voucher', code: 'NOPE', acceptTerms: true }, ...from('192.168.11.20') }),
      portal.inject({ method: 'POST', url: '/portal-api/user/login', payload: { username: 'x', password: 'y' }, ...from('192.168.11.20') }),
      portal.inject({ method: 'GET', url: '/portal-api/none', ...from('192.168.11.20') }),
      portal.inject({ method: 'GET', url: '/', remoteAddress: '192.168.11.20', headers: { host: 'example.org' } }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([503, 200, 200, 200, 404, 302]);
    for (const answer of answers) {
      const csp = String(answer.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  test('a client no service zone covers is told sign-in is not set up for it', async () => {
    const state = await portal.inject({ method: 'GET', url: '/portal-api/state', ...from('10.99.0.5') });
    expect(json(state)).toEqual({ success: false, msg: 'portal.error.notConfigured' });
    expect(await portalLogin('10.99.0.5', { method: 'voucher', code: 'ABCD' })).toEqual({ success: false, msg: 'portal.error.notConfigured' });
  });
});
