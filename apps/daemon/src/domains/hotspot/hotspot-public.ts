import { extensionPoint } from '../../config/domain-module.js';
import type { ConfigSnapshot } from '../../config/config-types.js';

/**
 * The hotspot's public face: the portal notices other domains may send their clients to. A
 * domain that confines an address to a notice (the PPPoE server's expired accounts) contributes
 * a source; the portal listener asks each source about a client that is not signed in and
 * redirects its web requests to that notice, with the notice's own page and strings.
 */
export type PortalNotice = 'expired';

export interface PortalNoticeSource {
  /** The notice `ip` is confined to under this configuration, or null. */
  noticeFor(snapshot: ConfigSnapshot, ip: string): PortalNotice | null;
}

export const PORTAL_NOTICE_SOURCES = extensionPoint<PortalNoticeSource>('hotspot.portal-notice');
