import { createHash, randomBytes } from 'node:crypto';

/**
 * WeChat "connect Wi-Fi" portal protocol (README.md): the signed address the captive client is
 * sent to, which opens WeChat; WeChat then calls authUrl on the gateway with extend, openId
 * and tid.
 */

/** WeChat's page that hands the sign-in to the WeChat app (the one the protocol's JS library opens). */
export const WECHAT_CALL_URL = 'https://wifi.weixin.qq.com/operator/callWechat.xhtml';

/**
 * WeChat's hosts a client must reach before it has signed in: the page above and the app's
 * own servers, as the protocol's integration notes list them.
 */
export const WECHAT_HOSTS: readonly string[] = [
  'wifi.weixin.qq.com',
  'long.weixin.qq.com',
  'short.weixin.qq.com',
  'szlong.weixin.qq.com',
  'szshort.weixin.qq.com',
  'dns.weixin.qq.com',
  'mp.weixin.qq.com',
  'res.wx.qq.com',
];

export interface WechatAuthRequest {
  appId: string;
  extend: string;
  /** Milliseconds since the epoch, as the protocol sends it. */
  timestamp: number;
  shopId: string;
  authUrl: string;
  /** The client's MAC, lower-case with colons. */
  mac: string;
  ssid: string;
  /** The access point's MAC; empty when the gateway does not know it. */
  bssid: string;
}

/** sign = md5(appId + extend + timestamp + shop_id + authUrl + mac + ssid + bssid + secretKey), lower-case hex. */
export function wechatSign(request: WechatAuthRequest, secretKey: string): string {
  const text = `${request.appId}${request.extend}${request.timestamp}${request.shopId}${request.authUrl}${request.mac}${request.ssid}${request.bssid}${secretKey}`;
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** The signed address, every value percent-encoded. */
export function wechatCallUrl(request: WechatAuthRequest, secretKey: string): string {
  const pairs: Array<readonly [string, string | number]> = [
    ['appId', request.appId],
    ['extend', request.extend],
    ['timestamp', request.timestamp],
    ['sign', wechatSign(request, secretKey)],
    ['shopId', request.shopId],
    ['authUrl', request.authUrl],
    ['mac', request.mac],
    ['ssid', request.ssid],
    ['bssid', request.bssid],
  ];
  return `${WECHAT_CALL_URL}?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')}`;
}

export function newExtend(): string {
  return randomBytes(16).toString('hex');
}
