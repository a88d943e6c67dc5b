import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotSms } from '@portico/schema';
import { ADMIN_PASSWORD, adminClient, get, json, login, post, startDaemon, tempDir, TestClock, type Client, type Harness } from './daemon-harness.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { SmsSignIn } from '../src/domains/hotspot/sms/sms-signin.js';
import { configRowSingleton } from '../src/config/entity-store.js';
import { migrate, openDatabase } from '../src/plugins/db-open.js';
import { fromClient, portalLogin } from './hotspot-fixture.js';

/**
 * Signing in at the portal with a code sent by SMS, through a loopback stand-in for Twilio's
 * Messages API that checks the Basic credentials and keeps each message's text (so the test
 * learns the code the way the phone would). The code's lifetime and guessing limits, the send
 * cool-down, the SMS log page's data and its clean-up.
 */

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'token-1';
const messages: Array<{ to: string; body: string }> = [];
let failNext = false;
const twilio = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const auth = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    const form = new URLSearchParams(body);
    const ok = auth === `${SID}:${TOKEN}` && !failNext;
    failNext = false;
    if (ok) messages.push({ to: form.get('To') ?? '', body: form.get('Body') ?? '' });
    res.writeHead(ok ? 201 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { sid: `SM${messages.length}`, status: 'queued' } : { code: 20003, message: 'Authenticate' }));
  });
});

let h: Harness;
let admin: Client;
const clock = new TestClock();

beforeAll(async () => {
  await new Promise<void>((resolve) => twilio.listen(0, '127.0.0.1', resolve));
  h = await startDaemon({ clock, env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane: new SimDataplane() } } });
  admin = await adminClient(h);
  const endpoint = `http://127.0.0.1:${(twilio.address() as AddressInfo).port}`;
  const saved = json(await post(h.app, admin, `/api/${hotspotSms.path}`, { enabled: true, platform: 'twilio', accountSid: SID, authToken: TOKEN, from: '+15005550006', endpoint, codeTemplate: 'Your Wi-Fi code is ##code##' }));
  expect(saved.success, JSON.stringify(saved)).toBe(true);
  const zone = { action: 'add', name: 'cafe', ifname: 'lan', authmodel: 'sms', authtime: 2, authtime_unit: 'hours' };
  expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
});
afterAll(async () => {
  await h.close();
  await new Promise((resolve) => twilio.close(resolve));
});

const askCode = async (ip: string, phone: string) => json(await h.app.hotspot.portal.inject({ method: 'POST', url: '/portal-api/sms/code', payload: { phone }, ...fromClient(ip) }));
const signIn = (ip: string, phone: string, code: string) => portalLogin(h.app.hotspot.portal, ip, { method: 'sms', phone, code });
const lastCode = () => /(\d{6})$/.exec(messages.at(-1)!.body)![1]!;
const wrong = (code: string, i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');

describe('SMS-code sign-in on the portal', () => {
  test('the zone offers the sms method; a code goes to the phone and signs the client in once', async () => {
    const state = json(await h.app.hotspot.portal.inject({ method: 'GET', url: '/portal-api/state', ...fromClient('192.168.11.40') }));
    expect(state.data.zone.methods).toEqual(['sms']);
    const sent = await askCode('192.168.11.40', '+8613800138000');
    expect(sent).toEqual({ success: true, data: { expiresAt: clock.ms + 5 * 60_000, resendSeconds: 60 } });
    expect(messages.at(-1)).toMatchObject({ to: '+8613800138000', body: expect.stringMatching(/^Your Wi-Fi code is \d{6}$/) });
    const code = lastCode();
    expect(await signIn('192.168.11.40', '+8613800138000', wrong(code, 0))).toEqual({ success: false, msg: 'portal.error.code' });
    expect(await signIn('192.168.11.40', '+86 138-0013-8000', code)).toMatchObject({ success: true, data: { secondsRemaining: 7200 } });
    const online = json(await get(h.app, admin, '/api/hotspot/online')).data.items as Array<{ ip: string; kind: string; username: string }>;
    expect(online).toContainEqual(expect.objectContaining({ ip: '192.168.11.40', kind: 'sms', username: '+8613800138000' }));
    // A code signs in once.
    expect(await signIn('192.168.11.41', '+8613800138000', code)).toEqual({ success: false, msg: 'portal.error.code' });
  });

  test('a second code waits out the cool-down; a code dies after its lifetime', async () => {
    expect(await askCode('192.168.11.42', '+8613800138001')).toMatchObject({ success: true });
    const before = messages.length;
    expect(await askCode('192.168.11.42', '+8613800138001')).toEqual({ success: false, msg: 'portal.error.smsCooldown', data: { resendSeconds: 60 } });
    // Another number from the same device waits too: the cool-down is per phone and per device.
    expect(await askCode('192.168.11.42', '+8613800138002')).toMatchObject({ success: false, msg: 'portal.error.smsCooldown' });
    expect(messages.length).toBe(before);
    const code = lastCode();
    clock.advance(5 * 60 + 1);
    expect(await signIn('192.168.11.42', '+8613800138001', code)).toEqual({ success: false, msg: 'portal.error.code' });
  });

  test('a parallel burst of wrong codes voids the code after five tries and the number after ten', async () => {
    clock.advance(61);
    const phone = '+8613800138003';
    expect(await askCode('192.168.11.50', phone)).toMatchObject({ success: true });
    const code = lastCode();
    // Twenty clients guess at once: the code dies after five wrong tries, so the right one fails after.
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(`192.168.11.${60 + i}`, phone, wrong(code, i))));
    expect(burst.every((r) => r.success === false && (r.msg === 'portal.error.code' || r.msg === 'portal.error.tooMany'))).toBe(true);
    expect(await signIn('192.168.11.50', phone, code)).toEqual({ success: false, msg: 'portal.error.code' });
    // A fresh code for the number: five more tries reach the number's ten in its window.
    clock.advance(61);
    expect(await askCode('192.168.11.51', phone)).toMatchObject({ success: true });
    const second = lastCode();
    const again = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(`192.168.11.${100 + i}`, phone, wrong(second, i))));
    expect(again.filter((r) => r.msg === 'portal.error.tooMany').length).toBeGreaterThanOrEqual(15);
    expect(await signIn('192.168.11.51', phone, second)).toEqual({ success: false, msg: 'portal.error.tooMany' });
  });

  test('a failed send withdraws the code and tells the guest only that it failed; bad numbers and other zones are refused', async () => {
    clock.advance(61);
    failNext = true;
    expect(await askCode('192.168.11.70', '+8613800138004')).toEqual({ success: false, msg: 'portal.error.smsSend' });
    expect(await askCode('192.168.11.71', 'call me')).toEqual({ success: false, msg: 'portal.error.phone' });
    expect(await askCode('192.168.11.71', '')).toMatchObject({ success: false, errors: { phone: 'portal.validation.required' } });
    // A client outside every zone (the portal listener's own loopback on the linux-like setup) gets nothing.
    expect(json(await h.app.hotspot.portal.inject({ method: 'POST', url: '/portal-api/sms/code', payload: { phone: '+8613800138005' }, ...fromClient('10.9.9.9') }))).toMatchObject({
      success: false,
      msg: 'portal.error.notConfigured',
    });
  });

  test('the SMS log lists each send masked, newest first, survives a restart and can be cleaned', async () => {
    const read = async (app = h.app, client = admin) => json(await get(app, client, '/api/sysconf/log?name=sms')).data as { items: Array<{ origin: string; level: string; key: string; values: Record<string, string> }>; total: number };
    const log = await read();
    expect(log.total).toBe(5);
    expect(log.items[0]).toMatchObject({ origin: 'twilio', level: 'err', key: 'logs.sms.failed', values: { phone: '+861********04', kindKey: 'smsLog.kind.code', outcomeKey: 'msg.sms.send.authFailed' } });
    expect(log.items.filter((e) => e.key === 'logs.sms.sent')).toHaveLength(4);
    const text = JSON.stringify(log);
    expect(text).not.toContain('13800138000');
    for (const m of messages) expect(text).not.toContain(/(\d{6})$/.exec(m.body)![1]);
    const restarted = await h.restart();
    try {
      const again = await login(restarted.app, 'admin', ADMIN_PASSWORD);
      expect((await read(restarted.app, again)).total).toBe(5);
      const file = await get(restarted.app, again, '/api/sysconf/log?name=sms&action=download');
      const lines = file.body.trimEnd().split('\n');
      expect(lines).toHaveLength(5);
      expect(lines[0]).toMatch(/^2025-03-01T\d\d:\d\d:\d\d\.000Z info    twilio: logs\.sms\.sent phone=\+861\*{8}00 kindKey=smsLog\.kind\.code outcomeKey=msg\.sms\.send\.ok$/);
      expect(lines[4]).toMatch(/ err     twilio: logs\.sms\.failed phone=\+861\*{8}04 .*outcomeKey=msg\.sms\.send\.authFailed$/);
      expect(json(await post(restarted.app, again, '/api/sysconf/log', { action: 'clean', name: 'sms' }))).toEqual({ success: true, data: {} });
      expect((await read(restarted.app, again)).total).toBe(0);
    } finally {
      await restarted.close();
    }
  });

});

describe('the portal-wide send budget', () => {
  test('parallel requests for new numbers from new devices stop at the budget until a minute has passed', async () => {
    const db = openDatabase(':memory:');
    migrate(db);
    const budgetClock = new TestClock();
    const endpoint = `http://127.0.0.1:${(twilio.address() as AddressInfo).port}`;
    const row = hotspotSms.schema.parse({ enabled: true, platform: 'twilio', accountSid: SID, authToken: TOKEN, from: '+15005550006', endpoint, codeTemplate: 'Code ##code##' });
    configRowSingleton(db, hotspotSms.name, budgetClock.now).write(row as never);
    const sms = new SmsSignIn({ db, now: budgetClock.now, settings: { stateDir: tempDir() } as never }, { sendsPerMinute: 3 });
    const before = messages.length;
    const ask = (i: number) => sms.sendCode(`+861390000${String(i).padStart(4, '0')}`, `02:00:00:00:01:${i.toString(16).padStart(2, '0')}`);
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => ask(i)));
    expect(burst.filter((r) => r.ok)).toHaveLength(3);
    expect(burst.filter((r) => !r.ok && r.error === 'msg.sms.send.rateLimited')).toHaveLength(5);
    expect(messages.length - before).toBe(3);
    budgetClock.advance(60);
    expect(await ask(20)).toMatchObject({ ok: true });
  });
});
