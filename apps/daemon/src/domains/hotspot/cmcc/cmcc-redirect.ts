import { isIpv4, isSafeText, normalizeMac } from '@portico/schema';

/**
 * The captive redirect of a China Mobile portal deployment: an unauthenticated client is sent
 * to the portal server's page (cmccurl) with the parameters that tell the portal server which
 * access controller and which client address to name in its REQ_CHALLENGE/REQ_AUTH.
 */

export interface CmccRedirectInput {
  /** cmccurl: the portal server's login page, http or https. */
  portalUrl: string;
  /** The client's address (wlanuserip). */
  userIp: string;
  /** The access controller's name as registered with the portal server (wlanacname). */
  acName: string;
  /** wlanacip: the address the portal server sends its requests to. */
  acIp: string;
  /** Optional, used by some deployments: the SSID the client joined. */
  ssid?: string;
  /** Optional, used by some deployments: the client's MAC (wlanusermac, hyphen-separated). */
  userMac?: string;
  /** Optional: the page the client first asked for (wlanuserfirsturl), http or https. */
  firstUrl?: string;
}

export type CmccRedirectError =
  | 'portal-url'
  | 'user-ip'
  | 'ac-name'
  | 'ac-ip'
  | 'ssid'
  | 'user-mac'
  | 'first-url';

export type CmccRedirectResult = { ok: true; url: string } | { ok: false; code: CmccRedirectError };

/** AC names are registered identifiers such as `0001.0010.100.00`, `gw-01`. */
const AC_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const MAX_URL_CHARS = 2048;
const MAX_SSID_BYTES = 32;

/** An absolute http(s) URL without embedded credentials, or null. */
function webUrl(text: string): URL | null {
  if (text.length > MAX_URL_CHARS) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || !url.hostname) return null;
  return url;
}

/** Validates every part and builds the redirect target; the parameters replace same-named ones of cmccurl. */
export function cmccRedirectUrl(input: CmccRedirectInput): CmccRedirectResult {
  const url = webUrl(input.portalUrl);
  if (!url) return { ok: false, code: 'portal-url' };
  if (!isIpv4(input.userIp)) return { ok: false, code: 'user-ip' };
  if (!AC_NAME.test(input.acName)) return { ok: false, code: 'ac-name' };
  if (!isIpv4(input.acIp)) return { ok: false, code: 'ac-ip' };
  const params = url.searchParams;
  params.set('wlanuserip', input.userIp);
  params.set('wlanacname', input.acName);
  params.set('wlanacip', input.acIp);
  if (input.ssid !== undefined) {
    const bytes = Buffer.byteLength(input.ssid, 'utf8');
    if (bytes === 0 || bytes > MAX_SSID_BYTES || !isSafeText(input.ssid)) return { ok: false, code: 'ssid' };
    params.set('ssid', input.ssid);
  }
  if (input.userMac !== undefined) {
    const mac = normalizeMac(input.userMac);
    if (!mac) return { ok: false, code: 'user-mac' };
    params.set('wlanusermac', mac.replace(/:/g, '-'));
  }
  if (input.firstUrl !== undefined) {
    const first = webUrl(input.firstUrl);
    if (!first) return { ok: false, code: 'first-url' };
    params.set('wlanuserfirsturl', first.href);
  }
  return { ok: true, url: url.href };
}
