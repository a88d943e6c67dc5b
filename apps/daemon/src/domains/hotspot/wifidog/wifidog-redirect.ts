import { isHostname, isIpv4, isIpv6, isMac, isPort, isPrintableAscii, isSafeText } from '@portico/schema';

/**
 * The WiFiDog auth server as the `wifidog` section of the auth config names it (spec §3), and
 * the URLs the gateway builds from it. Every value here ends up in a URL a captive client is
 * sent to or the gateway fetches, so the section is validated once, here, before any use.
 *
 * `auth_uri` is the base path of the auth server's scripts (WiFiDog's `Path`, `/wifidog/` by
 * default): `login/`, `auth/`, `portal/` and `gw_message.php` live under it. `keepalive_uri`
 * is the full path of the heartbeat script (`/wifidog/ping/` by default).
 */
export interface WifidogConfig {
  server: string;
  port: number;
  https: boolean;
  authPath: string;
  keepalivePath: string;
  /** Where a client goes once admitted; empty: the auth server's portal page. */
  redirectUrl: string;
  /** Sent with the login redirect when set, for auth servers that host several merchants. */
  merchantId: string;
}

/** This gateway as the auth server knows it: its id and where clients reach its `/wifidog/auth`. */
export interface WifidogGatewayIdentity {
  id: string;
  address: string;
  port: number;
}

/** The fields of the section as stored (spec names), before validation. */
export interface WifidogSection {
  server?: unknown;
  port?: unknown;
  https?: unknown;
  auth_uri?: unknown;
  keepalive_uri?: unknown;
  redirect_url?: unknown;
  merchant_id?: unknown;
}

export const WIFIDOG_DEFAULT_AUTH_PATH = '/wifidog/';
export const WIFIDOG_DEFAULT_KEEPALIVE_PATH = '/wifidog/ping/';
/** A client's original URL longer than this is dropped from the redirect rather than carried. */
export const WIFIDOG_ORIGINAL_URL_MAX = 2048;
const REDIRECT_URL_MAX = 1024;
const MERCHANT_ID_MAX = 64;
const GATEWAY_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
// RFC 3986 path characters without `?`, `#`, `&` and bare `%`: a configured path can then
// neither start a query of its own nor smuggle parameters into the one the gateway builds.
const URL_PATH = /^\/(?:[A-Za-z0-9\-._~!$'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;

/** Which field of the section is wrong, and a stable reason code for logs and the form. */
export class WifidogConfigError extends Error {
  constructor(
    readonly field: keyof WifidogSection | 'gateway',
    readonly reason: string,
  ) {
    super(`wifidog ${field}: ${reason}`);
    this.name = 'WifidogConfigError';
  }
}

export function isWifidogServerHost(text: string): boolean {
  return isIpv4(text) || isIpv6(text) || isHostname(text);
}

/** A path of the auth server: absolute, no dot segments, no query or fragment, ends with `/`. */
export function checkWifidogPath(text: string): string | null {
  if (text.length === 0 || text.length > 255 || !URL_PATH.test(text)) return null;
  if (text.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  return text.endsWith('/') ? text : `${text}/`;
}

function checkRedirectUrl(text: string): boolean {
  if (text === '') return true;
  if (text.length > REDIRECT_URL_MAX || !isSafeText(text) || !isPrintableAscii(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

function text(value: unknown, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string') return '\u0000'; // refused by every check below
  return value.trim() === '' ? fallback : value.trim();
}

/** The section validated into a WifidogConfig; throws WifidogConfigError naming the field. */
export function parseWifidogSection(section: WifidogSection): WifidogConfig {
  const server = text(section.server, '');
  if (!isWifidogServerHost(server)) throw new WifidogConfigError('server', 'host');
  const port = typeof section.port === 'string' && /^\d{1,5}$/.test(section.port) ? Number(section.port) : section.port;
  if (typeof port !== 'number' || !isPort(port)) throw new WifidogConfigError('port', 'range');
  const https = section.https === true || section.https === 1 || section.https === '1';
  const authPath = checkWifidogPath(text(section.auth_uri, WIFIDOG_DEFAULT_AUTH_PATH));
  if (authPath === null) throw new WifidogConfigError('auth_uri', 'path');
  const keepalivePath = checkWifidogPath(text(section.keepalive_uri, WIFIDOG_DEFAULT_KEEPALIVE_PATH));
  if (keepalivePath === null) throw new WifidogConfigError('keepalive_uri', 'path');
  const redirectUrl = text(section.redirect_url, '');
  if (!checkRedirectUrl(redirectUrl)) throw new WifidogConfigError('redirect_url', 'url');
  const merchantId = text(section.merchant_id, '');
  if (merchantId.length > MERCHANT_ID_MAX || !isSafeText(merchantId) || !isPrintableAscii(merchantId)) {
    throw new WifidogConfigError('merchant_id', 'chars');
  }
  return { server, port, https, authPath, keepalivePath, redirectUrl, merchantId };
}

/** The gateway's own id and address, refused when they could not be put in a URL as they are. */
export function checkGatewayIdentity(identity: WifidogGatewayIdentity): WifidogGatewayIdentity {
  if (!GATEWAY_ID.test(identity.id)) throw new WifidogConfigError('gateway', 'id');
  if (!isIpv4(identity.address) && !isIpv6(identity.address)) throw new WifidogConfigError('gateway', 'address');
  if (!isPort(identity.port)) throw new WifidogConfigError('gateway', 'port');
  return identity;
}

/** `http(s)://server:port`, an IPv6 server in brackets. */
export function wifidogOrigin(config: WifidogConfig): string {
  const host = isIpv6(config.server) ? `[${config.server}]` : config.server;
  return `${config.https ? 'https' : 'http'}://${host}:${config.port}`;
}

/**
 * Percent-encoding of everything but RFC 3986 unreserved characters: also `'`, `(`, `)`, `*`
 * and `!`, which encodeURIComponent keeps, so the URL is safe inside an HTML attribute too.
 */
function encodeStrict(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * A query string of the pairs in order, every name and value percent-encoded (never `+` for a
 * space: some auth servers do not read it back as one).
 */
export function wifidogQuery(pairs: ReadonlyArray<readonly [string, string | number]>): string {
  return pairs.map(([name, value]) => `${encodeStrict(name)}=${encodeStrict(String(value))}`).join('&');
}

/** The URL of one of the auth server's scripts under `auth_uri` (`login/`, `auth/`, ...). */
export function wifidogScriptUrl(config: WifidogConfig, script: string, pairs: ReadonlyArray<readonly [string, string | number]>): string {
  return `${wifidogOrigin(config)}${config.authPath}${script}?${wifidogQuery(pairs)}`;
}

export interface CaptiveClient {
  ip: string;
  mac: string;
  /** The page the client asked for when it was caught; hostile text, only ever encoded. */
  url: string;
}

/**
 * Where a captive client is sent to sign in: `login/?gw_address=&gw_port=&gw_id=&ip=&mac=&url=`
 * (and `merchant_id=` when configured). The auth server sends the client back to
 * `http://gw_address:gw_port/wifidog/auth?token=...` once it has a token for it.
 */
export function wifidogLoginUrl(config: WifidogConfig, gateway: WifidogGatewayIdentity, client: CaptiveClient): string {
  checkGatewayIdentity(gateway);
  if (!isIpv4(client.ip) && !isIpv6(client.ip)) throw new TypeError('wifidog login: client ip');
  if (!isMac(client.mac)) throw new TypeError('wifidog login: client mac');
  const original = client.url.length <= WIFIDOG_ORIGINAL_URL_MAX ? client.url : '';
  const pairs: Array<readonly [string, string | number]> = [
    ['gw_address', gateway.address],
    ['gw_port', gateway.port],
    ['gw_id', gateway.id],
    ['ip', client.ip],
    ['mac', client.mac.toLowerCase()],
    ['url', original],
  ];
  if (config.merchantId !== '') pairs.push(['merchant_id', config.merchantId]);
  return wifidogScriptUrl(config, 'login/', pairs);
}

/** Where an admitted client goes: the configured redirect URL, else the server's portal page. */
export function wifidogPortalUrl(config: WifidogConfig, gatewayId: string): string {
  return config.redirectUrl !== '' ? config.redirectUrl : wifidogScriptUrl(config, 'portal/', [['gw_id', gatewayId]]);
}

/** The messages the auth server's `gw_message.php` knows. */
export type WifidogMessage = 'denied' | 'activate' | 'failed_validation' | 'locked';

export function wifidogMessageUrl(config: WifidogConfig, message: WifidogMessage): string {
  return wifidogScriptUrl(config, 'gw_message.php', [['message', message]]);
}
