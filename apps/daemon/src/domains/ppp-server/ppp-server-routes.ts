import type { FastifyInstance } from 'fastify';
import { fieldErrors, MSG, pppKickBody, pppServerStatusSchema, PPP_SERVER_KINDS, type PppServerKind } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { localUsers } from '../hotspot-config/hotspot-config-public.js';
import { pppEntity, pppSettingsOf } from './ppp-server-files.js';
import { pppServerRunning } from './ppp-server-activation.js';
import { openwrtServerRunning } from './ppp-server-openwrt.js';
import { kickPppSession, pppSessions, type SessionSource } from './ppp-server-sessions.js';

export const PPP_MSG = { noSession: 'msg.ppp.noSession' } as const;

/**
 * Each PPP server's status route beside its settings (the generic `auth/<kind>`):
 * `auth/<kind>/status` answers running or STOPPED, the online sessions (who, from where,
 * address, since, bytes) and, while it takes local accounts, those of its type that cannot
 * dial until their password is set again; POST `kick` with a session's interface ends that session.
 * On the sim driver nothing dials: the servers read as stopped, with no session.
 * On OpenWrt procd runs the servers: running is a process of the server's program.
 */
export function registerPppServerRoutes(app: FastifyInstance, ctx: AppContext, source: SessionSource): void {
  const live = ctx.settings.driver === 'linux' || ctx.settings.driver === 'openwrt';
  // linux: the daemon's supervisor; OpenWrt: procd runs the servers (ppp-server-openwrt.ts).
  const isRunning = (kind: PppServerKind) => (ctx.settings.driver === 'openwrt' ? openwrtServerRunning(kind, source.kernel) : pppServerRunning(source.root, kind));
  const accounts = localUsers(ctx);
  for (const kind of PPP_SERVER_KINDS) {
    const module = pppEntity(kind).module;
    app.get(
      `/api/auth/${kind}/status`,
      { config: { policy: { module, effect: 'read' }, doc: { summary: `${kind} server: running or stopped, online sessions`, response: pppServerStatusSchema } } },
      async () => {
        const { enabled, authway } = pppSettingsOf(ctx.config.journal.capture(), kind);
        // Polled: names only, nothing opened. A server taking its accounts from RADIUS reads no
        // local secret: none is missing.
        const needPassword = authway === 'local' ? accounts.namesWithoutPassword(kind) : [];
        const running = live && enabled && isRunning(kind);
        return success({ running, sessions: running ? pppSessions(source, kind).map(({ pid: _pid, ...session }) => session) : [], needPassword });
      },
    );
    app.post(
      `/api/auth/${kind}/status`,
      { config: { policy: { module, effect: 'write' }, doc: { summary: 'action kick with ifname: end that session' } } },
      async (request) => {
        const body = pppKickBody.safeParse(request.body ?? {});
        if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
        if (!live || !kickPppSession(source, kind as PppServerKind, body.data.ifname)) return failure(PPP_MSG.noSession);
        return success();
      },
    );
  }
}
