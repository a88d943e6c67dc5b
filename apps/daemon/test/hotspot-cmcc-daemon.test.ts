import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotCmcc } from '@portico/schema';
import { AUTH_ERR, LOGOUT_ERR } from '../src/domains/hotspot/cmcc/cmcc-ac.js';
import { chapResponse, decodePortalPacket, PORTAL_ATTR, PORTAL_TYPE, portalAttribute, textAttribute } from '../src/domains/hotspot/cmcc/cmcc-packet.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { PortalPeer, SECRET, until } from './hotspot-cmcc-fixture.js';
import { forgetSealedPassword } from './local-user-fixture.js';

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

  test('REQ_AUTH (CHAP) with a local account is checked against its sealed password and admits the user', async () => {
    const { ack } = await peer.chapLogin(CLIENT, 'alice', 'Secret123');
    expect(ack.type).toBe(PORTAL_TYPE.ACK_AUTH);
    expect(ack.errCode).toBe(AUTH_ERR.success);
    expect(engine().session(CLIENT)).toMatchObject({ kind: 'cmcc', zone: 'carrier', mac: CLIENT_MAC, account: 'cmcc:alice' });
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_LOGOUT, CLIENT))).errCode).toBe(LOGOUT_ERR.success);
    expect(engine().session(CLIENT)).toBeUndefined();
  });

  test('a wrong password or unknown user is rejected, by PAP or CHAP; a client of no cmcc zone is not admitted', async () => {
    expect((await papAuth(CLIENT, 'alice', 'wrong-pass')).errCode).toBe(AUTH_ERR.rejected);
    expect((await papAuth(CLIENT, 'nobody', 'whatever')).errCode).toBe(AUTH_ERR.rejected);
    expect((await peer.chapLogin(CLIENT, 'alice', 'Secret124')).ack.errCode).toBe(AUTH_ERR.rejected);
    expect((await peer.chapLogin(CLIENT, 'nobody', 'Secret123')).ack.errCode).toBe(AUTH_ERR.rejected);
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

  test('an account made before passwords were sealed fails CHAP with the reason, is named in the auth log, and still signs in by PAP', async () => {
    // An address of its own: the wrong guesses of the tests above count against CLIENT.
    const OTHER = '192.168.11.61';
    const user = { action: 'add', username: 'oldtimer', password: 'Oldtimer1', confirm: 'Oldtimer1', usernum: 0 };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    forgetSealedPassword(h.stateDir, 'oldtimer');
    const { ack } = await peer.chapLogin(OTHER, 'oldtimer', 'Oldtimer1');
    expect(ack.errCode).toBe(AUTH_ERR.rejected);
    expect(portalAttribute(ack, PORTAL_ATTR.TextInfo)?.toString()).toBe('portal.error.needPassword');
    expect(engine().session(OTHER)).toBeUndefined();
    const log = json(await get(h.app, admin, '/api/sysconf/log?name=auth&size=20')).data.items as Array<{ key: string; values: Record<string, string> }>;
    expect(log.find((entry) => entry.key === 'logs.auth.chapNeedsPassword')?.values).toEqual({ account: 'oldtimer' });
    expect((await papAuth(OTHER, 'oldtimer', 'Oldtimer1')).errCode).toBe(AUTH_ERR.success);
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_LOGOUT, OTHER))).errCode).toBe(LOGOUT_ERR.success);
    // A new password seals it: CHAP works from then on.
    const id = (json(await get(h.app, admin, '/api/auth/userauth')).data.items as Array<{ id: string; username: string }>).find((u) => u.username === 'oldtimer')!.id;
    expect(json(await post(h.app, admin, '/api/auth/userauth', { action: 'update', id, password: 'Oldtimer2', confirm: 'Oldtimer2' })).success).toBe(true);
    expect((await peer.chapLogin(OTHER, 'oldtimer', 'Oldtimer2')).ack.errCode).toBe(AUTH_ERR.success);
    expect((await peer.exchange(peer.build(PORTAL_TYPE.REQ_LOGOUT, OTHER))).errCode).toBe(LOGOUT_ERR.success);
  });

  test('a parallel burst of wrong CHAP answers for one account from many addresses checks at most five; then the right one is refused', async () => {
    const user = { action: 'add', username: 'carol', password: 'CarolPass1', confirm: 'CarolPass1', usernum: 0 };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    const checksBefore = h.app.hotspot.cmcc.state().stats!.checks;
    const addresses = Array.from({ length: 12 }, (_, i) => `192.168.11.${100 + i}`);
    const requests = new Map<string, Buffer>();
    for (const ip of addresses) {
      const challenge = await peer.exchange(peer.build(PORTAL_TYPE.REQ_CHALLENGE, ip));
      const value = portalAttribute(challenge, PORTAL_ATTR.Challenge)!;
      const attributes = [textAttribute(PORTAL_ATTR.UserName, 'carol'), { type: PORTAL_ATTR.ChapPassWord, value: chapResponse(challenge.reqId, `wrong-${ip}`, value) }];
      requests.set(ip, peer.build(PORTAL_TYPE.REQ_AUTH, ip, { reqId: challenge.reqId, attributes }));
    }
    // All twelve at once: their answers come back in any order, each signed over its own request.
    for (const request of requests.values()) peer.send(request);
    await until(() => peer.inbox.length === addresses.length);
    const answers = peer.inbox.splice(0).map(({ bytes }) => {
      const request = requests.get([...bytes.subarray(8, 12)].join('.'))!;
      const decoded = decodePortalPacket(bytes, { version: 2, secret: SECRET, requestAuthenticator: request.subarray(16, 32) });
      if (!decoded.ok) throw new Error(decoded.code);
      return decoded.packet;
    });
    expect(answers.map((a) => a.errCode)).toEqual(addresses.map(() => AUTH_ERR.rejected));
    // Each try was reserved before its check: the limiter let five through, the rest were never checked.
    expect(h.app.hotspot.cmcc.state().stats!.checks - checksBefore).toBe(5);
    const right = await peer.chapLogin('192.168.11.120', 'carol', 'CarolPass1');
    expect(right.ack.errCode).toBe(AUTH_ERR.rejected);
    expect(engine().session('192.168.11.120')).toBeUndefined();
    // After the lock the right answer signs in.
    h.clock.advance(301);
    expect((await peer.chapLogin('192.168.11.120', 'carol', 'CarolPass1')).ack.errCode).toBe(AUTH_ERR.success);
    expect(engine().session('192.168.11.120')).toMatchObject({ kind: 'cmcc', account: 'cmcc:carol' });
  });
});
