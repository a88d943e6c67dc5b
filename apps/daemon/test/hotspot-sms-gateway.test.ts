import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotSms } from '@portico/schema';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;
/** A loopback stand-in for Twilio's Messages API: it checks Basic auth and records the form. */
const received: Array<{ auth: string; form: URLSearchParams }> = [];
const twilio = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const auth = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    received.push({ auth, form: new URLSearchParams(body) });
    const ok = auth === 'AC0123456789abcdef0123456789abcdef:token-1';
    res.writeHead(ok ? 201 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { sid: 'SM42', status: 'queued' } : { code: 20003, message: 'Authenticate' }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => twilio.listen(0, '127.0.0.1', resolve));
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
  await new Promise((resolve) => twilio.close(resolve));
});

const save = async (body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotSms.path}`, body));
let settings: Record<string, unknown> = {};
const testSend = async (body: Record<string, unknown>) => json(await post(h.app, admin, '/api/auth/smstest', body));

describe('the SMS gateway settings and its test message', () => {
  test('a disabled gateway sends nothing; templates name only known placeholders; credentials are never read back', async () => {
    expect(await testSend({ phone: '+8613800138000' })).toMatchObject({ success: false, msg: 'msg.sms.disabled' });
    const endpoint = `http://127.0.0.1:${(twilio.address() as AddressInfo).port}`;
    expect(await save({ enabled: true, platform: 'twilio', accountSid: 'AC0123456789abcdef0123456789abcdef', from: '+15005550006', endpoint, codeTemplate: 'Code ##cod##' })).toMatchObject({
      success: false,
      errors: { codeTemplate: 'validation.sms.placeholder', authToken: 'validation.required' },
    });
    expect(await save({ enabled: true, platform: 'twilio', accountSid: 'AC0123', authToken: 't', from: '+15005550006' })).toMatchObject({
      success: false,
      errors: { accountSid: 'validation.sms.accountSid' },
    });
    settings = { enabled: true, platform: 'twilio', accountSid: 'AC0123456789abcdef0123456789abcdef', from: '+15005550006', endpoint, codeTemplate: 'Your code is ##code##' };
    expect(await save({ ...settings, authToken: 'token-1' })).toMatchObject({ success: true });
    const read = json(await get(h.app, admin, `/api/${hotspotSms.path}`));
    expect(read.data.accountSid).toBe('AC0123456789abcdef0123456789abcdef');
    expect(JSON.stringify(read)).not.toContain('token-1');
  });

  test('the test message goes out signed with the saved credentials, rendered from the template', async () => {
    expect(await testSend({ phone: '+8613800138000', kind: 'code' })).toMatchObject({ success: true, data: { id: 'SM42' } });
    expect(received.at(-1)!.auth).toBe('AC0123456789abcdef0123456789abcdef:token-1');
    expect(received.at(-1)!.form.get('Body')).toBe('Your code is 864213');
    expect(received.at(-1)!.form.get('To')).toBe('+8613800138000');
    // A template left empty is a field error on that template, nothing is sent.
    const before = received.length;
    expect(await testSend({ phone: '+8613800138000', kind: 'due' })).toMatchObject({ success: false, errors: { dueTemplate: 'msg.sms.template.empty' } });
    expect(received.length).toBe(before);
    expect(await save({ ...settings, authToken: 'wrong-token' })).toMatchObject({ success: true });
    expect(await testSend({ phone: '+8613800138000' })).toMatchObject({ success: false, msg: 'msg.sms.send.authFailed' });
    expect(await testSend({ phone: 'not a phone' })).toMatchObject({ success: false, msg: 'msg.sms.send.invalidPhone' });
  });
});
