import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotWeixin, hotspotZone } from '@portico/schema';
import { hotspotConfigOf } from '../src/domains/hotspot/hotspot-config.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { captiveLocation, fromClient, portalErrorOf } from './hotspot-fixture.js';

/**
 * WeChat Wi-Fi: a zone of auth model weixin sends captive clients to WeChat's page with the
 * signed auth request; a stand-in for WeChat on loopback checks the signature as the protocol
 * documents it (md5 of appId, extend, timestamp, shop_id, authUrl, mac, ssid, bssid and the
 * secret key, computed here independently) and calls authUrl with extend, openId and tid, as
 * the WeChat app does from the client; the gateway admits only an extend it issued to that device.
 */

const KEY = 'wx-secret-key-123';
const APPID = 'wx1234567890abcdef';
const SHOPID = '8765432';
const CLIENT = '192.168.11.90';
const CLIENT_MAC = '02:00:c0:a8:0b:5a';

/** Stands in for wifi.weixin.qq.com and the WeChat app: verifies `sign`, then calls authUrl. */
class StandInWechat {
  private server: Server | null = null;
  port = 0;
  openId = 'oUser_0123456789';
  readonly seen: URLSearchParams[] = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const q = url.searchParams;
      this.seen.push(q);
      const text = ['appId', 'extend', 'timestamp', 'shopId', 'authUrl', 'mac', 'ssid', 'bssid'].map((k) => q.get(k) ?? '').join('') + KEY;
      if (url.pathname !== '/operator/callWechat.xhtml' || q.get('sign') !== createHash('md5').update(text).digest('hex')) {
        res.writeHead(403).end('sign error');
        return;
      }
      const back = new URL(q.get('authUrl')!);
      back.searchParams.set('extend', q.get('extend')!);
      back.searchParams.set('openId', this.openId);
      back.searchParams.set('tid', 'tid0123456789abcdef');
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
const wechat = new StandInWechat();
const dataplane = new SimDataplane();

beforeAll(async () => {
  await wechat.start();
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane } } });
  admin = await adminClient(h);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await wechat.close();
});

const save = async (body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotWeixin.path}`, body));
const engine = () => h.app.hotspot.engine;
const portal = () => h.app.hotspot.portal;

const captive = (ip = CLIENT) => captiveLocation(portal(), ip);

/** The signed address handed to the stand-in (same path and query, loopback origin): WeChat's call to authUrl. */
async function throughWechat(location: string): Promise<string> {
  const url = new URL(location);
  const res = await fetch(`http://127.0.0.1:${wechat.port}${url.pathname}${url.search}`, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  return res.headers.get('location')!;
}

async function call(location: string, ip = CLIENT) {
  const url = new URL(location);
  return portal().inject({ method: 'GET', url: `${url.pathname}${url.search}`, ...fromClient(ip) });
}

describe('settings', () => {
  test('refusals, the key never read back, WeChat\'s hosts white-listed while a zone uses it', async () => {
    expect(await save({ appid: 'wx 1' })).toMatchObject({ success: false, errors: { appid: 'validation.weixin.appid' } });
    expect(await save({ shopid: '12a' })).toMatchObject({ success: false, errors: { shopid: 'validation.weixin.shopid' } });
    expect(await save({ ssid: 'a&b' })).toMatchObject({ success: false, errors: { ssid: 'validation.weixin.ssid' } });
    expect((await save({ appid: APPID, shopid: SHOPID, key: KEY, ssid: 'Venue 咖啡' })).success).toBe(true);
    expect(JSON.stringify(json(await get(h.app, admin, `/api/${hotspotWeixin.path}`)).data)).not.toContain(KEY);
    const zone = { action: 'add', name: 'wx', ifname: 'lan', authmodel: 'weixin', authtime: 1, authtime_unit: 'days' };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
    const row = (authmodel: string) => ({ id: 'z', data: { ...(hotspotZone.schema.parse({ id: 'z', name: 'z', ifname: 'lan', authmodel }) as object) } });
    expect(hotspotConfigOf({ hotspotZone: [row('weixin')] }).whiteList).toContainEqual({ type: 'url', value: 'wifi.weixin.qq.com' });
    expect(hotspotConfigOf({ hotspotZone: [row('webportal')] }).whiteList).toEqual([]);
  });
});

describe('a zone of auth model weixin', () => {
  test('the captive redirect is WeChat\'s page with the signed auth request', async () => {
    const location = await captive();
    expect(location.startsWith('https://wifi.weixin.qq.com/operator/callWechat.xhtml?appId=wx1234567890abcdef&extend=')).toBe(true);
    const q = new URL(location).searchParams;
    expect(q.get('shopId')).toBe(SHOPID);
    expect(q.get('authUrl')).toBe('http://192.168.11.1:2050/weixin/auth');
    expect(q.get('mac')).toBe(CLIENT_MAC);
    expect(q.get('ssid')).toBe('Venue 咖啡');
    expect(q.get('bssid')).toBe('');
    expect(q.get('timestamp')).toBe(String(h.clock.now()));
    expect(q.get('extend')).toMatch(/^[0-9a-f]{32}$/);
    const text = `${APPID}${q.get('extend')}${q.get('timestamp')}${SHOPID}http://192.168.11.1:2050/weixin/auth${CLIENT_MAC}Venue 咖啡${KEY}`;
    expect(q.get('sign')).toBe(createHash('md5').update(text).digest('hex'));
    expect(location).toContain('authUrl=http%3A%2F%2F192.168.11.1%3A2050%2Fweixin%2Fauth');
  });

  test('WeChat\'s call with a fresh extend admits the client through the engine, once', async () => {
    const callback = await throughWechat(await captive());
    const reply = await call(callback);
    expect(reply.statusCode, reply.body).toBe(200);
    expect(json(reply).success).toBe(true);
    expect(engine().session(CLIENT)).toMatchObject({ kind: 'weixin', account: 'weixin:oUser_0123456789', mac: CLIENT_MAC });
    expect(JSON.stringify(json(await get(h.app, admin, '/api/hotspot/online')).data)).toContain('"kind":"weixin"');
    await engine().kick(CLIENT, 'logout');
    const replay = await call(callback);
    expect(portalErrorOf(replay), replay.body).toBe('portal.error.authFailed');
    expect(engine().session(CLIENT)).toBeUndefined();
  });

  test('a request signed with another key is refused by WeChat\'s side', async () => {
    const url = new URL(await captive());
    url.searchParams.set('ssid', 'Other');
    const res = await fetch(`http://127.0.0.1:${wechat.port}${url.pathname}${url.search}`, { redirect: 'manual' });
    expect(res.status).toBe(403);
  });

  test('refused: an extend of another device, a forged or late extend, malformed calls', async () => {
    // Each failure sends the browser to the portal page, which shows the message.
    const refused = async (location: string, ip: string) => {
      const reply = await call(location, ip);
      expect(reply.statusCode, reply.body).toBe(302);
      expect(reply.headers.location).toBe('/auth/portal?error=portal.error.authFailed');
      expect(engine().session(ip)).toBeUndefined();
    };
    await refused(await throughWechat(await captive()), '192.168.11.91');
    await refused(`http://192.168.11.1:2050/weixin/auth?extend=${'ab'.repeat(16)}&openId=o1&tid=t`, CLIENT);
    const late = await throughWechat(await captive());
    h.clock.advance(301);
    await refused(late, CLIENT);
    await refused('http://192.168.11.1:2050/weixin/auth?extend=xyz&openId=o1', '192.168.11.92');
    await refused(`http://192.168.11.1:2050/weixin/auth?extend=${'ab'.repeat(16)}&openId=%3Cscript%3E`, '192.168.11.92');
  });

  test('guessing: a parallel burst of forged extends checks at most five, then a genuine one is refused too', async () => {
    const ip = '192.168.11.93';
    const forged = Array.from({ length: 12 }, (_, i) => `http://192.168.11.1:2050/weixin/auth?extend=${i.toString(16).padStart(32, '0')}&openId=o1&tid=t`);
    const replies = await Promise.all(forged.map((f) => call(f, ip)));
    expect(replies.filter((r) => portalErrorOf(r) === 'portal.error.authFailed').length).toBeLessThanOrEqual(5);
    expect(replies.filter((r) => portalErrorOf(r) === 'portal.error.tooMany').length).toBeGreaterThanOrEqual(7);
    const right = await call(await throughWechat(await captive(ip)), ip);
    expect(portalErrorOf(right)).toBe('portal.error.tooMany');
    expect(engine().session(ip)).toBeUndefined();
  });

  test('a blocked device is neither sent to WeChat nor admitted', async () => {
    const callback = await throughWechat(await captive());
    await engine().block(CLIENT_MAC);
    expect(await captive()).toContain('/auth/portal');
    const reply = await call(callback);
    expect(portalErrorOf(reply)).toBe('portal.error.blocked');
    await engine().unblock(CLIENT_MAC);
  });
});
