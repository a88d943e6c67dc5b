import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { SimReminderRedirect } from '../src/domains/hotspot/hotspot-reminder.js';

/**
 * The local notice and the expiry reminder as a client of the portal sees them: the local
 * notice only on the zones of its interfaces, the reminder once, then the page it asked for.
 */

const PORTAL_HOST = { host: '192.168.11.1:2050' };
const GUEST = '192.168.11.50';
let h: Harness;
let admin: Client;
let dataplane: SimDataplane;
let reminders: SimReminderRedirect;
let portal: FastifyInstance;

beforeEach(async () => {
  dataplane = new SimDataplane();
  reminders = new SimReminderRedirect();
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane, reminders } } });
  admin = await adminClient(h);
  portal = h.app.hotspot.portal;
  const zone = { action: 'add', name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' };
  expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
  const read = json(await get(h.app, admin, '/api/portal')).data;
  expect(json(await post(h.app, admin, '/api/portal', { ...read, methods: ['local'] })).success).toBe(true);
});
afterEach(async () => {
  await h.close();
});

async function saveSingleton(path: string, changes: Record<string, unknown>) {
  const read = json(await get(h.app, admin, path)).data;
  const saved = json(await post(h.app, admin, path, { ...read, ...changes }));
  expect(saved.success, JSON.stringify(saved)).toBe(true);
}

const fromClient = (ip: string, host = PORTAL_HOST.host) => ({ remoteAddress: ip, headers: { host } });

describe('local notice', () => {
  test("is shown only to clients whose zone's interface is in its list", async () => {
    await saveSingleton('/api/auth/localnotice', { enabled: true, interfaces: ['lan'], content: ['Pool closes at 9.'] });
    const shown = json(await portal.inject({ method: 'GET', url: '/portal-api/notice/local', ...fromClient(GUEST) }));
    expect(shown).toEqual({ success: true, data: { content: 'Pool closes at 9.' } });
    // Not a client of any zone.
    const outsider = json(await portal.inject({ method: 'GET', url: '/portal-api/notice/local', ...fromClient('10.20.30.40') }));
    expect(outsider).toEqual({ success: true, data: { content: '' } });

    // Another interface, whose zone this client is not in.
    const wan = json(await post(h.app, admin, '/api/network', { action: 'add', ifname: 'wan1', role: 'wan', hwport: ['eth0'], proto: 'dhcp' }));
    expect(wan.success, JSON.stringify(wan)).toBe(true);
    const token = wan.data?.confirm?.token as string | undefined;
    if (token) expect(json(await post(h.app, null, '/api/sysconf/confirm', { token, action: 'confirm' })).success).toBe(true);
    await saveSingleton('/api/auth/localnotice', { interfaces: ['wan1'] });
    const elsewhere = json(await portal.inject({ method: 'GET', url: '/portal-api/notice/local', ...fromClient(GUEST) }));
    expect(elsewhere).toEqual({ success: true, data: { content: '' } });
  });
});

describe('expiry reminder', () => {
  test('a reminded client lands on the reminder once, then goes where it was going; the list shows it', async () => {
    const plan = { action: 'add', name: 'month', flow: 20, effecttime: 30, effectunit: 'days', remind: true, remind_time: 10, remind_flow: 5 };
    expect(json(await post(h.app, admin, '/api/auth/tariff', plan)).success).toBe(true);
    const user = { action: 'add', username: 'alice', password: 'Secret123', confirm: 'Secret123', model: 'month' };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    await saveSingleton('/api/auth/reminder', { enabled: true, refresh: true, content: ['Your plan is nearly used up.'], interval: 24, template: 'simple' });

    const login = await portal.inject({ method: 'POST', url: '/portal-api/login', payload: { method: 'local', username: 'alice', password: 'Secret123', acceptTerms: true }, ...fromClient(GUEST) });
    expect(json(login).success, login.body).toBe(true);
    const engine = h.app.hotspot.engine;
    dataplane.addTraffic(GUEST, 1_000_000, 15_000_000);
    await engine.tick();
    expect([...reminders.addresses]).toEqual([GUEST]);

    const list = json(await get(h.app, admin, '/api/hotspot/reminders'));
    expect(list.data.items).toEqual([{ ipaddr: GUEST, username: 'alice', remindedAt: expect.any(Number), state: 'awaiting' }]);

    // The ruleset sends the client's next web request to the portal listener.
    const first = await portal.inject({ method: 'GET', url: '/news?id=7', ...fromClient(GUEST, 'example.com') });
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe(`http://192.168.11.1:2050/notice/expired?url=${encodeURIComponent('http://example.com/news?id=7')}`);
    expect(reminders.addresses.size).toBe(0);
    const notice = json(await portal.inject({ method: 'GET', url: '/portal-api/notice/expired', ...fromClient(GUEST) }));
    expect(notice).toEqual({
      success: true,
      data: { content: 'Your plan is nearly used up.', refresh: true, template: 'simple', session: { secondsRemaining: expect.any(Number), bytesRemaining: 4_000_000, username: 'alice', plan: 'month' } },
    });
    // A request still on a redirected connection goes back where it was going.
    const again = await portal.inject({ method: 'GET', url: '/news?id=7', ...fromClient(GUEST, 'example.com') });
    expect(again.headers.location).toBe('http://example.com/news?id=7');
    expect(json(await get(h.app, admin, '/api/hotspot/reminders')).data.items[0].state).toBe('shown');
    // Within the interval nobody is reminded again.
    dataplane.addTraffic(GUEST, 0, 1_000_000);
    await engine.tick();
    expect(reminders.addresses.size).toBe(0);
  });

  test('a reminder that is only a renewal address sends the client straight there', async () => {
    const user = { action: 'add', username: 'bob', password: 'Secret123', confirm: 'Secret123', totalflow: 8 };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    await saveSingleton('/api/auth/reminder', { enabled: true, url: 'https://shop.example.net/renew', content: [] });
    const login = await portal.inject({ method: 'POST', url: '/portal-api/login', payload: { method: 'local', username: 'bob', password: 'Secret123', acceptTerms: true }, ...fromClient(GUEST) });
    expect(json(login).success, login.body).toBe(true);
    // A plan-less account: the accounting thresholds (10 MB left by default) apply.
    dataplane.addTraffic(GUEST, 0, 100);
    await h.app.hotspot.engine.tick();
    const res = await portal.inject({ method: 'GET', url: '/', ...fromClient(GUEST, 'example.com') });
    expect(res.headers.location).toBe('https://shop.example.net/renew');
  });
});
