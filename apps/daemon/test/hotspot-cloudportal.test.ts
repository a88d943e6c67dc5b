import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotCloudportal, hotspotZone } from '@portico/schema';
import { hotspotConfigOf } from '../src/domains/hotspot/hotspot-config.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { backAtGateway, captiveLocation, followRedirect, fromClient, portalErrorOf } from './hotspot-fixture.js';

/**
 * Cloud portal: a zone of auth model cloudportal sends captive clients to a stand-in cloud on
 * loopback, which checks the gateway's HMAC-SHA256 signature (computed here independently of
 * the daemon's code, from the scheme in the folder README) and answers with a signed return
 * the browser brings back to /cloudportal/auth; the gateway admits only a genuine, fresh answer
 * for the device its nonce was issued to.
 */

const SECRET = 'cloud-shared-key-0123456789';
const CLIENT = '192.168.11.80';
const CLIENT_MAC = '02:00:c0:a8:0b:50';

const hmac = (label: string, fields: Array<string | number>, key = SECRET) => createHmac('sha256', key).update([label, ...fields].join('\n')).digest('hex');

interface CloudAnswer {
  result: 'success' | 'denied';
  account: string;
  /** Seconds added to the cloud's clock. */
  skew?: number;
  /** The key the cloud signs with. */
  key?: string;
}

/** The stand-in cloud: checks the login signature, answers with a signed return to the gateway. */
class StandInCloud {
  private server: Server | null = null;
  port = 0;
  answer: CloudAnswer = { result: 'success', account: 'guest@cloud' };
  readonly logins: URLSearchParams[] = [];
  now = () => Date.now();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const q = url.searchParams;
      this.logins.push(q);
      const expected = hmac('portico-cloudportal-login', ['gw_id', 'gw_address', 'gw_port', 'ip', 'mac', 'ts', 'nonce', 'url'].map((k) => q.get(k) ?? ''));
      if (url.pathname !== '/login' || q.get('sig') !== expected) {
        res.writeHead(403).end('bad signature');
        return;
      }
      const { result, account, skew = 0, key = SECRET } = this.answer;
      const ts = Math.floor(this.now() / 1000) + skew;
      const sig = hmac('portico-cloudportal-auth', [q.get('gw_id')!, q.get('nonce')!, q.get('ip')!, q.get('mac')!, ts, result, account], key);
      const back = new URL(`http://${q.get('gw_address')}:${q.get('gw_port')}/cloudportal/auth`);
      for (const [k, v] of Object.entries({ nonce: q.get('nonce')!, ts: String(ts), result, account, sig })) back.searchParams.set(k, v);
      res.writeHead(302, { location: back.toString() }).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let h: Harness;
let admin: Client;
const cloud = new StandInCloud();
const dataplane = new SimDataplane();

beforeAll(async () => {
  await cloud.start();
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane } } });
  cloud.now = h.clock.now;
  admin = await adminClient(h);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await cloud.close();
});

const save = async (body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotCloudportal.path}`, body));
const engine = () => h.app.hotspot.engine;
const portal = () => h.app.hotspot.portal;

const captive = (ip = CLIENT) => captiveLocation(portal(), ip, '/page?q=1');
const atCloud = followRedirect;
const back = (location: string, ip = CLIENT) => backAtGateway(portal(), location, ip);

describe('settings', () => {
  test('refusals, and the key is never read back', async () => {
    expect(await save({ authurl: 'javascript:alert(1)' })).toMatchObject({ success: false, errors: { authurl: 'validation.url' } });
    expect(await save({ timeout: 2 })).toMatchObject({ success: false, errors: { timeout: 'validation.cloudportal.timeout' } });
    for (const param of ['sig=1', 'a=1&a=2', 'a b=1', 'x=<script>', 'nonce=abc'])
      expect(await save({ param }), param).toMatchObject({ success: false, errors: { param: 'validation.cloudportal.param' } });
    expect(await save({ secret: 'short' })).toMatchObject({ success: false, errors: { secret: 'validation.cloudportal.secret' } });
    expect((await save({ authurl: `http://127.0.0.1:${cloud.port}/login?tenant=7`, timeout: 30, param: 'site=hall%201&lang=en', secret: SECRET, gw_id: 'gw-1' })).success).toBe(true);
    const read = json(await get(h.app, admin, `/api/${hotspotCloudportal.path}`)).data;
    expect(read).toMatchObject({ timeout: 30, param: 'site=hall%201&lang=en', gw_id: 'gw-1' });
    expect(JSON.stringify(read)).not.toContain(SECRET);
    const zone = { action: 'add', name: 'cloud', ifname: 'lan', authmodel: 'cloudportal', authtime: 1, authtime_unit: 'days' };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
  });

  test('the cloud\'s host joins the white list only while a zone uses it', () => {
    const zone = (authmodel: string) => ({ id: 'z', data: { ...(hotspotZone.schema.parse({ id: 'z', name: 'z', ifname: 'lan', authmodel }) as object) } });
    const section = { [hotspotCloudportal.name]: [{ id: '', data: { authurl: 'https://cloud.example.net/login' } }] };
    expect(hotspotConfigOf({ hotspotZone: [zone('cloudportal')], ...section }).whiteList).toEqual([{ type: 'url', value: 'cloud.example.net' }]);
    expect(hotspotConfigOf({ hotspotZone: [zone('webportal')], ...section }).whiteList).toEqual([]);
  });
});

describe('a zone of auth model cloudportal', () => {
  test('the redirect carries the client\'s identity, the configured param and a signature the cloud accepts', async () => {
    const location = await captive();
    expect(location.startsWith(`http://127.0.0.1:${cloud.port}/login?tenant=7&gw_id=gw-1&`)).toBe(true);
    const q = new URL(location).searchParams;
    expect(q.get('gw_address')).toBe('192.168.11.1');
    expect(q.get('gw_port')).toBe('2050');
    expect(q.get('ip')).toBe(CLIENT);
    expect(q.get('mac')).toBe(CLIENT_MAC);
    expect(q.get('url')).toBe('http://example.com/page?q=1');
    expect(q.get('site')).toBe('hall 1');
    expect(q.get('lang')).toBe('en');
    expect(q.get('nonce')).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(q.get('ts'))).toBe(Math.floor(h.clock.now() / 1000));
    // Every value is percent-encoded, never `+`.
    expect(location).toContain('url=http%3A%2F%2Fexample.com%2Fpage%3Fq%3D1');
    expect((await captive()).includes(q.get('nonce')!)).toBe(false);
  });

  test('a signed success admits the client through the engine, once per nonce; the browser lands on the gateway\'s status page', async () => {
    cloud.answer = { result: 'success', account: 'guest@cloud' };
    const answer = await atCloud(await captive());
    const reply = await back(answer);
    expect(reply.statusCode, reply.body).toBe(302);
    expect(reply.headers.location).toBe(`http://192.168.11.1:2050/auth/success?url=${encodeURIComponent('http://example.com/page?q=1')}`);
    expect(engine().session(CLIENT)).toMatchObject({ kind: 'cloudportal', account: 'cloudportal:guest@cloud', mac: CLIENT_MAC });
    expect(JSON.stringify(json(await get(h.app, admin, '/api/hotspot/online')).data)).toContain('"kind":"cloudportal"');
    await engine().kick(CLIENT, 'logout');
    // The same answer again: its nonce is spent.
    const replay = await back(answer);
    expect(portalErrorOf(replay), replay.body).toBe('portal.error.authFailed');
    expect(engine().session(CLIENT)).toBeUndefined();
  });

  test('refused: consent denied, a wrong key, a tampered answer, another device, a late answer, garbage', async () => {
    // Each failure sends the browser to the portal page, which shows the message.
    const refused = async (location: string, ip = CLIENT) => {
      const reply = await back(location, ip);
      expect(reply.statusCode, reply.body).toBe(302);
      expect(reply.headers.location).toBe('/auth/portal?error=portal.error.authFailed');
      expect(engine().session(ip)).toBeUndefined();
    };
    cloud.answer = { result: 'denied', account: '' };
    await refused(await atCloud(await captive()));
    cloud.answer = { result: 'success', account: 'x', key: 'another-key-0123456789' };
    await refused(await atCloud(await captive()));
    cloud.answer = { result: 'success', account: 'x' };
    const tampered = new URL(await atCloud(await captive()));
    tampered.searchParams.set('account', 'admin');
    await refused(tampered.toString());
    // A nonce issued to one device signs in no other.
    const other = '192.168.11.81';
    await refused(await atCloud(await captive()), other);
    // The cloud answering after the timeout (its clock 31 s on), and the client coming back late.
    cloud.answer = { result: 'success', account: 'x', skew: 31 };
    await refused(await atCloud(await captive()));
    cloud.answer = { result: 'success', account: 'x' };
    const late = await atCloud(await captive());
    h.clock.advance(31);
    await refused(late);
    // Malformed answers (from another device: each failure above counted against this one).
    await refused('http://192.168.11.1:2050/cloudportal/auth?nonce=zz&ts=1&result=success&sig=00', '192.168.11.83');
    await refused('http://192.168.11.1:2050/cloudportal/auth?nonce=0123&result=maybe', '192.168.11.83');
  });

  test('guessing: a parallel burst of forged answers checks at most five, then a genuine one is refused too', async () => {
    const ip = '192.168.11.82';
    cloud.answer = { result: 'success', account: 'x' };
    const genuine = new URL(await atCloud(await captive(ip)));
    const forged = Array.from({ length: 12 }, (_, i) => {
      const f = new URL(genuine);
      f.searchParams.set('sig', i.toString(16).padStart(64, '0'));
      return f.toString();
    });
    const replies = await Promise.all(forged.map((f) => back(f, ip)));
    expect(replies.filter((r) => portalErrorOf(r) === 'portal.error.tooMany').length).toBeGreaterThanOrEqual(7);
    expect(replies.every((r) => portalErrorOf(r) === 'portal.error.tooMany' || portalErrorOf(r) === 'portal.error.authFailed')).toBe(true);
    const right = await back((await atCloud(await captive(ip))), ip);
    expect(portalErrorOf(right)).toBe('portal.error.tooMany');
    expect(engine().session(ip)).toBeUndefined();
  });

  test('a blocked device is neither sent to the cloud nor admitted', async () => {
    cloud.answer = { result: 'success', account: 'x' };
    const answer = await atCloud(await captive());
    await engine().block(CLIENT_MAC);
    expect(await captive()).toContain('/auth/portal');
    const reply = await back(answer);
    expect(portalErrorOf(reply)).toBe('portal.error.blocked');
    await engine().unblock(CLIENT_MAC);
  });
});
