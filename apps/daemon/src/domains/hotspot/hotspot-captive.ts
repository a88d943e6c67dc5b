import type { HotspotEngine } from './hotspot-engine.js';

/** RFC 8908 Captive Portal API answer (`application/captive+json`). */
export interface CaptiveJson {
  captive: boolean;
  'user-portal-url': string;
  'venue-info-url'?: string;
  'seconds-remaining'?: number;
  'bytes-remaining'?: number;
  'can-extend-session': boolean;
}

export const CAPTIVE_CONTENT_TYPE = 'application/captive+json';

export function captiveJson(engine: HotspotEngine, ip: string, portalUrl: string, venueUrl?: string): CaptiveJson {
  const session = engine.session(ip);
  const answer: CaptiveJson = { captive: !session, 'user-portal-url': portalUrl, 'can-extend-session': !session };
  if (venueUrl) answer['venue-info-url'] = venueUrl;
  if (session) {
    const seconds = engine.secondsRemaining(session);
    const bytes = engine.bytesRemaining(session);
    if (seconds !== null) answer['seconds-remaining'] = seconds;
    if (bytes !== null) answer['bytes-remaining'] = bytes;
    // A session near its end can be extended by signing in again with a voucher or account.
    answer['can-extend-session'] = seconds !== null || bytes !== null;
  }
  return answer;
}
