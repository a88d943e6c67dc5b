import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { SmsCodeGuard } from '../src/domains/hotspot/sms/sms-code.js';
import { maskPhone, SmsLog } from '../src/domains/hotspot/sms/sms-log.js';
import { sendSms, type TwilioSmsCredentials } from '../src/domains/hotspot/sms/sms-providers.js';
import { renderTemplate } from '../src/domains/hotspot/sms/sms-template.js';

/** The SMS log: masked numbers, a cap that drops the oldest, a JSON form, and no secret in it. */

describe('SMS log', () => {
  test.each([
    ['+8613711112222', '+861********22'],
    ['13711112222', '137******22'],
    ['+1 415-555-0100', '+141******00'],
    ['12345', '1***5'],
    ['', ''],
  ])('masks %s as %s, and masking again changes nothing', (phone, masked) => {
    expect(maskPhone(phone)).toBe(masked);
    expect(maskPhone(masked)).toBe(masked);
  });

  test('keeps the newest entries up to its cap, listed newest first', () => {
    const log = new SmsLog(3);
    for (let i = 0; i < 5; i++) log.record({ time: i, platform: 'aliyun', phone: `1371111222${i}`, kind: 'code', outcome: 'sms.send.ok' });
    expect(log.size).toBe(3);
    expect(log.list().map((e) => e.time)).toEqual([4, 3, 2]);
    expect(log.list()[0]).toEqual({ time: 4, platform: 'aliyun', phone: '137******24', kind: 'code', outcome: 'sms.send.ok' });
    log.clear();
    expect(log.list()).toEqual([]);
    expect(() => new SmsLog(0)).toThrow(RangeError);
  });

  test('round-trips through JSON, dropping malformed entries and masking numbers again', () => {
    const log = new SmsLog(10);
    log.record({ time: 1, platform: 'tencent', phone: '+8613711112222', kind: 'account', outcome: 'sms.send.templateNotApproved' });
    log.record({ time: 2, platform: 'twilio', phone: '+14155550100', kind: 'due', outcome: 'sms.send.rateLimited' });
    const restored = SmsLog.fromJSON(JSON.parse(JSON.stringify(log)), 10);
    expect(restored.toJSON()).toEqual(log.toJSON());

    const tampered = SmsLog.fromJSON([
      { time: 3, platform: 'aliyun', phone: '13711112222', kind: 'code', outcome: 'sms.send.ok' },
      { time: 4, platform: 'other', phone: '1', kind: 'code', outcome: 'sms.send.ok' },
      { time: 5, platform: 'aliyun', phone: '1', kind: 'code', outcome: 'sms.send.ok', code: '123456' },
      { time: 'x', platform: 'aliyun', phone: '1', kind: 'code', outcome: 'sms.send.ok' },
      null,
    ]);
    expect(tampered.toJSON()).toEqual([
      { time: 3, platform: 'aliyun', phone: '137******22', kind: 'code', outcome: 'sms.send.ok' },
      { time: 5, platform: 'aliyun', phone: '*', kind: 'code', outcome: 'sms.send.ok' },
    ]);
    expect(JSON.stringify(tampered)).not.toContain('123456');
    expect(SmsLog.fromJSON({ not: 'a list' }).size).toBe(0);
  });

  describe('a code and an account sent through a gateway leave no secret in the log', () => {
    let server: Server | undefined;
    afterEach(async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    });

    test('sends, logs, and the serialised log holds neither the code, the password nor the full number', async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ sid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f', status: 'queued' }));
        });
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const credentials: TwilioSmsCredentials = { platform: 'twilio', accountSid: `AC${'ab'.repeat(16)}`, authToken: 'token-never-logged', from: '+15017122661' };
      const phone = '+14155550123';
      const log = new SmsLog();

      const issued = new SmsCodeGuard().issue(phone, '02:00:00:00:00:01');
      if (!issued.ok) throw new Error(issued.error);
      const codeText = renderTemplate('Your sign-in code is ##code##', { code: issued.code });
      const accountText = renderTemplate('Account ##account## password ##password##', { account: 'guest01', password: 'Secret-Pw-77' });
      if (!codeText.ok || !accountText.ok) throw new Error('render');
      for (const [kind, rendered] of [['code', codeText], ['account', accountText]] as const) {
        const result = await sendSms(credentials, { phone, templateId: '', rendered }, { baseUrl });
        log.record({ time: 1, platform: 'twilio', phone, kind, outcome: result.ok ? 'sms.send.ok' : result.error });
      }

      const stored = JSON.stringify(log);
      expect(log.list().map((e) => e.outcome)).toEqual(['sms.send.ok', 'sms.send.ok']);
      for (const secret of [issued.code, 'Secret-Pw-77', 'token-never-logged', '4155550123', phone]) expect(stored).not.toContain(secret);
    });
  });
});
