import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotCmcc } from '@portico/schema';
import { AUTH_ERR, LOGOUT_ERR } from '../src/domains/hotspot/cmcc/cmcc-ac.js';
import { PORTAL_ATTR, PORTAL_TYPE, textAttribute } from '../src/domains/hotspot/cmcc/cmcc-packet.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { PortalPeer, SECRET } from './hotspot-cmcc-fixture.js';

/**
 * CMCC through the daemon: a zone of auth model cmcc sends captive clients to cmccurl with
 * wlanuserip, wlanacname and wlanacip; the portal server peer (hotspot-cmcc-fixture.ts, UDP on
 * loopback) then signs users in and out over the access controller the daemon runs, which
 * admits and releases them through the hotspot engine.
 */

/** A UDP port free on loopback right now, for the access controller. */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

const CLIENT = '192.168.11.60';
const CLIENT_MAC = '02:00:c0:a8:0b:3c';
const dataplane = new SimDataplane();
let h: Harness;
let admin: Client;
let peer: PortalPeer;
let acPort: number;

beforeAll(async () => {
  peer = await PortalPeer.open(2);
  acPort = await freeUdpPort();
  peer.acPort = acPort;
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane } } });
  admin = await adminClient(h);
  const user = { action: 'add', username: 'alice', password: 'Secret123', confirm: 'Secret123', usernum: 0 };
  expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
}, 60_000);
afterAll(async () => {
  await h?.close();
  peer?.close();
});

const save = async (body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotCmcc.path}`, body));
const engine = () => h.app.hotspot.engine;
const papAuth = (ip: string, username: string, password: string) =>
  peer.exchange(peer.build(PORTAL_TYPE.REQ_AUTH, ip, { method: 'pap', attributes: [textAttribute(PORTAL_ATTR.UserName, username), textAttribute(PORTAL_ATTR.PassWord, password)] }));

describe('settings (auth/cmcc)', () => {
  test('hostile or partial settings are refused; the secret is never read back', async () => {
    expect(await save({ cmccurl: 'javascript:alert(1)' })).toMatchObject({ success: false, errors: { cmccurl: 'validation.url' } });
    expect(await save({ cmccurl: 'http://portal.example.net/', cmccip: '127.0.0.1', wlanacip: 'gateway' })).toMatchObject({ success: false, errors: { wlanacip: 'validation.ip' } });
    expect(await save({ cmccurl: 'http://portal.example.net/' })).toMatchObject({ success: false, errors: { cmccip: 'validation.required', wlanacip: 'validation.required' } });
    expect(await save({ acname: 'ac 01&x=1' })).toMatchObject({ success: false, errors: { acname: 'validation.cmcc.acname' } });
    expect(await save({ secret: 'a\nb' })).toMatchObject({ success: false });
    const saved = await save({ cmccurl: 'http://portal.example.net/login?src=ac', cmccip: '127.0.0.1', wlanacip: '127.0.0.1', acname: 'ac-01', version: '2', secret: SECRET, acport: acPort, notifyport: peer.port, flowcheck: 0 });
    expect(saved.success, JSON.stringify(saved)).toBe(true);
    const read = json(await get(h.app, admin, `/api/${hotspotCmcc.path}`)).data;
    expect(read).toMatchObject({ cmccip: '127.0.0.1', acname: 'ac-01', version: '2' });
    expect(JSON.stringify(read)).not.toContain(SECRET);
  });
});

describe('a zone of auth model cmcc', () => {
  beforeAll(async () => {
    const zone = { action: 'add', name: 'carrier', ifname: 'lan', authmodel: 'cmcc', authtime: 1, authtime_unit: 'days' };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
  });

  test('a captive client is sent to cmccurl with wlanuserip, wlanacname, wlanacip, its MAC and first URL', async () => {
    const reply = await h.app.hotspot.portal.inject({ method: 'GET', url: '/a?b=1&c=<x>', remoteAddress: CLIENT, headers: { host: 'example.com' } });
    expect(reply.statusCode).toBe(302);
    const location = new URL(reply.headers.location as string);
    expect(location.origin + location.pathname).toBe('http://portal.example.net/login');
    expect(Object.fromEntries(location.searchParams)).toEqual({
      src: 'ac',
      wlanuserip: CLIENT,
      wlanacname: 'ac-01',
      wlanacip: '127.0.0.1',
      wlanusermac: '02-00-c0-a8-0b-3c',
      wlanuserfirsturl: 'http://example.com/a?b=1&c=%3Cx%3E',
    });
    expect(h.app.hotspot.cmcc.state().running).toBe(true);
  });

  test('REQ_AUTH (PAP) with a local account admits the user through the engine; REQ_LOGOUT releases it', async () => {
    const ack = await papAuth(CLIENT, 'alice', 'Secret123');
    expect(ack.type).toBe(PORTAL_TYPE.ACK_AUTH);
    expect(ack.errCode).toBe(AUTH_ERR.success);
    expect(engine().session(CLIENT)).toMatchObject({ kind: 'cmcc', zone: 'carrier', mac: CLIENT_MAC, account: 'cmcc:alice' });
    expect(dataplane.clients.get(CLIENT)?.mac).toBe(CLIENT_MAC);
    const online = json(await get(h.app, admin, '/api/hotspot/online')).data;
    expect(JSON.stringify(online)).toContain('"kind":"cmcc"');
    // Signed in already: the portal server is told so.
    expect((await papAuth(CLIENT, 'alice', 'Secret123')).errCode).toBe(AUTH_ERR.alreadyOnline);

    const logout = await peer.exchange(peer.build(PORTAL_TYPE.REQ_LOGOUT, CLIENT));
    expect(logout.type).toBe(PORTAL_TYPE.ACK_LOGOUT);
    expect(logout.errCode).toBe(LOGOUT_ERR.success);
    expect(engine().session(CLIENT)).toBeUndefined();
    expect(dataplane.clients.has(CLIENT)).toBe(false);
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_LOGOUT, CLIENT))).errCode).toBe(LOGOUT_ERR.failed);
  });

  test('a wrong password or unknown user is rejected; CHAP cannot be checked without the clear password; a client of no cmcc zone is not admitted', async () => {
    expect((await papAuth(CLIENT, 'alice', 'wrong-pass')).errCode).toBe(AUTH_ERR.rejected);
    expect((await papAuth(CLIENT, 'nobody', 'whatever')).errCode).toBe(AUTH_ERR.rejected);
    const { ack } = await peer.chapLogin(CLIENT, 'alice', 'Secret123');
    expect(ack.errCode).toBe(AUTH_ERR.failed);
    expect((await papAuth('10.99.0.5', 'alice', 'Secret123')).errCode).toBe(AUTH_ERR.failed);
    expect(engine().session(CLIENT)).toBeUndefined();
    expect(engine().session('10.99.0.5')).toBeUndefined();
  });

  test('a session the engine ends is reported to the portal server with NTF_LOGOUT', async () => {
    expect((await papAuth(CLIENT, 'alice', 'Secret123')).errCode).toBe(AUTH_ERR.success);
    await engine().kick(CLIENT);
    await h.app.hotspot.cmcc.releaseEnded();
    const notice = await peer.receive();
    expect(notice.type).toBe(PORTAL_TYPE.NTF_LOGOUT);
    expect(notice.userIp).toBe(CLIENT);
    expect(h.app.hotspot.cmcc.state().online).toEqual([]);
    peer.send(peer.build(PORTAL_TYPE.ACK_NTF_LOGOUT, CLIENT, { serialNo: notice.serialNo }));
  });

  test('a blocked device is not admitted', async () => {
    await engine().block(CLIENT_MAC);
    expect((await papAuth(CLIENT, 'alice', 'Secret123')).errCode).toBe(AUTH_ERR.failed);
    expect(engine().session(CLIENT)).toBeUndefined();
    await engine().unblock(CLIENT_MAC);
  });

  test('settings naming an address the device does not have leave the controller stopped; good ones start it again', async () => {
    const good = { cmccurl: 'http://portal.example.net/login?src=ac', cmccip: '127.0.0.1', wlanacip: '127.0.0.1', acname: 'ac-01', version: '2', secret: SECRET, acport: acPort, notifyport: peer.port, flowcheck: 0 };
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: the bind fails, nothing is sent.
    expect((await save({ ...good, wlanacip: '192.0.2.1' })).success).toBe(true);
    expect(await h.app.hotspot.cmcc.sync(true)).toBeNull();
    expect(h.app.hotspot.cmcc.state().running).toBe(false);
    expect((await save(good)).success).toBe(true);
    expect(await h.app.hotspot.cmcc.sync(true)).not.toBeNull();
    expect((await papAuth(CLIENT, 'alice', 'Secret123')).errCode).toBe(AUTH_ERR.success);
    expect(engine().session(CLIENT)?.kind).toBe('cmcc');
  });
});
