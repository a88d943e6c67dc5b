import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { hotspotCmcc, hotspotRusystem, hotspotWifidog, hotspotZone } from '@portico/schema';
import { hotspotConfigOf } from '../src/domains/hotspot/hotspot-config.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { uamChapResponse, uamChecksum, uamDecodePap, uamEncodePap, uamServerUrl } from '../src/domains/hotspot/rusystem/rusystem-uam.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { fromClient } from './hotspot-fixture.js';
import { forgetSealedPassword } from './local-user-fixture.js';
import { LocalUserStore } from '../src/domains/hotspot-config/local-user-store.js';

/**
 * RU system (UAM in the style of CoovaChilli): the challenge, `md` checksum and PAP/CHAP
 * encodings against answers computed independently (Python hashlib, as hotspotlogin.cgi does
 * it), then the daemon: a zone of auth model rusystem redirects with res=notyet, the UAM
 * server's return to /logon signs a local user in through the engine and sends the browser
 * back with res=success, and every failure path answers res=failed with a fresh challenge.
 */

const CHALLENGE = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
const SECRET = 's3cret';

describe('the UAM encodings', () => {
  test('md, PAP and CHAP match hotspotlogin.cgi', () => {
    expect(uamChecksum('http://uam.example.net/login?res=notyet&uamip=192.168.11.1', SECRET)).toBe('395100338ECA65C157ACBAF1C084153F');
    expect(uamEncodePap('Secret123', CHALLENGE, SECRET)).toBe('47527aa5a5dbbdeb0947e9b366ba38dc');
    expect(uamDecodePap('47527aa5a5dbbdeb0947e9b366ba38dc', CHALLENGE, SECRET)).toBe('Secret123');
    expect(uamChapResponse('Secret123', CHALLENGE, SECRET)).toBe('f0930349b1957c4c4e98de8c24ec617d');
    // Longer than one block, and non-ASCII.
    expect(uamDecodePap(uamEncodePap('a much longer pass phrase 密码', CHALLENGE, SECRET), CHALLENGE, SECRET)).toBe('a much longer pass phrase 密码');
    for (const bad of ['', 'abc', 'zz'.repeat(8), '00'.repeat(200)]) expect(uamDecodePap(bad, CHALLENGE, SECRET), bad).toBeNull();
  });

  test('the server URL keeps authurl\'s query, encodes every value and signs what precedes &md=', () => {
    const url = uamServerUrl('http://uam.example.net/login?site=7', [['userurl', 'http://x/?a=1&b=<"\'>'], ['res', 'notyet']], SECRET);
    const [signed, md] = url.split('&md=') as [string, string];
    expect(signed).toBe('http://uam.example.net/login?site=7&userurl=http%3A%2F%2Fx%2F%3Fa%3D1%26b%3D%3C%22%27%3E&res=notyet');
    expect(md).toBe(createHash('md5').update(signed + SECRET).digest('hex').toUpperCase());
  });
});

describe('the outside portals\' servers are reachable before sign-in', () => {
  test('the servers of the outside portals in use join the white list; those of unused models do not', () => {
    const zone = (id: string, authmodel: string) => ({ id, data: { ...(hotspotZone.schema.parse({ id, name: id, ifname: 'lan', authmodel }) as object) } });
    const sections = {
      [hotspotWifidog.name]: [{ id: '', data: { server: 'auth.example.net' } }],
      [hotspotCmcc.name]: [{ id: '', data: { cmccurl: 'http://portal.example.com:8080/login', cmccip: '10.20.30.40', wlanacip: '192.168.11.1' } }],
      [hotspotRusystem.name]: [{ id: '', data: { authurl: 'https://203.0.113.9/uam' } }],
    };
    const used = hotspotConfigOf({ hotspotZone: [zone('a', 'wifidog'), zone('b', 'cmcc'), zone('c', 'rusystem')], ...sections });
    expect(used.whiteList).toEqual([
      { type: 'url', value: 'auth.example.net' },
      { type: 'url', value: 'portal.example.com' },
      { type: 'ip', value: '10.20.30.40' },
      { type: 'ip', value: '203.0.113.9' },
    ]);
    expect(hotspotConfigOf({ hotspotZone: [zone('a', 'webportal')], ...sections }).whiteList).toEqual([]);
  });
});

const CLIENT = '192.168.11.70';
const CLIENT_MAC = '02:00:c0:a8:0b:46';
let h: Harness;
let admin: Client;
const dataplane = new SimDataplane();

beforeAll(async () => {
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane } } });
  admin = await adminClient(h);
  const user = { action: 'add', username: 'alice', password: 'Secret123', confirm: 'Secret123', usernum: 0 };
  expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const save = async (body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotRusystem.path}`, body));
const engine = () => h.app.hotspot.engine;
const portal = () => h.app.hotspot.portal;

/** The captive redirect's parameters, its md checked with the shared secret. */
async function notyet(ip = CLIENT): Promise<URLSearchParams> {
  const reply = await portal().inject({ method: 'GET', url: '/page?q=1', remoteAddress: ip, headers: { host: 'example.com' } });
  expect(reply.statusCode).toBe(302);
  const location = reply.headers.location as string;
  const [signed, md] = location.split('&md=') as [string, string];
  expect(md).toBe(uamChecksum(signed, SECRET));
  return new URL(location).searchParams;
}

/** The UAM server's answer: the browser back at /logon; returns the result's parameters. */
async function logon(query: Record<string, string>, ip = CLIENT): Promise<URLSearchParams> {
  const reply = await portal().inject({ method: 'GET', url: `/logon?${new URLSearchParams(query)}`, ...fromClient(ip) });
  expect(reply.statusCode, reply.body).toBe(302);
  const location = reply.headers.location as string;
  expect(location.startsWith('http://uam.example.net/login?site=7&')).toBe(true);
  const [signed, md] = location.split('&md=') as [string, string];
  expect(md).toBe(uamChecksum(signed, SECRET));
  return new URL(location).searchParams;
}

describe('before any zone of auth model rusystem', () => {
  test('/logon and /logoff of a client of no rusystem zone send the browser to the portal page with the reason', async () => {
    for (const url of ['/logon?username=alice&password=00', '/logoff']) {
      const reply = await portal().inject({ method: 'GET', url, ...fromClient(CLIENT) });
      expect(reply.statusCode, url).toBe(302);
      expect(reply.headers.location, url).toBe('/auth/portal?error=portal.error.notConfigured');
    }
  });
});

describe('a zone of auth model rusystem', () => {
  beforeAll(async () => {
    expect(await save({ authurl: 'javascript:alert(1)' })).toMatchObject({ success: false, errors: { authurl: 'validation.url' } });
    expect(await save({ nasid: 'a b' })).toMatchObject({ success: false, errors: { nasid: 'validation.rusystem.nasid' } });
    expect((await save({ authurl: 'http://uam.example.net/login?site=7', uamsecret: SECRET, redirect_url: 'https://venue.example.org/welcome', nasid: 'ru-1' })).success).toBe(true);
    expect(JSON.stringify(json(await get(h.app, admin, `/api/${hotspotRusystem.path}`)).data)).not.toContain(SECRET);
    const zone = { action: 'add', name: 'ru', ifname: 'lan', authmodel: 'rusystem', authtime: 1, authtime_unit: 'days' };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
  });

  test('the captive redirect carries res=notyet, uamip, uamport, a challenge, mac, ip, nasid and userurl', async () => {
    const q = await notyet();
    expect(q.get('site')).toBe('7');
    expect(q.get('res')).toBe('notyet');
    expect(q.get('uamip')).toBe('192.168.11.1');
    expect(q.get('uamport')).toBe('2050');
    expect(q.get('challenge')).toMatch(/^[0-9a-f]{32}$/);
    expect(q.get('mac')).toBe('02-00-C0-A8-0B-46');
    expect(q.get('ip')).toBe(CLIENT);
    expect(q.get('nasid')).toBe('ru-1');
    expect(q.get('userurl')).toBe('http://example.com/page?q=1');
    // Each redirect has a fresh challenge.
    expect((await notyet()).get('challenge')).not.toBe(q.get('challenge'));
  });

  test('the captive API\'s portal address leads an unsigned client to the UAM server; an error brought back is shown here', async () => {
    const captive = JSON.parse((await portal().inject({ method: 'GET', url: '/captive', ...fromClient(CLIENT) })).body);
    expect(captive).toMatchObject({ captive: true });
    const landing = new URL(captive['user-portal-url']);
    const reply = await portal().inject({ method: 'GET', url: `${landing.pathname}?url=${encodeURIComponent('http://example.com/news')}`, ...fromClient(CLIENT) });
    expect(reply.statusCode).toBe(302);
    const q = new URL(reply.headers.location as string).searchParams;
    expect(q.get('res')).toBe('notyet');
    expect(q.get('userurl')).toBe('http://example.com/news');
    // Only a web address goes along.
    const hostile = await portal().inject({ method: 'GET', url: `/auth/portal?url=${encodeURIComponent('javascript:alert(1)')}`, ...fromClient(CLIENT) });
    expect(new URL(hostile.headers.location as string).searchParams.get('userurl')).toBe('');
    const error = await portal().inject({ method: 'GET', url: '/auth/portal?error=portal.error.userOrPassword', ...fromClient(CLIENT) });
    expect(error.statusCode).not.toBe(302);
  });

  test('a PAP logon with the right password signs the client in (res=success), once per challenge; logoff signs it out', async () => {
    const challenge = Buffer.from((await notyet()).get('challenge')!, 'hex');
    const password = uamEncodePap('Secret123', challenge, SECRET);
    const ok = await logon({ username: 'alice', password, userurl: 'http://example.com/page?q=1' });
    expect(ok.get('res')).toBe('success');
    expect(ok.get('redirurl')).toBe('https://venue.example.org/welcome');
    expect(ok.get('userurl')).toBe('http://example.com/page?q=1');
    expect(engine().session(CLIENT)).toMatchObject({ kind: 'rusystem', account: 'rusystem:alice', mac: CLIENT_MAC });
    expect(JSON.stringify(json(await get(h.app, admin, '/api/hotspot/online')).data)).toContain('"kind":"rusystem"');
    // Signed in already.
    expect((await logon({ username: 'alice', password })).get('res')).toBe('already');

    const off = await portal().inject({ method: 'GET', url: '/logoff', ...fromClient(CLIENT) });
    expect(new URL(off.headers.location as string).searchParams.get('res')).toBe('logoff');
    expect(engine().session(CLIENT)).toBeUndefined();
    // The spent challenge does not sign in again.
    const replay = await logon({ username: 'alice', password });
    expect(replay.get('res')).toBe('failed');
    expect(replay.get('reply')).toBe('portal.error.authFailed');
    expect(engine().session(CLIENT)).toBeUndefined();
  });

  test('a CHAP logon (response=) with a local account is checked against its sealed password and signs the client in', async () => {
    const challenge = Buffer.from((await notyet()).get('challenge')!, 'hex');
    const ok = await logon({ username: 'alice', response: uamChapResponse('Secret123', challenge, SECRET), userurl: 'http://example.com/' });
    expect(ok.get('res')).toBe('success');
    expect(engine().session(CLIENT)).toMatchObject({ kind: 'rusystem', account: 'rusystem:alice', mac: CLIENT_MAC });
    await portal().inject({ method: 'GET', url: '/logoff', ...fromClient(CLIENT) });
    expect(engine().session(CLIENT)).toBeUndefined();
    // After a wrong response, the failure's fresh challenge takes the right one (an address of its
    // own: the failures below count against CLIENT).
    const ip = '192.168.11.76';
    const again = Buffer.from((await notyet(ip)).get('challenge')!, 'hex');
    const wrong = await logon({ username: 'alice', response: uamChapResponse('Secret124', again, SECRET) }, ip);
    expect(wrong.get('reply')).toBe('portal.error.userOrPassword');
    const right = await logon({ username: 'alice', response: uamChapResponse('Secret123', Buffer.from(wrong.get('challenge')!, 'hex'), SECRET) }, ip);
    expect(right.get('res')).toBe('success');
    await portal().inject({ method: 'GET', url: '/logoff', ...fromClient(ip) });
  });

  test('an account made before passwords were sealed fails CHAP with the reason and still signs in by PAP', async () => {
    const ip = '192.168.11.75';
    const user = { action: 'add', username: 'oldtimer', password: 'Oldtimer1', confirm: 'Oldtimer1', usernum: 0 };
    expect(json(await post(h.app, admin, '/api/auth/userauth', user)).success).toBe(true);
    forgetSealedPassword(h.stateDir, 'oldtimer');
    let q = await notyet(ip);
    const failed = await logon({ username: 'oldtimer', response: uamChapResponse('Oldtimer1', Buffer.from(q.get('challenge')!, 'hex'), SECRET) }, ip);
    expect(failed.get('res')).toBe('failed');
    expect(failed.get('reply')).toBe('portal.error.needPassword');
    expect(engine().session(ip)).toBeUndefined();
    q = await notyet(ip);
    expect((await logon({ username: 'oldtimer', password: uamEncodePap('Oldtimer1', Buffer.from(q.get('challenge')!, 'hex'), SECRET) }, ip)).get('res')).toBe('success');
    await engine().kick(ip);
  });

  test('failures: wrong password, unknown user, wrong CHAP response, no challenge, another device; each with a fresh challenge', async () => {
    let q = await notyet();
    let failed = await logon({ username: 'alice', password: uamEncodePap('wrong-one', Buffer.from(q.get('challenge')!, 'hex'), SECRET) });
    expect(failed.get('res')).toBe('failed');
    expect(failed.get('reply')).toBe('portal.error.userOrPassword');
    expect(failed.get('challenge')).toMatch(/^[0-9a-f]{32}$/);
    // The fresh challenge of the failure works for the next try.
    const retry = await logon({ username: 'alice', password: uamEncodePap('Secret123', Buffer.from(failed.get('challenge')!, 'hex'), SECRET) });
    expect(retry.get('res')).toBe('success');
    await engine().kick(CLIENT);

    q = await notyet();
    failed = await logon({ username: 'nobody', password: uamEncodePap('Secret123', Buffer.from(q.get('challenge')!, 'hex'), SECRET) });
    expect(failed.get('reply')).toBe('portal.error.userOrPassword');
    q = await notyet();
    failed = await logon({ username: 'alice', response: uamChapResponse('Secret124', Buffer.from(q.get('challenge')!, 'hex'), SECRET) });
    expect(failed.get('res')).toBe('failed');
    expect(failed.get('reply')).toBe('portal.error.userOrPassword');
    // A password encoded with another secret decodes to garbage and signs nobody in.
    q = await notyet();
    failed = await logon({ username: 'alice', password: uamEncodePap('Secret123', Buffer.from(q.get('challenge')!, 'hex'), 'other') });
    expect(failed.get('res')).toBe('failed');
    // A challenge issued to one address is not another's: without one of its own, no logon.
    q = await notyet('192.168.11.71');
    await portal().inject({ method: 'GET', url: '/logoff', ...fromClient('192.168.11.73') });
    failed = await logon({ username: 'alice', password: uamEncodePap('Secret123', Buffer.from(q.get('challenge')!, 'hex'), SECRET) }, '192.168.11.73');
    expect(failed.get('reply')).toBe('portal.error.authFailed');
    expect(engine().session('192.168.11.73')).toBeUndefined();
    expect(engine().session(CLIENT)).toBeUndefined();
  });

  test('guessing: a parallel burst of wrong logons checks at most five, then the right password is refused too', async () => {
    const ip = '192.168.11.72';
    const q = await notyet(ip);
    const challenge = Buffer.from(q.get('challenge')!, 'hex');
    // Every logon spends the standing challenge and a failure issues the next: whatever order
    // the burst runs in, each wrong password checked is counted before it is checked.
    const burst = await Promise.all(Array.from({ length: 12 }, () => logon({ username: 'alice', password: uamEncodePap('bad-pass', challenge, SECRET) }, ip)));
    const replies = burst.map((r) => r.get('reply'));
    expect(replies.every((r) => r === 'portal.error.userOrPassword' || r === 'portal.error.tooMany' || r === 'portal.error.authFailed')).toBe(true);
    let next = burst.at(-1)!.get('challenge')!;
    for (let i = 0; i < 6; i++) {
      const r = await logon({ username: 'alice', password: uamEncodePap('bad-pass', Buffer.from(next, 'hex'), SECRET) }, ip);
      next = r.get('challenge')!;
    }
    const right = await logon({ username: 'alice', password: uamEncodePap('Secret123', Buffer.from(next, 'hex'), SECRET) }, ip);
    expect(right.get('reply')).toBe('portal.error.tooMany');
    expect(engine().session(ip)).toBeUndefined();
    // The limiter was asked before every check: never more than five wrong guesses went through.
    expect(replies.filter((r) => r === 'portal.error.userOrPassword').length).toBeLessThanOrEqual(5);
  });

  test('guessing: a parallel burst of wrong CHAP responses checks at most five, then the right response is refused too', async () => {
    const ip = '192.168.11.74';
    const checks = vi.spyOn(LocalUserStore.prototype, 'verifyLocalUserChap');
    let next = (await notyet(ip)).get('challenge')!;
    const burst = await Promise.all(
      Array.from({ length: 12 }, () => logon({ username: 'alice', response: uamChapResponse('bad-pass', Buffer.from(next, 'hex'), SECRET) }, ip)),
    );
    const replies = burst.map((r) => r.get('reply'));
    expect(replies.every((r) => r === 'portal.error.userOrPassword' || r === 'portal.error.tooMany' || r === 'portal.error.authFailed')).toBe(true);
    expect(replies.filter((r) => r === 'portal.error.userOrPassword').length).toBeLessThanOrEqual(5);
    next = burst.at(-1)!.get('challenge')!;
    for (let i = 0; i < 6; i++) next = (await logon({ username: 'alice', response: uamChapResponse('bad-pass', Buffer.from(next, 'hex'), SECRET) }, ip)).get('challenge')!;
    const right = await logon({ username: 'alice', response: uamChapResponse('Secret123', Buffer.from(next, 'hex'), SECRET) }, ip);
    expect(right.get('reply')).toBe('portal.error.tooMany');
    expect(engine().session(ip)).toBeUndefined();
    // Each try was reserved before its check: five wrong responses were checked, nothing after.
    expect(checks).toHaveBeenCalledTimes(5);
    checks.mockRestore();
  });

  test('a blocked device is refused', async () => {
    await engine().block(CLIENT_MAC);
    const failed = await logon({ username: 'alice', password: '00' });
    expect(failed.get('reply')).toBe('portal.error.blocked');
    await engine().unblock(CLIENT_MAC);
  });
});
