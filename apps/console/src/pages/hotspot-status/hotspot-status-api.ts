import { formatBytes, formatSpeed, renderDuration, type DurationPart, type OnlineUserList } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';

/** One authorised hotspot client as GET /api/hotspot/online lists it (daemon hotspot-admin-routes). */
export interface OnlineHotspotUser {
  ip: string;
  mac: string;
  zone: string;
  kind: string;
  username: string;
  plan: string;
  startedAt: number;
  onlineSeconds: number;
  bytesUp: number;
  bytesDown: number;
  /** null: unlimited. */
  secondsRemaining: number | null;
  bytesRemaining: number | null;
  /** Kbit/s; 0 = unlimited. */
  upKbps: number;
  downKbps: number;
}

export interface OnlineHotspotList {
  items: OnlineHotspotUser[];
  total: number;
  /** MACs refused at once by the administrator. */
  blocked: string[];
}

export const HOTSPOT_ONLINE_PATH = 'hotspot/online';
/** LAN clients with their traffic (spec §3 Statistics: user lists). */
export const INNER_USER_PATH = 'status/user';
export type { OnlineUserList };

export const fetchOnlineHotspot = () => apiGet<OnlineHotspotList>(HOTSPOT_ONLINE_PATH);

/** Ends a client's session at once. */
export const kickOff = (ip: string) => apiPost(HOTSPOT_ONLINE_PATH, { action: 'kickoff', ip });
/** Changes a client's speed limits at once (Kbit/s, 0 = unlimited). */
export const rateLimit = (ip: string, upKbps: number, downKbps: number) => apiPost(HOTSPOT_ONLINE_PATH, { action: 'ratelimit', ip, upKbps, downKbps });
/** Refuses a MAC and ends its session. */
export const blockMac = (mac: string) => apiPost(HOTSPOT_ONLINE_PATH, { action: 'blacklist', mac });
export const unblockMac = (mac: string) => apiPost(HOTSPOT_ONLINE_PATH, { action: 'unblock', mac });

export type Translate = (key: string, options?: Record<string, unknown>) => string;

export function durationText(seconds: number, t: Translate, language: string): string {
  return renderDuration(seconds, (unit: DurationPart, count: number) => t(`hotspotStatus.duration.${unit}`, { count }), {
    separator: language.startsWith('zh') ? '' : ' ',
  });
}

/** A remaining allowance: unlimited for null. */
export function remainingBytesText(bytes: number | null, t: Translate): string {
  return bytes === null ? t('hotspotStatus.unlimited') : formatBytes(bytes);
}

export function remainingTimeText(seconds: number | null, t: Translate, language: string): string {
  return seconds === null ? t('hotspotStatus.unlimited') : durationText(seconds, t, language);
}

export function kbpsText(kbps: number, t: Translate): string {
  return kbps > 0 ? t('hotspotStatus.kbps', { value: kbps }) : t('hotspotStatus.unlimited');
}

export { formatBytes, formatSpeed };
