import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotWifidog } from '@portico/schema';
import type { Scheduler } from '../src/config/config-types.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { fromClient, PORTAL_HOST, portalErrorOf } from './hotspot-fixture.js';
import { WifidogTestServer } from './hotspot-wifidog-fixture.js';

/**
 * WiFiDog through the daemon: a zone of auth model wifidog sends captive clients to the
 * loopback auth server's login, the server's return to /wifidog/auth?token= is checked with
 * stage=login and admits the client through the hotspot engine, the counters and heartbeat
 * loops (fired by the test's scheduler) report the engine's byte counts and act on the answers.
 */

/** Timers the test fires itself: no waiting on the wall clock. */
class ManualScheduler {
  jobs: Array<{ ms: number; work: () => void; cancelled: boolean }> = [];
  readonly schedule: Scheduler = (ms, work) => {
    const job = { ms, work, cancelled: false };
    this.jobs.push(job);
    return () => {
      job.cancelled = true;
    };
  };
  /** Runs the pending jobs due after `ms` (the heartbeat's first is due at 0). */
  fire(ms: number): number {
    const due = this.jobs.filter((j) => !j.cancelled && j.ms === ms);
    this.jobs = this.jobs.filter((j) => !due.includes(j));
    for (const job of due) job.work();
    return due.length;
  }
}

const CLIENT = '192.168.11.50';
const CLIENT_MAC = '02:00:c0:a8:0b:32';
const OTHER = '192.168.11.51';

let server: WifidogTestServer;
let h: Harness;
let admin: Client;
const dataplane = new SimDataplane();
const timers = new ManualScheduler();

beforeAll(async () => {
  server = new WifidogTestServer();
  await server.start();
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane, schedule: timers.schedule } } });
  admin = await adminClient(h);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await server?.close();
});

const save = async (body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotWifidog.path}`, body));
const captive = (ip: string, url = '/news?id=1&x=%3Cb%3E') => h.app.hotspot.portal.inject({ method: 'GET', url, remoteAddress: ip, headers: { host: 'example.com' } });
const arrive = (ip: string, query: string) => h.app.hotspot.portal.inject({ method: 'GET', url: `/wifidog/auth${query}`, ...fromClient(ip) });
const engine = () => h.app.hotspot.engine;

describe('settings (auth/wifidog)', () => {
  test('hostile paths, addresses and ids are refused; the section saves and reads back', async () => {
    expect(await save({ auth_uri: '/wifidog/?x=1' })).toMatchObject({ success: false, errors: { auth_uri: 'validation.wifidog.path' } });
    expect(await save({ keepalive_uri: '/../ping' })).toMatchObject({ success: false, errors: { keepalive_uri: 'validation.wifidog.path' } });
    expect(await save({ redirect_url: 'javascript:alert(1)' })).toMatchObject({ success: false, errors: { redirect_url: 'validation.url' } });
    expect(await save({ redirect_url: 'http://user:pw@example.com/' })).toMatchObject({ success: false, errors: { redirect_url: 'validation.url' } });
    expect(await save({ server: 'evil host' })).toMatchObject({ success: false, errors: { server: 'validation.hostname' } });
    expect(await save({ gw_id: 'gw&id=x' })).toMatchObject({ success: false, errors: { gw_id: 'validation.wifidog.gatewayId' } });
    expect(await save({ merchant_id: 'a\nb' })).toMatchObject({ success: false });
    expect(await save({ checkinterval: 5 })).toMatchObject({ success: false, errors: { checkinterval: 'validation.wifidog.interval' } });
    const saved = await save({ server: '127.0.0.1', port: server.port, gw_id: 'gw-test', merchant_id: 'shop 7', checkinterval: 60, clienttimeout: 2 });
    expect(saved.success, JSON.stringify(saved)).toBe(true);
    expect(json(await get(h.app, admin, `/api/${hotspotWifidog.path}`)).data).toMatchObject({ server: '127.0.0.1', port: server.port, gw_id: 'gw-test', auth_uri: '/wifidog/' });
  });
});

describe('a zone of auth model wifidog', () => {
  beforeAll(async () => {
    const zone = { action: 'add', name: 'dog', ifname: 'lan', authmodel: 'wifidog', authtime: 1, authtime_unit: 'days' };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
  });

  test('a captive client is sent to the auth server login with gw_address, gw_port, gw_id, ip, mac, url and merchant_id', async () => {
    const reply = await captive(CLIENT);
    expect(reply.statusCode).toBe(302);
    const location = new URL(reply.headers.location as string);
    expect(location.origin).toBe(`http://127.0.0.1:${server.port}`);
    expect(location.pathname).toBe('/wifidog/login/');
    expect([...location.searchParams.keys()]).toEqual(['gw_address', 'gw_port', 'gw_id', 'ip', 'mac', 'url', 'merchant_id']);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      gw_address: '192.168.11.1',
      gw_port: PORTAL_HOST.host.split(':')[1],
      gw_id: 'gw-test',
      ip: CLIENT,
      mac: CLIENT_MAC,
      url: 'http://example.com/news?id=1&x=%3Cb%3E',
      merchant_id: 'shop 7',
    });
    // The original address stays one encoded parameter: nothing of it leaks into the query.
    expect(reply.headers.location).toContain('url=http%3A%2F%2Fexample.com%2Fnews%3Fid%3D1%26x%3D%253Cb%253E');
    expect(engine().session(CLIENT)).toBeUndefined();
  });

  test('the heartbeat reaches the server and marks it online', async () => {
    expect(timers.fire(0)).toBeGreaterThan(0);
    await expect.poll(() => server.pings().length).toBeGreaterThan(0);
    const ping = server.pings()[0]!;
    expect(ping.query.gw_id).toBe('gw-test');
    expect(Object.keys(ping.query)).toEqual(['gw_id', 'sys_uptime', 'sys_memfree', 'sys_load', 'wifidog_uptime']);
    await expect.poll(() => h.app.hotspot.wifidog.state().serverState).toBe('online');
  });

  test('a token the server accepts admits the client through the engine; counters report its bytes; the server ending it ends the session', async () => {
    const token = server.issueToken(1);
    const reply = await arrive(CLIENT, `?token=${token}`);
    expect(reply.statusCode).toBe(302);
    expect(reply.headers.location).toBe(`http://127.0.0.1:${server.port}/wifidog/portal/?gw_id=gw-test`);
    const login = server.callsTo('login').at(-1)!;
    expect(login.query).toMatchObject({ token, ip: CLIENT, mac: CLIENT_MAC, gw_id: 'gw-test' });
    expect(engine().session(CLIENT)).toMatchObject({ kind: 'wifidog', zone: 'dog', mac: CLIENT_MAC });
    expect(dataplane.clients.get(CLIENT)?.mac).toBe(CLIENT_MAC);
    // The online-user list names the method.
    const online = json(await get(h.app, admin, '/api/hotspot/online')).data;
    expect(JSON.stringify(online)).toContain('"kind":"wifidog"');

    dataplane.addTraffic(CLIENT, 300, 5000);
    await engine().tick();
    expect(timers.fire(60_000)).toBeGreaterThan(0);
    await expect.poll(() => server.callsTo('counters').length).toBe(1);
    expect(server.callsTo('counters')[0]!.query).toMatchObject({ token, ip: CLIENT, mac: CLIENT_MAC, incoming: '5000', outgoing: '300' });

    // The server withdraws the token: the next round takes the client off.
    server.tokens.set(token, 0);
    await expect.poll(() => timers.fire(60_000), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => engine().session(CLIENT)).toBeUndefined();
    expect(dataplane.clients.has(CLIENT)).toBe(false);
  });

  test('a client idle for clienttimeout reports is logged out at the server (stage=logout)', async () => {
    const token = server.issueToken(1);
    expect((await arrive(CLIENT, `?token=${token}`)).statusCode).toBe(302);
    expect(engine().session(CLIENT)?.kind).toBe('wifidog');
    for (let round = 0; round < 2; round++) {
      await expect.poll(() => timers.fire(60_000), { timeout: 10_000 }).toBeGreaterThan(0);
    }
    await expect.poll(() => server.callsTo('logout').some((c) => c.query.token === token)).toBe(true);
    await expect.poll(() => engine().session(CLIENT)).toBeUndefined();
  });

  test('an administrator kick ends the session and the gateway forgets the client', async () => {
    const token = server.issueToken(1);
    expect((await arrive(OTHER, `?token=${token}`)).statusCode).toBe(302);
    expect(h.app.hotspot.wifidog.state().clients.map((c) => c.ip)).toContain(OTHER);
    await engine().kick(OTHER);
    await expect.poll(() => timers.fire(60_000), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => h.app.hotspot.wifidog.state().clients.map((c) => c.ip)).not.toContain(OTHER);
  });

  test('refusals: a denied or locked token, a malformed token, a server that is down, a blocked device', async () => {
    const denied = await arrive(CLIENT, `?token=${server.issueToken(0)}`);
    expect(denied.statusCode).toBe(302);
    expect(denied.headers.location).toBe(`http://127.0.0.1:${server.port}/wifidog/gw_message.php?message=denied`);
    const locked = await arrive(CLIENT, `?token=${server.issueToken(254)}`);
    expect(locked.headers.location).toBe(`http://127.0.0.1:${server.port}/wifidog/gw_message.php?message=locked`);
    expect(engine().session(CLIENT)).toBeUndefined();

    const calls = server.calls.length;
    for (const query of ['', '?token=', '?token=a%20b', `?token=${'x'.repeat(300)}`, '?token=%3Cscript%3E']) {
      const reply = await arrive(CLIENT, query);
      // Sent to the portal page, which shows the message.
      expect(reply.statusCode, query).toBe(302);
      expect(reply.headers.location, query).toBe('/auth/portal?error=portal.error.authFailed');
    }
    expect(server.calls.length).toBe(calls);

    server.override = () => ({ body: 'Auth: 1\nAuth: 1\n' });
    expect(portalErrorOf(await arrive(CLIENT, `?token=${server.issueToken(1)}`))).toBe('portal.error.authFailed');
    server.override = null;
    server.down = true;
    const down = await arrive(CLIENT, `?token=${server.issueToken(1)}`);
    expect(portalErrorOf(down)).toBe('portal.error.authFailed');
    server.down = false;
    expect(engine().session(CLIENT)).toBeUndefined();

    await engine().block(CLIENT_MAC);
    const blocked = await arrive(CLIENT, `?token=${server.issueToken(1)}`);
    expect(portalErrorOf(blocked)).toBe('portal.error.blocked');
    await engine().unblock(CLIENT_MAC);

    // A client of no wifidog zone.
    expect(portalErrorOf(await arrive('10.99.0.5', `?token=${server.issueToken(1)}`))).toBe('portal.error.notConfigured');
  });

  test('the portal form cannot sign a client of a wifidog zone in by another method', async () => {
    const reply = json(await h.app.hotspot.portal.inject({ method: 'POST', url: '/portal-api/login', payload: { method: 'onekey', acceptTerms: true }, ...fromClient(CLIENT) }));
    expect(reply).toMatchObject({ success: false, msg: 'portal.error.system' });
    expect(engine().session(CLIENT)).toBeUndefined();
  });
});
