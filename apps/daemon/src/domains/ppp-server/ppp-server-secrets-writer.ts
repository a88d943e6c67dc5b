import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PPP_SERVER_KINDS } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { runCommand } from '../../engine/command-runner.js';
import { FormatRegistry } from '../../engine/file-format.js';
import { installFiles } from '../../engine/file-install.js';
import { localUsers } from '../hotspot-config/hotspot-config-public.js';
import { pppSettingsOf } from './ppp-server-files.js';
import { checkPppSecrets, PPP_SECRETS_FILES, renderPppSecrets, type PppSecretsInput } from './ppp-server-secrets.js';

export const PPP_SECRETS_FORMAT = { name: 'ppp-secrets', builtin: (content: string) => checkPppSecrets(content)[0] ?? null };
/** The config domain of the servers' settings (ppp-server-module.ts). */
export const PPP_SERVER_DOMAIN = 'ppp-server';

/**
 * Keeps pppd's secrets files in line with the local accounts and the servers' switches. The
 * accounts live in their own table, not in the configuration rows an apply renders, so this
 * writer (not the config engine) renders the files: after every apply of the servers' settings
 * and every change of the accounts, one at a time (an apply of other domains changes neither, so
 * it is left alone). Each is checked, written 0600 beside its target and renamed over it
 * (the engine's installFiles); with no server using local accounts both files are removed.
 */
export function pppSecretsWriter(ctx: AppContext, root: string, report: (error: unknown) => void): { sync(): Promise<void>; stop(): void } {
  const formats = new FormatRegistry([PPP_SECRETS_FORMAT]);
  const accounts = localUsers(ctx);
  let queue = Promise.resolve();

  async function write(): Promise<void> {
    const snapshot = ctx.config.journal.capture();
    const servers: PppSecretsInput[] = [];
    for (const kind of PPP_SERVER_KINDS) {
      const settings = pppSettingsOf(snapshot, kind);
      if (!settings.enabled || settings.authway !== 'local') continue;
      servers.push({ kind, accounts: accounts.pppAccounts(kind) });
    }
    if (!servers.length) {
      for (const target of PPP_SECRETS_FILES) await rm(join(root, target), { force: true });
      return;
    }
    const content = renderPppSecrets(servers);
    await installFiles(
      PPP_SECRETS_FILES.map((target) => ({ target, content, mode: 0o600, check: PPP_SECRETS_FORMAT.name })),
      { root, run: runCommand, formats, tools: false },
    );
  }

  function sync(): Promise<void> {
    queue = queue.then(write).catch(report);
    return queue;
  }

  const unfollowAccounts = accounts.onChanged(() => void sync());
  const unfollowApplies = ctx.config.onApplied((domains) => (domains.includes(PPP_SERVER_DOMAIN) ? sync() : undefined));
  return {
    sync,
    stop() {
      unfollowAccounts();
      unfollowApplies();
    },
  };
}
