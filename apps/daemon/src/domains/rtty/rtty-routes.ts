import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { permits, TERMINAL_PATH, TERMINAL_PROTOCOL } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { RuntimeService } from '../../config/domain-module.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { takeUpgrade } from '../../plugins/websocket-upgrade.js';
import type { RoutePolicy } from '../../plugins/route-policy.js';
import { policyPermission } from '../../plugins/security-guard.js';
import { TerminalSessions, type TerminalJournal } from './rtty-sessions.js';

/** The PTY helper's name, built by apps/daemon/pty-build.mjs beside the bundle. */
export const PTY_NAME = 'portico-pty';
const here = dirname(fileURLToPath(import.meta.url));
/** Beside the bundle, then the build's output seen from src/domains/rtty (tests). */
const PTY_PLACES = [join(here, PTY_NAME), join(here, '..', '..', '..', 'dist', PTY_NAME)];

/** Terminals open at once on the device: each is a process tree and a login. */
export const TERMINAL_MAX = 4;
/** A terminal without input or output this long is closed. */
export const TERMINAL_IDLE_MS = 15 * 60 * 1000;
/** How often terminals check that their console session has not expired. */
const SESSION_CHECK_MS = 30_000;
/** Keystrokes and pastes are small; a bigger frame is refused. */
const FRAME_MAX = 64 * 1024;

/** Anyone who may read the page sees the status; opening a terminal needs write permission. */
const TERMINAL_POLICY: RoutePolicy = { module: 'telnetclient', effect: 'read', upgradeEffect: 'write' };

export interface RttyDeps {
  helper?: string | null;
  idleMs?: number;
}

/**
 * The browser terminal (spec §2 /rtty): GET /api/sysconf/rtty answers the terminal's status;
 * the same path upgraded to a WebSocket runs the configured program (the device's login) on a
 * PTY. The upgrade passes the security guard like every request (session, allowed IP, Origin,
 * the CSRF token as a subprotocol) and needs write permission on the telnet client's page, the
 * console's other remote-terminal tool: a visitor (read-only) account is refused. Every session
 * is journalled in the sign-in log: who, from where, when it opened, when and how it ended.
 */
export function registerRtty(app: FastifyInstance, ctx: AppContext, deps: RttyDeps = {}): RuntimeService {
  const helper = deps.helper !== undefined ? deps.helper : (PTY_PLACES.find((path) => existsSync(path)) ?? null);
  const terminals = new TerminalSessions({
    helper,
    command: ctx.settings.rttyCommand ?? ['/bin/login'],
    max: TERMINAL_MAX,
    idleMs: deps.idleMs ?? TERMINAL_IDLE_MS,
    now: ctx.now,
    journal: journalOf(ctx),
    sessionLive: (sessionHash) => ctx.sessions.isLive(sessionHash, ctx.now()),
    sessionUsed: (sessionHash) => ctx.sessions.touch(sessionHash, ctx.now()),
  });
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: FRAME_MAX,
    perMessageDeflate: false,
    handleProtocols: (offered) => (offered.has(TERMINAL_PROTOCOL) ? TERMINAL_PROTOCOL : false),
  });
  const stopListening = ctx.sessions.onRevoke(() => terminals.checkSessions());
  const timer = setInterval(() => terminals.checkSessions(), SESSION_CHECK_MS);
  timer.unref();

  app.get(
    `/api/${TERMINAL_PATH}`,
    { config: { policy: TERMINAL_POLICY, websocket: true, doc: { summary: 'The browser terminal: its status, or the terminal itself over a WebSocket upgrade' } } },
    async (request, reply) => {
      const auth = request.auth!;
      // Refused before the handshake, with a reply the page can read from the status instead.
      if (request.headers.upgrade !== undefined && !terminals.status().available) return failure('msg.rtty.unavailable');
      if (request.headers.upgrade !== undefined && !terminals.hasRoom()) return failure('msg.rtty.busy');
      const upgrade = takeUpgrade(request, reply);
      if (!upgrade) return success({ ...terminals.status(), permitted: permits(policyPermission(auth, TERMINAL_POLICY), 'write') });
      sockets.handleUpgrade(request.raw, upgrade.socket, upgrade.head, (ws) => {
        terminals.attach(ws, { user: auth.account.username, address: request.ip, sessionHash: auth.session.idHash });
      });
      return reply;
    },
  );

  return {
    async stop() {
      clearInterval(timer);
      stopListening();
      await terminals.closeAll();
      sockets.close();
    },
  };
}

/** Sessions in the sign-in log (Logs > authentication), with a short id pairing open and end. */
function journalOf(ctx: AppContext): TerminalJournal {
  return {
    opened: (terminal) =>
      ctx.logs.append('auth', { level: 'notice', origin: 'console', time: terminal.startedAt, key: 'logs.auth.terminalOpened', values: { user: terminal.user, address: terminal.address, terminal: terminal.id } }),
    ended: (terminal, reason, status, endedAt) =>
      ctx.logs.append('auth', {
        level: 'notice',
        origin: 'console',
        time: endedAt,
        key: 'logs.auth.terminalEnded',
        values: {
          user: terminal.user,
          address: terminal.address,
          terminal: terminal.id,
          status: status ?? '-',
          seconds: Math.max(0, Math.round((endedAt - terminal.startedAt) / 1000)),
          reasonKey: `logs.terminalEnd.${reason}`,
        },
      }),
  };
}
