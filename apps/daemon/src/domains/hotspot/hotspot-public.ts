import { extensionPoint } from '../../config/domain-module.js';
import type { ConfigSnapshot } from '../../config/config-types.js';

/**
 * The hotspot's public face. The portal notices other domains may send their clients to: a
 * domain that confines an address to a notice (the PPPoE server's expired accounts) contributes
 * a source; the portal listener asks each source about a client that is not signed in and
 * redirects its web requests to that notice, with the notice's own page and strings. And the
 * sessions of other domains the RADIUS server may end (DAE_SESSION_SOURCES).
 */
export type PortalNotice = 'expired';

export interface PortalNoticeSource {
  /** The notice `ip` is confined to under this configuration, or null. */
  noticeFor(snapshot: ConfigSnapshot, ip: string): PortalNotice | null;
}

export const PORTAL_NOTICE_SOURCES = extensionPoint<PortalNoticeSource>('hotspot.portal-notice');

/**
 * A session of another domain that the RADIUS server vouched for (a PPP server's session with
 * `authway` radius): the hotspot's dynamic authorisation port (RFC 5176) ends it on a
 * Disconnect-Request that names it. Identified by what such a session has: its user name, its
 * address and, where known, its calling station (a PPPoE client's MAC).
 */
export interface DaeSession {
  user: string;
  ip: string;
  station?: string;
  /** Ends the session; false when it was gone already. */
  end(): boolean;
}

export interface DaeSessionSource {
  /** The live sessions RADIUS may end under this configuration. */
  sessions(snapshot: ConfigSnapshot): DaeSession[];
}

export const DAE_SESSION_SOURCES = extensionPoint<DaeSessionSource>('hotspot.dae-sessions');
