import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import {
  aliyunPercentEncode,
  aliyunSignature,
  aliyunStringToSign,
  parsePhone,
  sendSms,
  tc3Sign,
  type AliyunSmsCredentials,
  type SmsMessage,
  type TencentSmsCredentials,
  type TwilioSmsCredentials,
} from '../src/domains/hotspot/sms/sms-providers.js';
import { renderTemplate } from '../src/domains/hotspot/sms/sms-template.js';

/**
 * Each platform's signature against the worked example its documentation publishes, then each
 * sender against a loopback server that re-computes the signature the documented way (code
 * written here, apart from the module's) and answers with the platform's success and error bodies.
 */

// ---- loopback servers ----

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (request: Received, response: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  })));
});

async function loopback(handler: Handler): Promise<{ baseUrl: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      handler(request, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json' });
  res.end(text);
}

function message(template: string, values: Parameters<typeof renderTemplate>[1], phone = '+8613711112222', templateId = 'SMS_154950909'): SmsMessage {
  const rendered = renderTemplate(template, values);
  if (!rendered.ok) throw new Error(rendered.error);
  return { phone, templateId, rendered: { text: rendered.text, params: rendered.params } };
}

const NOW = Date.UTC(2026, 10, 25, 16, 30, 5);

// ---- Alibaba Cloud ----

/** RFC 3986 by hand, as the signature document states it: unreserved characters literal, the rest %XY of UTF-8. */
function rfc3986(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The server side of Alibaba Cloud's RPC signature: rebuild StringToSign from what arrived and check Signature. */
function aliyunSignatureHolds(request: Received, secret: string): boolean {
  const params = new Map(new URLSearchParams(request.body));
  const given = params.get('Signature');
  params.delete('Signature');
  const canonical = [...params.keys()].sort().map((k) => `${rfc3986(k)}=${rfc3986(params.get(k)!)}`).join('&');
  const stringToSign = `${request.method}&${rfc3986('/')}&${rfc3986(canonical)}`;
  return given === createHmac('sha1', `${secret}&`).update(stringToSign).digest('base64');
}

describe('Alibaba Cloud SMS (dysmsapi SendSms, signature v1)', () => {
  // The DescribeRegions example of the "Request signatures" document (AccessKeyId testid, secret testsecret).
  const documented = {
    Timestamp: '2016-02-23T12:46:24Z',
    Format: 'XML',
    AccessKeyId: 'testid',
    Action: 'DescribeRegions',
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: '3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf',
    Version: '2014-05-26',
    SignatureVersion: '1.0',
  };

  test('reproduces the documented StringToSign and signature', () => {
    expect(aliyunStringToSign('GET', documented)).toBe(
      'GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeRegions%26Format%3DXML%26SignatureMethod%3DHMAC-SHA1' +
        '%26SignatureNonce%3D3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf%26SignatureVersion%3D1.0' +
        '%26Timestamp%3D2016-02-23T12%253A46%253A24Z%26Version%3D2014-05-26',
    );
    expect(aliyunSignature('GET', documented, 'testsecret')).toBe('OLeaidS1JvxuMvnyHOwuJ+uX5qY=');
  });

  test('percent-encodes like the document: space %20, * %2A, ~ literal, UTF-8 bytes', () => {
    expect(aliyunPercentEncode("a b*c~d!'()")).toBe('a%20b%2Ac~d%21%27%28%29');
    expect(aliyunPercentEncode('阿里云')).toBe(rfc3986('阿里云'));
    expect(aliyunPercentEncode('{"code":"1234"}')).toBe('%7B%22code%22%3A%221234%22%7D');
  });

  const credentials: AliyunSmsCredentials = { platform: 'aliyun', accessKeyId: 'LTAI5tExampleKeyId', accessKeySecret: 'ExampleSecret/+=', signName: '阿里云短信测试' };
  const approved = 'SMS_154950909';

  async function aliyunGateway() {
    return loopback((request, res) => {
      if (!aliyunSignatureHolds(request, credentials.accessKeySecret)) {
        answer(res, 400, { RequestId: 'B7C1B8B2', Message: 'Specified signature is not matched with our calculation.', Recommend: '', HostId: 'dysmsapi.aliyuncs.com', Code: 'SignatureDoesNotMatch' });
        return;
      }
      const params = new URLSearchParams(request.body);
      if (params.get('TemplateCode') !== approved) {
        answer(res, 200, { RequestId: 'A1', Message: '模板不合法(不存在或被拉黑)', Code: 'isv.SMS_TEMPLATE_ILLEGAL' });
      } else if (params.get('PhoneNumbers') === '8613900000000') {
        answer(res, 200, { RequestId: 'A2', Message: '触发分钟级流控Permits:1', Code: 'isv.BUSINESS_LIMIT_CONTROL' });
      } else {
        answer(res, 200, { Message: 'OK', RequestId: 'F655A8D5-B967-440B-8683-DAD6FF8DE990', BizId: '900619746936498440^0', Code: 'OK' });
      }
    });
  }

  test('sends a signed SendSms whose parameters the gateway accepts', async () => {
    const { baseUrl, received } = await aliyunGateway();
    const result = await sendSms(credentials, message('Your code is ##code##', { code: '480213' }, '+8613711112222', approved), { baseUrl, now: () => NOW, nonce: () => 'nonce-1' });
    expect(result).toEqual({ ok: true, providerMessageId: '900619746936498440^0' });
    expect(received).toHaveLength(1);
    const params = Object.fromEntries(new URLSearchParams(received[0]!.body));
    expect(received[0]!.method).toBe('POST');
    expect(params).toMatchObject({
      Action: 'SendSms',
      Version: '2017-05-25',
      Format: 'JSON',
      SignatureMethod: 'HMAC-SHA1',
      SignatureVersion: '1.0',
      SignatureNonce: 'nonce-1',
      Timestamp: '2026-11-25T16:30:05Z',
      AccessKeyId: 'LTAI5tExampleKeyId',
      PhoneNumbers: '8613711112222',
      SignName: '阿里云短信测试',
      TemplateCode: approved,
      TemplateParam: '{"code":"480213"}',
    });
  });

  test('maps the gateway errors: wrong secret, unapproved template, flow control', async () => {
    const { baseUrl } = await aliyunGateway();
    const sms = message('Your code is ##code##', { code: '1' }, '13711112222', approved);
    expect(await sendSms({ ...credentials, accessKeySecret: 'not-the-secret' }, sms, { baseUrl })).toEqual({ ok: false, error: 'sms.send.authFailed', providerCode: 'SignatureDoesNotMatch' });
    expect(await sendSms(credentials, { ...sms, templateId: 'SMS_0' }, { baseUrl })).toEqual({ ok: false, error: 'sms.send.templateNotApproved', providerCode: 'isv.SMS_TEMPLATE_ILLEGAL' });
    expect(await sendSms(credentials, { ...sms, phone: '+8613900000000' }, { baseUrl })).toEqual({ ok: false, error: 'sms.send.rateLimited', providerCode: 'isv.BUSINESS_LIMIT_CONTROL' });
  });
});

// ---- Tencent Cloud ----

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: string | Buffer, s: string): Buffer => createHmac('sha256', key).update(s, 'utf8').digest();

/** The server side of TC3-HMAC-SHA256: rebuild the canonical request from the headers and body that arrived. */
function tc3Holds(request: Received, secretId: string, secretKey: string, service: string): boolean {
  const match = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([a-z]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(String(request.headers.authorization));
  if (!match) return false;
  const [, id, date, scopeService, signedHeaders, signature] = match;
  const timestamp = Number(request.headers['x-tc-timestamp']);
  if (id !== secretId || scopeService !== service) return false;
  if (date !== new Date(timestamp * 1000).toISOString().slice(0, 10)) return false;
  const names = signedHeaders!.split(';');
  if (!names.includes('content-type') || !names.includes('host')) return false;
  const canonicalHeaders = names.map((name) => `${name}:${String(request.headers[name] ?? '').trim().toLowerCase()}\n`).join('');
  const canonicalRequest = `${request.method}\n/\n\n${canonicalHeaders}\n${signedHeaders}\n${sha256(request.body)}`;
  const stringToSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/${service}/tc3_request\n${sha256(canonicalRequest)}`;
  const key = hmac(hmac(hmac(`TC3${secretKey}`, date!), service), 'tc3_request');
  return createHmac('sha256', key).update(stringToSign).digest('hex') === signature;
}

describe('Tencent Cloud SMS (SendSms 2021-01-11, TC3-HMAC-SHA256)', () => {
  test('reproduces the worked example of the "Signature v3" document', () => {
    const signed = tc3Sign({
      secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
      secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
      service: 'cvm',
      timestamp: 1551113065,
      payload: String.raw`{"Limit": 1, "Filters": [{"Values": ["\u672a\u547d\u540d"], "Name": "instance-name"}]}`,
      headers: { 'Content-Type': 'application/json; charset=utf-8', Host: 'cvm.tencentcloudapi.com' },
    });
    expect(signed.canonicalRequest).toBe(
      'POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\ncontent-type;host\n35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064',
    );
    expect(signed.stringToSign).toBe('TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031');
    expect(signed.signature).toBe('72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168');
    expect(signed.authorization).toBe(
      'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
    );
  });

  test('the credential date is the UTC day, not the local one', () => {
    // 1551113065 is 2019-02-26 00:44:25 in UTC+8 and still 2019-02-25 in UTC.
    const { stringToSign } = tc3Sign({ secretId: 'id', secretKey: 'key', service: 'sms', timestamp: 1551113065, payload: '', headers: { host: 'h', 'content-type': 'c' } });
    expect(stringToSign.split('\n')[2]).toBe('2019-02-25/sms/tc3_request');
  });

  const credentials: TencentSmsCredentials = { platform: 'tencent', secretId: 'AKIDExampleSecretId', secretKey: 'ExampleSecretKey', smsSdkAppId: '1400006666', signName: '腾讯云', region: 'ap-guangzhou' };

  async function tencentGateway() {
    return loopback((request, res) => {
      if (!tc3Holds(request, credentials.secretId, credentials.secretKey, 'sms')) {
        answer(res, 200, { Response: { Error: { Code: 'AuthFailure.SignatureFailure', Message: 'The provided credentials could not be validated. Please check your signature is correct.' }, RequestId: 'ed93f3cb-f35e-473f-b9f3-0d451b8b79c6' } });
        return;
      }
      const body = JSON.parse(request.body) as { PhoneNumberSet: string[]; TemplateId: string };
      const phone = body.PhoneNumberSet[0]!;
      const status = (Code: string, Message: string, SerialNo = '') => ({ SerialNo, PhoneNumber: phone, Fee: Code === 'Ok' ? 1 : 0, SessionContext: '', Code, Message, IsoCode: 'CN' });
      if (body.TemplateId !== '1110') {
        answer(res, 200, { Response: { SendStatusSet: [status('FailedOperation.TemplateIncorrectOrUnapproved', 'template is not approved or request content does not match the approved template content')], RequestId: 'r2' } });
      } else if (phone === '+8613900000000') {
        answer(res, 200, { Response: { SendStatusSet: [status('LimitExceeded.PhoneNumberThirtySecondLimit', 'the number of sms messages sent from a single mobile number within 30 seconds exceeds the upper limit')], RequestId: 'r3' } });
      } else {
        answer(res, 200, { Response: { SendStatusSet: [status('Ok', 'send success', '5000:1045710669157053657849499619')], RequestId: 'a0aabda6-cf91-4f3e-a81f-9198114a2279' } });
      }
    });
  }

  test('sends a signed SendSms with the TC3 headers and the ordered template parameters', async () => {
    const { baseUrl, received } = await tencentGateway();
    const sms = message('Account ##account## password ##password## until ##expire##', { account: 'guest01', password: 'Pw1', expire: '2026-12-31' }, '13711112222', '1110');
    expect(await sendSms(credentials, sms, { baseUrl, now: () => NOW })).toEqual({ ok: true, providerMessageId: '5000:1045710669157053657849499619' });
    const request = received[0]!;
    expect(request.method).toBe('POST');
    expect(request.headers['x-tc-action']).toBe('SendSms');
    expect(request.headers['x-tc-version']).toBe('2021-01-11');
    expect(request.headers['x-tc-region']).toBe('ap-guangzhou');
    expect(request.headers['x-tc-timestamp']).toBe(String(Math.floor(NOW / 1000)));
    expect(request.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(String(request.headers.authorization)).toContain('SignedHeaders=content-type;host;x-tc-action,');
    expect(JSON.parse(request.body)).toEqual({
      PhoneNumberSet: ['+8613711112222'],
      SmsSdkAppId: '1400006666',
      SignName: '腾讯云',
      TemplateId: '1110',
      TemplateParamSet: ['guest01', 'Pw1', '2026-12-31'],
    });
  });

  test('maps the gateway errors: wrong key, unapproved template, frequency limit', async () => {
    const { baseUrl } = await tencentGateway();
    const sms = message('Your code is ##code##', { code: '1' }, '+8613711112222', '1110');
    expect(await sendSms({ ...credentials, secretKey: 'wrong' }, sms, { baseUrl })).toEqual({ ok: false, error: 'sms.send.authFailed', providerCode: 'AuthFailure.SignatureFailure' });
    expect(await sendSms(credentials, { ...sms, templateId: '9' }, { baseUrl })).toEqual({ ok: false, error: 'sms.send.templateNotApproved', providerCode: 'FailedOperation.TemplateIncorrectOrUnapproved' });
    expect(await sendSms(credentials, { ...sms, phone: '+86 139-0000-0000' }, { baseUrl })).toEqual({ ok: false, error: 'sms.send.rateLimited', providerCode: 'LimitExceeded.PhoneNumberThirtySecondLimit' });
  });
});

// ---- Twilio ----

describe('Twilio (Messages API, HTTP Basic)', () => {
  const credentials: TwilioSmsCredentials = { platform: 'twilio', accountSid: `AC${'0123456789abcdef'.repeat(2)}`, authToken: 'example-auth-token', from: '+15017122661', countryCode: '1' };

  async function twilioGateway() {
    return loopback((request, res) => {
      const match = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Messages\.json$/.exec(request.url);
      const auth = /^Basic (.+)$/.exec(String(request.headers.authorization ?? ''));
      const [user, pass] = auth ? Buffer.from(auth[1]!, 'base64').toString('utf8').split(':') : [];
      if (!match || request.method !== 'POST' || user !== credentials.accountSid || user !== match[1] || pass !== credentials.authToken) {
        answer(res, 401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
        return;
      }
      const form = new URLSearchParams(request.body);
      if (form.get('To') === '+15005550001') {
        answer(res, 400, { code: 21211, message: "The 'To' number +15005550001 is not a valid phone number.", more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 });
      } else if (form.get('To') === '+15005550009') {
        answer(res, 429, { code: 20429, message: 'Too Many Requests', more_info: 'https://www.twilio.com/docs/errors/20429', status: 429 });
      } else {
        answer(res, 201, { sid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f', status: 'queued', to: form.get('To'), from: form.get('From'), body: form.get('Body') });
      }
    });
  }

  test('posts the rendered text form-encoded with Basic auth', async () => {
    const { baseUrl, received } = await twilioGateway();
    const sms = message('Welcome ##account##, password ##password## & more', { account: 'guest 01', password: 'p+w=1' }, '(415) 555-0100'.replace(/[()]/g, ''));
    expect(await sendSms(credentials, sms, { baseUrl })).toEqual({ ok: true, providerMessageId: 'SM1f0e8ae6ade43cb3c0ce4525424e404f' });
    const form = Object.fromEntries(new URLSearchParams(received[0]!.body));
    expect(received[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form).toEqual({ To: '+14155550100', From: '+15017122661', Body: 'Welcome guest 01, password p+w=1 & more' });
  });

  test('maps the API errors: wrong token, invalid number, too many requests', async () => {
    const { baseUrl } = await twilioGateway();
    const sms = message('Code ##code##', { code: '1' }, '+14155550100');
    expect(await sendSms({ ...credentials, authToken: 'wrong' }, sms, { baseUrl })).toEqual({ ok: false, error: 'sms.send.authFailed', providerCode: '20003' });
    expect(await sendSms(credentials, { ...sms, phone: '+15005550001' }, { baseUrl })).toEqual({ ok: false, error: 'sms.send.invalidPhone', providerCode: '21211' });
    expect(await sendSms(credentials, { ...sms, phone: '+15005550009' }, { baseUrl })).toEqual({ ok: false, error: 'sms.send.rateLimited', providerCode: '20429' });
  });

  test('a national number without a configured country code is refused before any request', async () => {
    const { baseUrl, received } = await twilioGateway();
    const { countryCode: _unused, ...noCountry } = credentials;
    expect(await sendSms(noCountry, message('Code ##code##', { code: '1' }, '4155550100'), { baseUrl })).toEqual({ ok: false, error: 'sms.send.invalidPhone' });
    expect(received).toHaveLength(0);
  });
});

// ---- phone numbers and transport failures ----

describe('phone numbers and failures of the exchange', () => {
  test.each([
    ['+8613711112222', { kind: 'e164', digits: '8613711112222' }],
    ['+1 415-555-0100', { kind: 'e164', digits: '14155550100' }],
    ['13711112222', { kind: 'national', digits: '13711112222' }],
    ['+0123456789', null],
    ['+12', null],
    ['1234', null],
    ['1371111222x', null],
    ['+861371111222233334', null],
  ])('%s', (input, parsed) => {
    expect(parsePhone(input)).toEqual(parsed);
  });

  const aliyun: AliyunSmsCredentials = { platform: 'aliyun', accessKeyId: 'id', accessKeySecret: 'secret', signName: 's' };
  const sms = message('Code ##code##', { code: '1' });

  test('an invalid number is refused without a request', async () => {
    const { baseUrl, received } = await loopback((_request, res) => answer(res, 200, {}));
    expect(await sendSms(aliyun, { ...sms, phone: 'call me' }, { baseUrl })).toEqual({ ok: false, error: 'sms.send.invalidPhone' });
    expect(received).toHaveLength(0);
  });

  test('a gateway that never answers is cut off by the timeout', async () => {
    const { baseUrl, received } = await loopback(() => undefined);
    expect(await sendSms(aliyun, sms, { baseUrl, timeoutMs: 200 })).toEqual({ ok: false, error: 'sms.send.timeout' });
    expect(received).toHaveLength(1);
  });

  test('a closed port is a network error', async () => {
    const { baseUrl } = await loopback(() => undefined);
    const server = servers.pop()!;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await sendSms(aliyun, sms, { baseUrl })).toEqual({ ok: false, error: 'sms.send.networkError' });
  });

  test.each([
    ['an HTML page', (res: ServerResponse) => answer(res, 200, '<html>maintenance</html>')],
    ['JSON without a code', (res: ServerResponse) => answer(res, 200, { hello: 'world' })],
    ['a success without a message id', (res: ServerResponse) => answer(res, 200, { Code: 'OK', Message: 'OK' })],
    ['an endless body', (res: ServerResponse) => answer(res, 200, `{"Code":"OK","BizId":"${'x'.repeat(100_000)}"}`)],
    ['a gateway error page', (res: ServerResponse) => answer(res, 502, '<html>bad gateway</html>')],
  ])('%s is a bad response', async (_name, reply) => {
    const { baseUrl } = await loopback((_request, res) => reply(res));
    expect(await sendSms(aliyun, sms, { baseUrl })).toEqual({ ok: false, error: 'sms.send.badResponse' });
  });
});
