import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotRadius } from '@portico/schema';
import { adminClient, ADMIN_PASSWORD, get, login, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { PORTAL_HOST } from './hotspot-fixture.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { freeradiusPrerequisites, freeUdpPort, radclient, startFreeRadius, type FreeRadius } from '../../../tests/support/freeradius-peer.js';

/**
 * RADIUS sign-in end to end against Debian's FreeRADIUS on loopback: the settings page, the
 * connectivity test, PAP and CHAP logins on a `radius` zone, the reply's limits in the engine,
 * accounting rows in FreeRADIUS's detail file, and radclient's Disconnect-Request and
 * CoA-Request on the daemon's dynamic authorisation port.
 */

/** Conditions are waited on, not timed; a shorter bound than the test's names the failing step. */
const WAIT = { timeout: 10_000, interval: 20 };
const missing = freeradiusPrerequisites();
let fr: FreeRadius;
let h: Harness;
let admin: Client;
let dataplane: SimDataplane;
let daePort: number;
/** A loopback UDP socket that never answers: a server that does not respond. */
let silent: Socket;

const USERS = [
  {
    name: 'alice',
    password: 'Alice-pass-1',
    reply: [
      'Session-Timeout = 7200',
      'Idle-Timeout = 300',
      'WISPr-Bandwidth-Max-Up = 512000',
      'WISPr-Bandwidth-Max-Down = 2048000',
      'ChilliSpot-Max-Total-Octets = 50000000',
      'Class = "gold-plan"',
      'Acct-Interim-Interval = 30',
    ],
  },
  { name: 'bob', password: 'Bob-pass-22', reply: ['Mikrotik-Rate-Limit = "256k/1M"', 'Mikrotik-Total-Limit = 1000', 'Mikrotik-Total-Limit-Gigawords = 1'] },
  // Hostile values: a Session-Timeout of 0 and a rate that is not one are ignored, not enforced.
  { name: 'carol', password: 'Carol-pass-3', reply: ['Session-Timeout = 0', 'Mikrotik-Rate-Limit = "fast please"'] },
];

/** Whether another socket already holds 127.0.0.1:port. */
async function udpPortTaken(port: number): Promise<boolean> {
  const probe = createSocket('udp4');
  return new Promise((resolve) => {
    probe.once('error', () => resolve(true));
    probe.bind(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

const portalLogin = async (ip: string, body: Record<string, unknown>) =>
  json(await h.app.hotspot.portal.inject({ method: 'POST', url: '/portal-api/login', payload: { ...body, acceptTerms: true }, remoteAddress: ip, headers: PORTAL_HOST }));
const save = async (body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotRadius.path}`, body));
const online = async () => json(await get(h.app, admin, '/api/hotspot/online')).data.items as Array<Record<string, any>>;
const sessionOf = (ip: string) => h.app.hotspot.engine.session(ip);

describe.skipIf(missing !== null)('RADIUS sign-in against FreeRADIUS', () => {
  let settings: Record<string, unknown>;

  beforeAll(async () => {
    fr = await startFreeRadius(USERS);
    silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    daePort = await freeUdpPort();
    dataplane = new SimDataplane();
    h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1', PORTICO_HOST: '127.0.0.1' }, deps: { hotspot: { dataplane } } });
    admin = await adminClient(h);
    const zone = { action: 'add', name: 'staff', ifname: 'lan', authmodel: 'radius', authtime: 1, authtime_unit: 'days', idletime: 15 };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
    settings = { enabled: true, radiusip: '127.0.0.1', authport: fr.authPort, accoutport: fr.acctPort, timeout: 1, retries: 1, nasid: 'portico-gw', interval: 10, offlineport: daePort };
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await fr?.stop();
    silent?.close();
  });

  test('settings: the secret is required, never read back, and the test uses what was saved', async () => {
    expect(json(await post(h.app, admin, '/api/auth/radiustest', {}))).toMatchObject({ success: false, msg: 'msg.radius.disabled' });
    expect(await save({ ...settings })).toMatchObject({ success: false, errors: { sharekey: 'validation.required' } });
    expect(await save({ ...settings, sharekey: 'x'.repeat(256) })).toMatchObject({ success: false, errors: { sharekey: 'validation.radius.secret' } });
    expect(await save({ ...settings, sharekey: fr.secret, interval: 5 })).toMatchObject({ success: false, errors: { interval: 'validation.hotspot.interval' } });
    expect(await save({ ...settings, sharekey: fr.secret, interval: 301 })).toMatchObject({ success: false, errors: { interval: 'validation.hotspot.interval' } });
    expect(await save({ ...settings, sharekey: fr.secret })).toMatchObject({ success: true });
    // The disconnect port is open by the time the save is answered, not on a later tick.
    expect(await udpPortTaken(daePort)).toBe(true);
    const read = json(await get(h.app, admin, `/api/${hotspotRadius.path}`));
    expect(read.data).toMatchObject({ radiusip: '127.0.0.1', authport: fr.authPort, nasid: 'portico-gw' });
    expect(read.data.sharekey).toBeUndefined();
    expect(JSON.stringify(read)).not.toContain(fr.secret);
    // An empty secret on save keeps the stored one.
    expect(await save({ ...settings, sharekey: '' })).toMatchObject({ success: true });

    expect(json(await post(h.app, admin, '/api/auth/radiustest', { username: 'alice', password: 'Alice-pass-1' }))).toMatchObject({ success: true, data: { accepted: true } });
    expect(json(await post(h.app, admin, '/api/auth/radiustest', { username: 'alice', password: 'wrong' }))).toMatchObject({ success: true, data: { accepted: false } });
    // A wrong secret: FreeRADIUS drops the request (its authenticator does not verify) → timeout.
    expect(await save({ ...settings, sharekey: 'Not-The-Secret' })).toMatchObject({ success: true });
    expect(json(await post(h.app, admin, '/api/auth/radiustest', { username: 'alice', password: 'Alice-pass-1' }))).toMatchObject({ success: false, msg: 'msg.radius.timeout' });
    expect(await save({ ...settings, sharekey: fr.secret })).toMatchObject({ success: true });
  });

  test('PAP: an accepted login carries the reply limits; a reject gives the username-or-password message', async () => {
    expect(await portalLogin('192.168.11.20', { method: 'local', username: 'alice', password: 'wrong' })).toMatchObject({ success: false, msg: 'portal.error.userOrPassword' });
    expect(await portalLogin('192.168.11.20', { method: 'local', username: 'nobody', password: 'Alice-pass-1' })).toMatchObject({ success: false, msg: 'portal.error.userOrPassword' });
    const ok = await portalLogin('192.168.11.20', { method: 'local', username: 'alice', password: 'Alice-pass-1' });
    expect(ok).toMatchObject({ success: true, data: { secondsRemaining: 7200, bytesRemaining: 50_000_000 } });
    const session = sessionOf('192.168.11.20')!;
    expect(session).toMatchObject({ kind: 'radius', account: 'radius:alice', upKbps: 512, downKbps: 2048, idleSeconds: 300, flowLimit: 50_000_000 });
    // The data plane holds the client with the reply's speeds and time-out.
    expect(dataplane.clients.get('192.168.11.20')).toMatchObject({ upKbps: 512, downKbps: 2048, timeoutSeconds: 7200 });
    expect((await online()).find((u) => u.ip === '192.168.11.20')).toMatchObject({ kind: 'radius', username: 'alice' });
  });

  test('vendor attributes (MikroTik) and hostile values', async () => {
    expect(await portalLogin('192.168.11.21', { method: 'local', username: 'bob', password: 'Bob-pass-22' })).toMatchObject({ success: true });
    expect(sessionOf('192.168.11.21')).toMatchObject({ upKbps: 256, downKbps: 1000, flowLimit: 2 ** 32 + 1000 });
    expect(await portalLogin('192.168.11.22', { method: 'local', username: 'carol', password: 'Carol-pass-3' })).toMatchObject({ success: true });
    // Neither the zero time-out nor the unreadable rate got through: the zone's day applies, no speed limit.
    expect(sessionOf('192.168.11.22')).toMatchObject({ upKbps: 0, downKbps: 0, expiresAt: h.clock.now() + 86_400_000 });
  });

  test('CHAP accept and reject', async () => {
    expect(await save({ ...settings, authtype: 'chap' })).toMatchObject({ success: true });
    expect(await portalLogin('192.168.11.23', { method: 'local', username: 'bob', password: 'wrong' })).toMatchObject({ success: false, msg: 'portal.error.userOrPassword' });
    expect(await portalLogin('192.168.11.23', { method: 'local', username: 'bob', password: 'Bob-pass-22' })).toMatchObject({ success: true });
    expect(sessionOf('192.168.11.23')).toMatchObject({ kind: 'radius', account: 'radius:bob' });
    expect(await save({ ...settings, authtype: 'pap' })).toMatchObject({ success: true });
  });

  test('a server that does not answer and one that is not there give their messages', async () => {
    const silentPort = silent.address().port;
    expect(await save({ ...settings, authport: silentPort })).toMatchObject({ success: true });
    expect(await portalLogin('192.168.11.24', { method: 'local', username: 'alice', password: 'Alice-pass-1' })).toMatchObject({ success: false, msg: 'portal.error.authServerTimeout' });
    const closed = await freeUdpPort();
    expect(await save({ ...settings, authport: closed })).toMatchObject({ success: true });
    expect(await portalLogin('192.168.11.24', { method: 'local', username: 'alice', password: 'Alice-pass-1' })).toMatchObject({ success: false, msg: 'portal.error.authServerUnreachable' });
    expect(json(await post(h.app, admin, '/api/auth/radiustest', {}))).toMatchObject({ success: false, msg: 'msg.radius.unreachable' });
    // The second server takes over when the first does not answer.
    expect(await save({ ...settings, authport: fr.authPort, radiusip: '127.0.0.2', radiusip2: '127.0.0.1' })).toMatchObject({ success: true });
    expect(await portalLogin('192.168.11.24', { method: 'local', username: 'alice', password: 'Alice-pass-1' })).toMatchObject({ success: true });
    expect(await save({ ...settings, sharekey: '' })).toMatchObject({ success: true });
    expect(sessionOf('192.168.11.24')).toBeDefined();
  });

  test('accounting Start, Interim-Update with octets and gigawords, Stop with the cause', async () => {
    const of = (user: string, ip: string) => () => fr.detail().filter((r) => r['User-Name'] === user && r['Framed-IP-Address'] === ip);
    const alice = of('alice', '192.168.11.20');
    const carol = of('carol', '192.168.11.22');
    await expect.poll(() => alice().map((r) => r['Acct-Status-Type']), WAIT).toContain('Start');
    const start = alice().find((r) => r['Acct-Status-Type'] === 'Start')!;
    expect(start).toMatchObject({ 'Calling-Station-Id': '02-00-C0-A8-0B-14', 'NAS-Identifier': 'portico-gw', Class: '0x676f6c642d706c616e' });
    await expect.poll(() => carol().map((r) => r['Acct-Status-Type']), WAIT).toContain('Start');
    // carol (no volume limit): 5 GiB up and 3 MB down; the upload wraps 32 bits once.
    dataplane.addTraffic('192.168.11.22', 5 * 2 ** 30, 3_000_000);
    dataplane.addTraffic('192.168.11.20', 1000, 2000);
    await h.app.hotspot.engine.tick();
    // The configured interval is 10 s; alice's server asked for 30 s.
    h.clock.advance(11);
    await expect.poll(() => carol().some((r) => r['Acct-Status-Type'] === 'Interim-Update'), WAIT).toBe(true);
    const interim = carol().find((r) => r['Acct-Status-Type'] === 'Interim-Update')!;
    expect(interim).toMatchObject({ 'Acct-Input-Octets': String(2 ** 30), 'Acct-Input-Gigawords': '1', 'Acct-Output-Octets': '3000000', 'Acct-Output-Gigawords': '0' });
    expect(Number(interim['Acct-Session-Time'])).toBeGreaterThanOrEqual(11);
    expect(alice().some((r) => r['Acct-Status-Type'] === 'Interim-Update')).toBe(false);
    h.clock.advance(20);
    await expect.poll(() => alice().find((r) => r['Acct-Status-Type'] === 'Interim-Update'), WAIT).toMatchObject({ 'Acct-Input-Octets': '1000', 'Acct-Output-Octets': '2000', 'Acct-Session-Id': start['Acct-Session-Id'] });

    // alice goes past the volume her server allowed (50 MB): stopped at once.
    dataplane.addTraffic('192.168.11.20', 60_000_000, 0);
    await h.app.hotspot.engine.tick();
    expect(sessionOf('192.168.11.20')).toBeUndefined();
    await expect.poll(() => alice().find((r) => r['Acct-Status-Type'] === 'Stop'), WAIT).toMatchObject({ 'Acct-Terminate-Cause': 'Session-Timeout', 'Acct-Input-Octets': '60001000' });
    // Kicked by the administrator: Admin-Reset.
    expect(json(await post(h.app, admin, '/api/hotspot/online', { action: 'kickoff', ip: '192.168.11.21' })).success).toBe(true);
    await expect.poll(() => of('bob', '192.168.11.21')().find((r) => r['Acct-Status-Type'] === 'Stop')?.['Acct-Terminate-Cause'], WAIT).toBe('Admin-Reset');
    // Idle past the zone's 15 minutes: Idle-Timeout.
    h.clock.advance(16 * 60);
    await h.app.hotspot.engine.tick();
    await expect.poll(() => carol().find((r) => r['Acct-Status-Type'] === 'Stop')?.['Acct-Terminate-Cause'], WAIT).toBe('Idle-Timeout');
  });

  test('a session past its Session-Timeout stops with Session-Timeout', async () => {
    expect(await portalLogin('192.168.11.30', { method: 'local', username: 'alice', password: 'Alice-pass-1' })).toMatchObject({ success: true });
    dataplane.addTraffic('192.168.11.30', 10, 10);
    h.clock.advance(7201);
    await h.app.hotspot.engine.expireByTime();
    await expect.poll(() => fr.detail().find((r) => r['Framed-IP-Address'] === '192.168.11.30' && r['Acct-Status-Type'] === 'Stop')?.['Acct-Terminate-Cause'], WAIT).toBe('Session-Timeout');
  });

  test('radclient Disconnect-Request cuts the client off; CoA changes its limits; bad requests are refused', async () => {
    expect(await portalLogin('192.168.11.40', { method: 'local', username: 'bob', password: 'Bob-pass-22' })).toMatchObject({ success: true });
    await expect.poll(() => h.app.hotspot.engine.session('192.168.11.40') !== undefined).toBe(true);
    const sid = sessionOf('192.168.11.40')!.outside!.sid;

    // CoA: new speeds and a new time limit, in the engine and the data plane before the ACK.
    const coa = await radclient(daePort, 'coa', fr.secret, `User-Name=bob,Acct-Session-Id=${sid},WISPr-Bandwidth-Max-Down=4000000,Session-Timeout=600`);
    expect(coa.output).toMatch(/CoA-ACK/);
    expect(sessionOf('192.168.11.40')).toMatchObject({ downKbps: 4000, expiresAt: h.clock.now() + 600_000 });
    expect(dataplane.clients.get('192.168.11.40')).toMatchObject({ downKbps: 4000, timeoutSeconds: 600 });

    // Unknown session: NAK with Session-Context-Not-Found.
    const unknown = await radclient(daePort, 'disconnect', fr.secret, 'User-Name=nobody');
    expect(unknown.output).toMatch(/Disconnect-NAK/);
    expect(unknown.output).toMatch(/Error-Cause = Session-Context-Not-Found/);
    // Another NAS's request: NAS-Identification-Mismatch.
    const other = await radclient(daePort, 'disconnect', fr.secret, 'User-Name=bob,NAS-Identifier=other-nas');
    expect(other.output).toMatch(/Error-Cause = NAS-Identification-Mismatch/);
    // Authorize-Only asks for a re-authentication the portal cannot make: Unsupported-Attribute.
    const reauth = await radclient(daePort, 'coa', fr.secret, `User-Name=bob,Service-Type=Authorize-Only`);
    expect(reauth.output).toMatch(/CoA-NAK/);
    expect(reauth.output).toMatch(/Error-Cause = Unsupported-Attribute/);
    // A wrong secret: dropped without an answer, the client stays on.
    const forged = await radclient(daePort, 'disconnect', 'Wrong-Secret', 'User-Name=bob');
    expect(forged.output).not.toMatch(/Disconnect-(ACK|NAK)/);
    expect(sessionOf('192.168.11.40')).toBeDefined();

    const cut = await radclient(daePort, 'disconnect', fr.secret, `User-Name=bob,Acct-Session-Id=${sid}`);
    expect(cut.output).toMatch(/Disconnect-ACK/);
    // Acted on before the answer: gone from the engine and the data plane.
    expect(sessionOf('192.168.11.40')).toBeUndefined();
    expect(dataplane.clients.has('192.168.11.40')).toBe(false);
    // The clock moved past the administrator's session: sign in again to look.
    admin = await login(h.app, 'admin', ADMIN_PASSWORD);
    expect((await online()).some((u) => u.ip === '192.168.11.40')).toBe(false);
    await expect.poll(() => fr.detail().find((r) => r['Acct-Session-Id'] === sid && r['Acct-Status-Type'] === 'Stop')?.['Acct-Terminate-Cause'], WAIT).toBe('Admin-Reset');
  });
});
