import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIpv4, isMac } from '@portico/schema';

/**
 * The UAM protocol of CoovaChilli as its documentation and hotspotlogin.cgi describe it, for
 * the `rusystem` auth model (spec §3 section rusystem: authurl, uamsecret, redirect_url). The
 * gateway sends a captive client to the UAM server (authurl) with a fresh random challenge and
 * an `md` checksum; the UAM server sends the browser back to `http://uamip:uamport/logon` with
 * the user name and the password encoded with the challenge and the shared uamsecret; the
 * gateway then sends the browser to the UAM server again with `res=success` or `res=failed`.
 *
 * - md: MD5 over the URL up to (not including) `&md=`, followed by uamsecret, upper-case hex.
 * - With a uamsecret the challenge used is newchal = MD5(challenge bytes, uamsecret).
 * - PAP: password = hex(password XOR newchal) (newchal repeated for longer passwords; trailing
 *   NUL bytes are padding). CHAP: response = hex(MD5(0x00, password, newchal)).
 */

export const UAM_CHALLENGE_BYTES = 16;
const HEX = /^[0-9a-fA-F]*$/;
/** Longest encoded PAP password accepted: 128 bytes of password. */
const MAX_PAP_HEX = 256;

export type UamResult = 'notyet' | 'success' | 'failed' | 'already' | 'logoff';

export interface UamGateway {
  /** Where the browser reaches the gateway (the portal listener). */
  uamip: string;
  uamport: number;
  nasid: string;
}

/** Percent-encoding of everything but RFC 3986 unreserved characters (never `+`). */
export function uamEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function newUamChallenge(): Buffer {
  return randomBytes(UAM_CHALLENGE_BYTES);
}

/** MD5(challenge, uamsecret) when a secret is set, else the challenge itself. */
export function uamNewChallenge(challenge: Buffer, secret: string): Buffer {
  return secret === '' ? challenge : createHash('md5').update(challenge).update(secret, 'utf8').digest();
}

/** `md`: MD5 of the URL so far and the secret, upper-case hex. */
export function uamChecksum(url: string, secret: string): string {
  return createHash('md5').update(url, 'utf8').update(secret, 'utf8').digest('hex').toUpperCase();
}

/** The UAM server URL with the parameters in order and `&md=` appended (authurl's own query kept). */
export function uamServerUrl(authurl: string, pairs: ReadonlyArray<readonly [string, string | number]>, secret: string): string {
  const query = pairs.map(([k, v]) => `${uamEncode(k)}=${uamEncode(String(v))}`).join('&');
  const url = `${authurl}${authurl.includes('?') ? '&' : '?'}${query}`;
  return `${url}&md=${uamChecksum(url, secret)}`;
}

/** MAC as CoovaChilli writes it: upper-case, hyphen-separated. */
export function uamMac(mac: string): string {
  if (!isMac(mac)) throw new TypeError('uam: mac');
  return mac.toUpperCase().replace(/:/g, '-');
}

/** The captive redirect: res=notyet with the challenge the logon must use. */
export function uamNotYetUrl(authurl: string, secret: string, gateway: UamGateway, client: { ip: string; mac: string; sessionid: string }, challenge: Buffer, userurl: string): string {
  if (!isIpv4(client.ip)) throw new TypeError('uam: ip');
  return uamServerUrl(
    authurl,
    [
      ['res', 'notyet'],
      ['uamip', gateway.uamip],
      ['uamport', gateway.uamport],
      ['challenge', challenge.toString('hex')],
      ['mac', uamMac(client.mac)],
      ['ip', client.ip],
      ['nasid', gateway.nasid],
      ['sessionid', client.sessionid],
      ['userurl', userurl],
    ],
    secret,
  );
}

/** The PAP password the UAM server encoded, or null when it is not well-formed hex. */
export function uamDecodePap(hex: string, challenge: Buffer, secret: string): string | null {
  if (hex.length === 0 || hex.length > MAX_PAP_HEX || hex.length % 2 !== 0 || !HEX.test(hex)) return null;
  const key = uamNewChallenge(challenge, secret);
  const bytes = Buffer.from(hex, 'hex');
  for (let i = 0; i < bytes.length; i++) bytes[i] = bytes[i]! ^ key[i % key.length]!;
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  const password = bytes.subarray(0, end);
  // Not UTF-8 (a wrong secret or challenge): no password at all, rather than a mangled one.
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(password);
  } catch {
    return null;
  }
}

/** What a UAM server computes for PAP (hotspotlogin.cgi); used by tests and by nobody else. */
export function uamEncodePap(password: string, challenge: Buffer, secret: string): string {
  const key = uamNewChallenge(challenge, secret);
  const bytes = Buffer.from(password, 'utf8');
  const padded = Buffer.alloc(Math.max(UAM_CHALLENGE_BYTES, Math.ceil(bytes.length / UAM_CHALLENGE_BYTES) * UAM_CHALLENGE_BYTES));
  bytes.copy(padded);
  for (let i = 0; i < padded.length; i++) padded[i] = padded[i]! ^ key[i % key.length]!;
  return padded.toString('hex');
}

/** CHAP response for a clear password: MD5(ident 0, password, newchal). */
export function uamChapResponse(password: string, challenge: Buffer, secret: string): string {
  return createHash('md5').update(Buffer.from([0])).update(password, 'utf8').update(uamNewChallenge(challenge, secret)).digest('hex');
}

/** Whether a CHAP response matches a clear password, in constant time. */
export function uamChapMatches(response: string, password: string, challenge: Buffer, secret: string): boolean {
  if (!/^[0-9a-fA-F]{32}$/.test(response)) return false;
  return timingSafeEqual(Buffer.from(response.toLowerCase(), 'hex'), Buffer.from(uamChapResponse(password, challenge, secret), 'hex'));
}
