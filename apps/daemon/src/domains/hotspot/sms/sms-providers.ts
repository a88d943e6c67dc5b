import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { RenderedSms } from './sms-template.js';

/**
 * The three SMS platforms, each signed the way its documentation says:
 * - Alibaba Cloud dysmsapi SendSms (RPC style, signature v1: HMAC-SHA1 over the canonicalised
 *   parameters, key AccessKeySecret + "&");
 * - Tencent Cloud SendSms 2021-01-11 (TC3-HMAC-SHA256, signature v3);
 * - Twilio Messages API (HTTP Basic with Account SID and Auth Token).
 * The base URL is configurable per platform; sends are bounded by a timeout and every provider
 * answer is mapped to one outcome code.
 */

import { SMS_PLATFORMS } from '@portico/schema';

export { SMS_PLATFORMS };
export type SmsPlatform = (typeof SMS_PLATFORMS)[number];

export interface AliyunSmsCredentials {
  platform: 'aliyun';
  accessKeyId: string;
  accessKeySecret: string;
  signName: string;
  regionId?: string;
}

export interface TencentSmsCredentials {
  platform: 'tencent';
  secretId: string;
  secretKey: string;
  smsSdkAppId: string;
  signName: string;
  region?: string;
}

export interface TwilioSmsCredentials {
  platform: 'twilio';
  accountSid: string;
  authToken: string;
  /** The sending number (E.164) or a Messaging Service SID (MG…). */
  from: string;
  /** Country calling code used to complete national numbers, e.g. "1"; without it Twilio gets E.164 numbers only. */
  countryCode?: string;
}

export type SmsCredentials = AliyunSmsCredentials | TencentSmsCredentials | TwilioSmsCredentials;

export type SmsSendError =
  | 'sms.send.invalidPhone'
  | 'sms.send.authFailed'
  | 'sms.send.templateNotApproved'
  | 'sms.send.rateLimited'
  | 'sms.send.rejected'
  | 'sms.send.timeout'
  | 'sms.send.networkError'
  | 'sms.send.badResponse';

export type SmsSendResult = { ok: true; providerMessageId: string } | { ok: false; error: SmsSendError; providerCode?: string };

export interface SmsMessage {
  phone: string;
  /** The id the gateway gave the approved template (Alibaba Cloud TemplateCode, Tencent Cloud TemplateId); Twilio sends the text. */
  templateId: string;
  rendered: RenderedSms;
}

export interface SmsSendOptions {
  /** Scheme, host and port of the platform's API; defaults to the public endpoint. */
  baseUrl?: string;
  timeoutMs?: number;
  /** Unix milliseconds; the signatures carry the time. */
  now?: () => number;
  nonce?: () => string;
}

export const SMS_DEFAULT_BASE_URL: Record<SmsPlatform, string> = {
  aliyun: 'https://dysmsapi.aliyuncs.com',
  tencent: 'https://sms.tencentcloudapi.com',
  twilio: 'https://api.twilio.com',
};
export const SMS_DEFAULT_TIMEOUT_MS = 10_000;
// A provider's answer is a few hundred bytes; anything far larger is not one.
const MAX_RESPONSE_BYTES = 64 * 1024;

// ---- phone numbers ----

export type PhoneNumber = { kind: 'e164'; digits: string } | { kind: 'national'; digits: string };

/** E.164 (+ and 7 to 15 digits, no leading zero) or national digits (5 to 15); spaces and dashes are ignored. */
export function parsePhone(input: string): PhoneNumber | null {
  const compact = input.replace(/[\s-]/g, '');
  let match = /^\+([1-9]\d{6,14})$/.exec(compact);
  if (match) return { kind: 'e164', digits: match[1]! };
  match = /^(\d{5,15})$/.exec(compact);
  return match ? { kind: 'national', digits: match[1]! } : null;
}

/** The number with a leading '+' when it is E.164, or completed by a country code; null when neither applies. */
function e164(phone: PhoneNumber, countryCode?: string): string | null {
  if (phone.kind === 'e164') return `+${phone.digits}`;
  if (!countryCode || !/^[1-9]\d{0,3}$/.test(countryCode)) return null;
  return `+${countryCode}${phone.digits.replace(/^0+/, '')}`;
}

// ---- Alibaba Cloud ----

/** RFC 3986 encoding as Alibaba Cloud's signature document asks: only A-Z a-z 0-9 - _ . ~ stay literal, UTF-8, upper-case hex. */
export function aliyunPercentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Signature = Base64(HMAC-SHA1(AccessKeySecret + "&", Method & %2F & percentEncode(sorted, encoded query))). */
export function aliyunSignature(method: string, params: Record<string, string>, accessKeySecret: string): string {
  return createHmac('sha1', `${accessKeySecret}&`).update(aliyunStringToSign(method, params)).digest('base64');
}

export function aliyunStringToSign(method: string, params: Record<string, string>): string {
  const canonical = Object.keys(params)
    .filter((key) => key !== 'Signature')
    .sort()
    .map((key) => `${aliyunPercentEncode(key)}=${aliyunPercentEncode(params[key]!)}`)
    .join('&');
  return `${method}&${aliyunPercentEncode('/')}&${aliyunPercentEncode(canonical)}`;
}

const ALIYUN_ERRORS: Record<string, SmsSendError> = {
  SignatureDoesNotMatch: 'sms.send.authFailed',
  'InvalidAccessKeyId.NotFound': 'sms.send.authFailed',
  'InvalidAccessKeyId.Inactive': 'sms.send.authFailed',
  'isp.RAM_PERMISSION_DENY': 'sms.send.authFailed',
  'isv.ACCOUNT_NOT_EXISTS': 'sms.send.authFailed',
  'isv.SMS_TEMPLATE_ILLEGAL': 'sms.send.templateNotApproved',
  'isv.TEMPLATE_MISSING_PARAMETERS': 'sms.send.templateNotApproved',
  'isv.TEMPLATE_PARAMS_ILLEGAL': 'sms.send.templateNotApproved',
  'isv.SMS_SIGNATURE_ILLEGAL': 'sms.send.templateNotApproved',
  'isv.SIGN_STATE_ILLEGAL': 'sms.send.templateNotApproved',
  'isv.SMS_SIGNATURE_SCENE_ILLEGAL': 'sms.send.templateNotApproved',
  'isv.BUSINESS_LIMIT_CONTROL': 'sms.send.rateLimited',
  'isv.DAY_LIMIT_CONTROL': 'sms.send.rateLimited',
  'isv.MONTH_LIMIT_CONTROL': 'sms.send.rateLimited',
  Throttling: 'sms.send.rateLimited',
  'Throttling.User': 'sms.send.rateLimited',
  'isv.MOBILE_NUMBER_ILLEGAL': 'sms.send.invalidPhone',
};

function aliyunTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function sendAliyun(credentials: AliyunSmsCredentials, message: SmsMessage, phone: PhoneNumber, options: SmsSendOptions): Promise<SmsSendResult> {
  const params: Record<string, string> = {
    AccessKeyId: credentials.accessKeyId,
    Action: 'SendSms',
    Format: 'JSON',
    PhoneNumbers: phone.digits,
    RegionId: credentials.regionId ?? 'cn-hangzhou',
    SignName: credentials.signName,
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: (options.nonce ?? randomUUID)(),
    SignatureVersion: '1.0',
    TemplateCode: message.templateId,
    TemplateParam: JSON.stringify(Object.fromEntries(message.rendered.params.map((p) => [p.name, p.value]))),
    Timestamp: aliyunTimestamp((options.now ?? Date.now)()),
    Version: '2017-05-25',
  };
  params.Signature = aliyunSignature('POST', params, credentials.accessKeySecret);
  const body = Object.entries(params).map(([k, v]) => `${aliyunPercentEncode(k)}=${aliyunPercentEncode(v)}`).join('&');
  const answer = await exchange(`${base(options, 'aliyun')}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  }, options);
  if (!answer.ok) return answer;
  const reply = answer.json as { Code?: unknown; BizId?: unknown } | null;
  if (!reply || typeof reply.Code !== 'string') return { ok: false, error: 'sms.send.badResponse' };
  if (reply.Code === 'OK') {
    return typeof reply.BizId === 'string' && reply.BizId !== '' ? { ok: true, providerMessageId: reply.BizId } : { ok: false, error: 'sms.send.badResponse' };
  }
  return { ok: false, error: ALIYUN_ERRORS[reply.Code] ?? 'sms.send.rejected', providerCode: reply.Code };
}

// ---- Tencent Cloud ----

const sha256Hex = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmacSha256 = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

export interface Tc3Input {
  secretId: string;
  secretKey: string;
  service: string;
  /** Unix seconds, the X-TC-Timestamp header. */
  timestamp: number;
  payload: string;
  /** The headers signed, names in any case; host and content-type at least. */
  headers: Record<string, string>;
}

export interface Tc3Signature {
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
  authorization: string;
}

/** TC3-HMAC-SHA256 for a POST to "/" as Tencent Cloud's "Signature v3" document lays it out, step by step. */
export function tc3Sign(input: Tc3Input): Tc3Signature {
  const headers = Object.entries(input.headers)
    .map(([name, value]) => [name.trim().toLowerCase(), value.trim().toLowerCase()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const canonicalHeaders = headers.map(([name, value]) => `${name}:${value}\n`).join('');
  const signedHeaders = headers.map(([name]) => name).join(';');
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256Hex(input.payload)].join('\n');
  // The date is the UTC day of the timestamp, never the local one.
  const date = new Date(input.timestamp * 1000).toISOString().slice(0, 10);
  const scope = `${date}/${input.service}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(input.timestamp), scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmacSha256(hmacSha256(hmacSha256(`TC3${input.secretKey}`, date), input.service), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  const authorization = `TC3-HMAC-SHA256 Credential=${input.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, signature, authorization };
}

function tencentError(code: string): SmsSendError {
  if (code.startsWith('AuthFailure') || code.startsWith('UnauthorizedOperation')) return 'sms.send.authFailed';
  if (code === 'FailedOperation.TemplateIncorrectOrUnapproved' || code === 'FailedOperation.SignatureIncorrectOrUnapproved') return 'sms.send.templateNotApproved';
  if (code.startsWith('LimitExceeded') || code.startsWith('RequestLimitExceeded')) return 'sms.send.rateLimited';
  if (code === 'InvalidParameterValue.IncorrectPhoneNumber') return 'sms.send.invalidPhone';
  return 'sms.send.rejected';
}

async function sendTencent(credentials: TencentSmsCredentials, message: SmsMessage, phone: PhoneNumber, options: SmsSendOptions): Promise<SmsSendResult> {
  // Tencent completes an 11-digit national number with +86, as its SendSms document says.
  const number = e164(phone, '86');
  if (!number) return { ok: false, error: 'sms.send.invalidPhone' };
  const url = new URL(`${base(options, 'tencent')}/`);
  const payload = JSON.stringify({
    PhoneNumberSet: [number],
    SmsSdkAppId: credentials.smsSdkAppId,
    SignName: credentials.signName,
    TemplateId: message.templateId,
    TemplateParamSet: message.rendered.params.map((p) => p.value),
  });
  const timestamp = Math.floor((options.now ?? Date.now)() / 1000);
  const contentType = 'application/json; charset=utf-8';
  const { authorization } = tc3Sign({
    secretId: credentials.secretId,
    secretKey: credentials.secretKey,
    service: 'sms',
    timestamp,
    payload,
    headers: { 'content-type': contentType, host: url.host, 'x-tc-action': 'SendSms' },
  });
  const answer = await exchange(url.href, {
    method: 'POST',
    headers: {
      authorization,
      'content-type': contentType,
      'x-tc-action': 'SendSms',
      'x-tc-version': '2021-01-11',
      'x-tc-timestamp': String(timestamp),
      'x-tc-region': credentials.region ?? 'ap-guangzhou',
    },
    body: payload,
  }, options);
  if (!answer.ok) return answer;
  const response = (answer.json as { Response?: { Error?: { Code?: unknown }; SendStatusSet?: unknown } } | null)?.Response;
  if (!response) return { ok: false, error: 'sms.send.badResponse' };
  if (response.Error) {
    const code = response.Error.Code;
    return typeof code === 'string' ? { ok: false, error: tencentError(code), providerCode: code } : { ok: false, error: 'sms.send.badResponse' };
  }
  const status = Array.isArray(response.SendStatusSet) ? (response.SendStatusSet[0] as { Code?: unknown; SerialNo?: unknown } | undefined) : undefined;
  if (!status || typeof status.Code !== 'string') return { ok: false, error: 'sms.send.badResponse' };
  if (status.Code === 'Ok') {
    return typeof status.SerialNo === 'string' && status.SerialNo !== '' ? { ok: true, providerMessageId: status.SerialNo } : { ok: false, error: 'sms.send.badResponse' };
  }
  return { ok: false, error: tencentError(status.Code), providerCode: status.Code };
}

// ---- Twilio ----

function twilioError(status: number, code: unknown): SmsSendError {
  if (status === 401 || code === 20003) return 'sms.send.authFailed';
  if (status === 429 || code === 20429) return 'sms.send.rateLimited';
  if (code === 21211 || code === 21614) return 'sms.send.invalidPhone';
  return 'sms.send.rejected';
}

async function sendTwilio(credentials: TwilioSmsCredentials, message: SmsMessage, phone: PhoneNumber, options: SmsSendOptions): Promise<SmsSendResult> {
  const to = e164(phone, credentials.countryCode);
  if (!to) return { ok: false, error: 'sms.send.invalidPhone' };
  if (!/^AC[0-9a-fA-F]{32}$/.test(credentials.accountSid)) return { ok: false, error: 'sms.send.authFailed' };
  const form = new URLSearchParams({ To: to, Body: message.rendered.text });
  form.set(credentials.from.startsWith('MG') ? 'MessagingServiceSid' : 'From', credentials.from);
  const basic = Buffer.from(`${credentials.accountSid}:${credentials.authToken}`, 'utf8').toString('base64');
  const answer = await exchange(`${base(options, 'twilio')}/2010-04-01/Accounts/${credentials.accountSid}/Messages.json`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  }, options);
  if (!answer.ok) return answer;
  const reply = answer.json as { sid?: unknown; code?: unknown } | null;
  if (answer.status === 201 || answer.status === 200) {
    return reply && typeof reply.sid === 'string' && reply.sid !== '' ? { ok: true, providerMessageId: reply.sid } : { ok: false, error: 'sms.send.badResponse' };
  }
  if (!reply) return { ok: false, error: 'sms.send.badResponse' };
  const code = reply.code;
  return { ok: false, error: twilioError(answer.status, code), ...(typeof code === 'number' ? { providerCode: String(code) } : {}) };
}

// ---- shared ----

function base(options: SmsSendOptions, platform: SmsPlatform): string {
  return (options.baseUrl ?? SMS_DEFAULT_BASE_URL[platform]).replace(/\/+$/, '');
}

type Exchange = { ok: true; status: number; json: unknown } | { ok: false; error: SmsSendError };

/** One request with a bounded time and a bounded answer; the JSON is null when the body is not JSON. */
async function exchange(url: string, init: { method: string; headers: Record<string, string>; body: string }, options: SmsSendOptions): Promise<Exchange> {
  const signal = AbortSignal.timeout(options.timeoutMs ?? SMS_DEFAULT_TIMEOUT_MS);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, signal, redirect: 'error' });
    text = await readBounded(response);
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { ok: false, error: 'sms.send.timeout' };
    if ((error as Error).message === 'sms.send.badResponse') return { ok: false, error: 'sms.send.badResponse' };
    return { ok: false, error: 'sms.send.networkError' };
  }
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  if (json === null && response.status >= 200 && response.status < 300) return { ok: false, error: 'sms.send.badResponse' };
  return { ok: true, status: response.status, json };
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new Error('sms.send.badResponse');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends one rendered message through the configured platform. */
export async function sendSms(credentials: SmsCredentials, message: SmsMessage, options: SmsSendOptions = {}): Promise<SmsSendResult> {
  const phone = parsePhone(message.phone);
  if (!phone) return { ok: false, error: 'sms.send.invalidPhone' };
  switch (credentials.platform) {
    case 'aliyun':
      return sendAliyun(credentials, message, phone, options);
    case 'tencent':
      return sendTencent(credentials, message, phone, options);
    case 'twilio':
      return sendTwilio(credentials, message, phone, options);
  }
}
