import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The cloud portal's signing scheme (README.md): HMAC-SHA256 with the shared secret over the
 * lines of a fixed field list, a label first so a login signature can never pass as a return.
 * Values are signed as they are, not as encoded: both sides sign what they mean, whatever
 * their URL libraries do with encoding.
 */

export const LOGIN_LABEL = 'portico-cloudportal-login';
export const AUTH_LABEL = 'portico-cloudportal-auth';

/** What the gateway tells the cloud of a client in the redirect. */
export interface CloudLogin {
  gw_id: string;
  gw_address: string;
  gw_port: number;
  ip: string;
  mac: string;
  ts: number;
  nonce: string;
  url: string;
}

/** The cloud's answer, as the browser brings it back to /cloudportal/auth. */
export interface CloudReturn {
  gw_id: string;
  nonce: string;
  ip: string;
  mac: string;
  ts: number;
  result: 'success' | 'denied';
  account: string;
}

function hmac(secret: string, label: string, fields: ReadonlyArray<string | number>): string {
  return createHmac('sha256', secret).update([label, ...fields.map(String)].join('\n'), 'utf8').digest('hex');
}

export function signLogin(secret: string, login: CloudLogin): string {
  return hmac(secret, LOGIN_LABEL, [login.gw_id, login.gw_address, login.gw_port, login.ip, login.mac, login.ts, login.nonce, login.url]);
}

export function signReturn(secret: string, answer: CloudReturn): string {
  return hmac(secret, AUTH_LABEL, [answer.gw_id, answer.nonce, answer.ip, answer.mac, answer.ts, answer.result, answer.account]);
}

/** Constant-time check of a return's signature (64 lower-case hex digits). */
export function returnSignatureValid(secret: string, answer: CloudReturn, sig: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(sig)) return false;
  return timingSafeEqual(Buffer.from(signReturn(secret, answer), 'hex'), Buffer.from(sig, 'hex'));
}

export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The redirect to authurl: its own query kept, then the gateway's fields, the configured param
 * pairs (already percent-encoded, checked by the schema) and `sig`. Every value is
 * percent-encoded with encodeURIComponent.
 */
export function cloudLoginUrl(authurl: string, param: string, secret: string, login: CloudLogin): string {
  const url = new URL(authurl);
  const own = url.search.length > 1 ? url.search.slice(1) : '';
  const fields: Array<readonly [string, string | number]> = [
    ['gw_id', login.gw_id],
    ['gw_address', login.gw_address],
    ['gw_port', login.gw_port],
    ['ip', login.ip],
    ['mac', login.mac],
    ['ts', login.ts],
    ['nonce', login.nonce],
    ['url', login.url],
  ];
  const query = [own, ...fields.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`), param, `sig=${signLogin(secret, login)}`].filter((p) => p !== '').join('&');
  url.search = '';
  url.hash = '';
  return `${url.toString()}?${query}`;
}
