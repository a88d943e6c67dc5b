import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PPP_SERVER_KINDS, type PppoeServer, type PppServerKind } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { realScheduler, type Scheduler } from '../../config/config-types.js';
import { runCommand } from '../../engine/command-runner.js';
import { FormatRegistry } from '../../engine/file-format.js';
import { installFiles } from '../../engine/file-install.js';
import { localUsers, type PppAccount } from '../hotspot-config/hotspot-config-public.js';
import { pppExpiredPool, pppSettingsOf } from './ppp-server-files.js';
import { checkPppSecrets, expiredAddresses, PPP_SECRETS_FILES, renderPppSecrets, type PppSecretsInput } from './ppp-server-secrets.js';
import { kickPppSession, pppSessions, type SessionSource } from './ppp-server-sessions.js';

export const PPP_SECRETS_FORMAT = { name: 'ppp-secrets', builtin: (content: string) => checkPppSecrets(content)[0] ?? null };
/** The config domain of the servers' settings (ppp-server-module.ts). */
export const PPP_SERVER_DOMAIN = 'ppp-server';

/** How often accounts are checked for having passed their due time (due times are to the minute). */
export const PPP_EXPIRY_CHECK_MS = 60_000;

export interface PppSecretsWriterOptions {
  /** Where the live sessions are read and ended; null: none are (nothing dials on sim). */
  sessions: SessionSource | null;
  /** The expiry check's timer; tests fire it. */
  schedule?: Scheduler;
  /** Ends a session's pppd; tests record it. */
  kill?: (pid: number) => void;
}

/**
 * Keeps pppd's secrets files in line with the local accounts and the servers' switches. The
 * accounts live in their own table, not in the configuration rows an apply renders, so this
 * writer (not the config engine) renders the files: after every apply of the servers' settings
 * (an apply of other domains changes neither, so it is left alone), every change of the accounts
 * and every minute (an account expires by the clock, with no change to announce it). Each is
 * checked, written 0600 beside its target and renamed over it (the engine's installFiles), when
 * its content changed; with no server using local accounts both are removed.
 *
 * pppd reads the secrets only when a session authenticates, so after each write the live
 * sessions are held to them: a session whose account now gets another address than the one it
 * has is ended, and its client's redial gets what the account now gets. An account that expired
 * while online is thus ended and redials into the expiry notice ("remind expired users") or is
 * refused; a renewed account leaves the expired pool for an ordinary address.
 */
export function pppSecretsWriter(ctx: AppContext, root: string, report: (error: unknown) => void, options: PppSecretsWriterOptions): { sync(): Promise<void>; stop(): void } {
  const formats = new FormatRegistry([PPP_SECRETS_FORMAT]);
  const accounts = localUsers(ctx);
  const schedule = options.schedule ?? realScheduler;
  let queue = Promise.resolve();
  let written: string | null | undefined;

  async function write(): Promise<void> {
    const snapshot = ctx.config.journal.capture();
    const servers: PppSecretsInput[] = [];
    for (const kind of PPP_SERVER_KINDS) {
      const settings = pppSettingsOf(snapshot, kind);
      if (!settings.enabled || settings.authway !== 'local') continue;
      const pool = kind === 'pppoe' ? pppExpiredPool(settings as PppoeServer) : null;
      servers.push({ kind, accounts: accounts.pppAccounts(kind), ...(pool ? { expiredPool: pool } : {}) });
    }
    if (!servers.length) {
      if (written !== null) for (const target of PPP_SECRETS_FILES) await rm(join(root, target), { force: true });
      written = null;
    } else {
      const content = renderPppSecrets(servers);
      if (content !== written) {
        await installFiles(
          PPP_SECRETS_FILES.map((target) => ({ target, content, mode: 0o600, check: PPP_SECRETS_FORMAT.name })),
          { root, run: runCommand, formats, tools: false },
        );
        written = content;
      }
    }
    if (options.sessions) endStaleSessions(options.sessions, servers, options.kill);
  }

  function sync(): Promise<void> {
    queue = queue.then(write).catch(report);
    return queue;
  }

  let cancel = () => {};
  const tick = () => {
    cancel = schedule(PPP_EXPIRY_CHECK_MS, () => {
      void sync();
      tick();
    });
  };
  tick();
  const unfollowAccounts = accounts.onChanged(() => void sync());
  const unfollowApplies = ctx.config.onApplied((domains) => (domains.includes(PPP_SERVER_DOMAIN) ? sync() : undefined));
  return {
    sync,
    stop() {
      cancel();
      unfollowAccounts();
      unfollowApplies();
    },
  };
}

/**
 * Ends the sessions whose address no longer matches what their account gets: an expired
 * account outside its expiry address (or with none: refused), an account that is not expired
 * inside the expired pool. Sessions of accounts the store no longer has are left alone.
 */
export function endStaleSessions(source: SessionSource, servers: readonly PppSecretsInput[], kill?: (pid: number) => void): void {
  const running = new Map<PppServerKind, PppSecretsInput>(servers.map((server) => [server.kind, server]));
  for (const kind of PPP_SERVER_KINDS) {
    const server = running.get(kind);
    if (!server) continue;
    const expired = expiredAddresses(server.accounts, server.expiredPool);
    const pool = new Set(server.expiredPool ?? []);
    const byName = new Map<string, PppAccount>(server.accounts.map((account) => [account.username, account]));
    for (const session of pppSessions(source, kind)) {
      const account = byName.get(session.username);
      if (!account) continue;
      const stale = account.expired ? expired.get(account.username) !== session.address : pool.has(session.address);
      if (stale) kickPppSession(source, kind, session.ifname, kill);
    }
  }
}
