import { isMac, PPP_SERVER_KINDS } from '@portico/schema';
import type { DaeSession, DaeSessionSource } from '../hotspot/hotspot-public.js';
import { pppSettingsOf } from './ppp-server-files.js';
import { kickPppSession, pppSessions, type SessionSource } from './ppp-server-sessions.js';

/**
 * The PPP servers' sessions the RADIUS server vouched for, as the hotspot's dynamic
 * authorisation port sees them (RFC 5176): those of a server that is on with `authway` radius.
 * A Disconnect-Request naming one (User-Name, Framed-IP-Address, Calling-Station-Id: a PPPoE
 * client's MAC) ends it as the console's kick-off does, its pppd hanging up and accounting the
 * Stop. Sessions of local accounts are never RADIUS's to end.
 */
export function pppDaeSessions(source: SessionSource, kill?: (pid: number) => void): DaeSessionSource {
  return {
    sessions(snapshot) {
      return PPP_SERVER_KINDS.flatMap((kind) => {
        const settings = pppSettingsOf(snapshot, kind);
        if (!settings.enabled || settings.authway !== 'radius') return [];
        return pppSessions(source, kind).map(
          (session): DaeSession => ({
            user: session.username,
            ip: session.address,
            ...(isMac(session.from) ? { station: session.from } : {}),
            end: () => kickPppSession(source, kind, session.ifname, kill),
          }),
        );
      });
    },
  };
}
