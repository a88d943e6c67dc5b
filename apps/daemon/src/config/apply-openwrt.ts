import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../engine/command-runner.js';
import type { DomainRegistry } from './config-domains.js';
import type { ConfigApplier } from './config-types.js';
import { activationHandlers, reloadList, type ServiceReload } from './domain-module.js';
import { renderAndInstall } from './apply-install.js';

export class ReloadError extends Error {}

/**
 * Applier of the openwrt driver: renders the domains as UCI packages and includes, checks
 * each, installs them atomically under `root` (`/` on a device), removes what is no longer
 * rendered and reloads the services that read the changed files (netifd, dnsmasq, fw4 …),
 * once each, in render order. The modules say which service reads which file.
 */
export function createOpenwrtApplier(options: { root: string; run: CommandRunner; domains: DomainRegistry }): ConfigApplier {
  const activations = options.domains.activations('openwrt', { root: options.root, run: options.run });
  const reloadsFor = (target: string): readonly ServiceReload[] => {
    for (const activation of activations) {
      const reloads = reloadList(activation.reloadFor?.(target));
      if (reloads.length > 0) return reloads;
    }
    return [];
  };
  const handlerFor = activationHandlers(activations);
  return {
    async apply(domains, snapshot, applyOptions) {
      const { files, changed, removed } = await renderAndInstall(options, domains, snapshot);
      const reloaded = new Set<string>();
      const reload = async (target: string) => {
        for (const service of reloadsFor(target)) {
          // Several changed files of one service (fw4's includes) reload it once.
          if (reloaded.has(service.argv.join(' '))) continue;
          if (service.optional && !existsSync(join(options.root, service.argv[0]!))) continue;
          reloaded.add(service.argv.join(' '));
          const result = await options.run(service.argv);
          if (result.exitCode !== 0) throw new ReloadError(`${service.argv.join(' ')} failed: ${(result.stderr || result.stdout).slice(0, 500)}`);
        }
      };
      const live = applyOptions?.full ? files : changed;
      for (const file of live) {
        const handler = handlerFor(file);
        if (handler) {
          // Commands name files as the device sees them, like the service reloads below.
          await handler(file, file.target).catch((error: unknown) => {
            throw new ReloadError(`loading ${file.target} failed: ${error instanceof Error ? error.message : String(error)}`);
          });
          continue;
        }
        await reload(file.target);
      }
      // A removed file (an fw4 include no longer rendered) is gone only once its service reads again.
      for (const target of removed) await reload(target);
      for (const activation of activations) await activation.afterPass?.(live);
    },
    // netifd restarts the interface's protocol handler (udhcpc, pppd): a fresh lease or dial.
    async reconnect(wan) {
      return (await options.run(['ifup', wan])).exitCode === 0;
    },
  };
}
