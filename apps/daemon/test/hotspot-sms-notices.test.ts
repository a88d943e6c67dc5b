import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotSms } from '@portico/schema';
import { ADMIN_PASSWORD, adminClient, get, json, login, post, startDaemon, TestClock, type Client, type Harness } from './daemon-harness.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';

/**
 * The new-account and due SMS notices of local accounts, through a loopback stand-in for
 * Twilio's Messages API that keeps each message's text: an account added with its SMS box
 * ticked gets its name and password; one within a day of its due time gets the due notice once,
 * again only for a new due time; a failed send is tried on the next round and logged.
 */

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'token-1';
const messages: Array<{ to: string; body: string }> = [];
let failing = false;
const twilio = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const form = new URLSearchParams(body);
    if (!failing) messages.push({ to: form.get('To') ?? '', body: form.get('Body') ?? '' });
    res.writeHead(failing ? 401 : 201, { 'content-type': 'application/json' });
    res.end(JSON.stringify(failing ? { code: 20003, message: 'Authenticate' } : { sid: `SM${messages.length}`, status: 'queued' }));
  });
});

let h: Harness;
let admin: Client;
const clock = new TestClock();
const pad = (n: number) => String(n).padStart(2, '0');
/** A due time (local time, minutes) `ms` after the clock. */
const dueIn = (ms: number) => {
  const d = new Date(clock.ms + ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const HOUR = 3600_000;
const addUser = async (fields: Record<string, unknown>) => json(await post(h.app, admin, '/api/auth/userauth', { action: 'add', password: 'Guestpass1', confirm: 'Guestpass1', ...fields }));

beforeAll(async () => {
  await new Promise<void>((resolve) => twilio.listen(0, '127.0.0.1', resolve));
  h = await startDaemon({ clock, env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane: new SimDataplane() } } });
  admin = await adminClient(h);
  const endpoint = `http://127.0.0.1:${(twilio.address() as AddressInfo).port}`;
  const saved = json(
    await post(h.app, admin, `/api/${hotspotSms.path}`, {
      enabled: true,
      platform: 'twilio',
      accountSid: SID,
      authToken: TOKEN,
      from: '+15005550006',
      endpoint,
      accountTemplate: 'Wi-Fi account ##account## password ##password## until ##expire##',
      dueTemplate: 'Wi-Fi account ##account## ends ##expire##',
    }),
  );
  expect(saved.success, JSON.stringify(saved)).toBe(true);
});
afterAll(async () => {
  await h.close();
  await new Promise((resolve) => twilio.close(resolve));
});

describe('SMS notices of local accounts', () => {
  test('an account added with its SMS box ticked gets its name and password; one without gets nothing', async () => {
    const due = dueIn(72 * HOUR);
    const added = await addUser({ username: 'ann', sms: true, tel: '+8613800138001', duetime: due });
    expect(added.success, JSON.stringify(added)).toBe(true);
    await expect.poll(() => messages.length).toBe(1);
    expect(messages[0]).toEqual({ to: '+8613800138001', body: `Wi-Fi account ann password Guestpass1 until ${due}` });
    expect((await addUser({ username: 'bob', tel: '+8613800138002' })).success).toBe(true);
    expect(await h.app.smsNotices.dueRound()).toBe(0);
    expect(messages).toHaveLength(1);
  });

  test('the due notice goes once within a day of the due time, and again for a new due time', async () => {
    // 72 h away: nothing yet.
    expect(await h.app.smsNotices.dueRound()).toBe(0);
    clock.advance((72 - 23) * 3600);
    expect(await h.app.smsNotices.dueRound()).toBe(1);
    // The administrator's session did not outlive two days.
    admin = await login(h.app, 'admin', ADMIN_PASSWORD);
    expect(messages.at(-1)!.body).toMatch(/^Wi-Fi account ann ends \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(await h.app.smsNotices.dueRound()).toBe(0);
    // Extended: a new due time is told again when it nears.
    const users = json(await get(h.app, admin, '/api/auth/userauth')).data.items as Array<{ id: string; username: string }>;
    const ann = users.find((u) => u.username === 'ann')!;
    expect(json(await post(h.app, admin, '/api/auth/userauth', { action: 'update', id: ann.id, duetime: dueIn(12 * HOUR) })).success).toBe(true);
    expect(await h.app.smsNotices.dueRound()).toBe(1);
    expect(messages).toHaveLength(3);
  });

  test('a failed send is logged and tried again on the next round', async () => {
    const added = await addUser({ username: 'cat', sms: true, tel: '+8613800138003', duetime: dueIn(2 * HOUR) });
    expect(added.success, JSON.stringify(added)).toBe(true);
    await expect.poll(() => messages.length).toBe(4);
    failing = true;
    expect(await h.app.smsNotices.dueRound()).toBe(0);
    failing = false;
    expect(await h.app.smsNotices.dueRound()).toBe(1);
    const log = json(await get(h.app, admin, '/api/sysconf/log?name=sms')).data.items as Array<{ key: string; values: Record<string, string> }>;
    const due = log.filter((e) => e.values.kindKey === 'smsLog.kind.due');
    expect(due.map((e) => e.key)).toEqual(expect.arrayContaining(['logs.sms.sent', 'logs.sms.failed']));
    expect(due.find((e) => e.key === 'logs.sms.failed')!.values.outcomeKey).toBe('msg.sms.send.authFailed');
    expect(log.filter((e) => e.values.kindKey === 'smsLog.kind.account')).toHaveLength(2);
  });
});
