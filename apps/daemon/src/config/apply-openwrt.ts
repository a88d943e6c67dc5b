import type { CommandRunner } from '../engine/command-runner.js';
import type { DomainRegistry } from './config-domains.js';
import type { ConfigApplier } from './config-types.js';
import { renderAndInstall } from './apply-install.js';

/** The procd service that reads each UCI package, reloaded when its file changes. */
export const OPENWRT_RELOADS: Readonly<Record<string, readonly string[]>> = {
  '/etc/config/network': ['/etc/init.d/network', 'reload'],
  '/etc/config/dhcp': ['/etc/init.d/dnsmasq', 'reload'],
  '/etc/config/firewall': ['/etc/init.d/firewall', 'reload'],
};

export class ReloadError extends Error {}

/**
 * Applier of the openwrt driver: renders the domains as UCI packages, checks each with the UCI
 * parser, installs them atomically under `root` (`/` on a device) and reloads the services
 * that read the changed packages (netifd, dnsmasq, fw4), in render order.
 */
export function createOpenwrtApplier(options: { root: string; run: CommandRunner; domains: DomainRegistry }): ConfigApplier {
  return {
    async apply(domains, snapshot, applyOptions) {
      const { files, changed } = await renderAndInstall(options, domains, snapshot);
      for (const file of applyOptions?.full ? files : changed) {
        const reload = OPENWRT_RELOADS[file.target];
        if (!reload) continue;
        const result = await options.run(reload);
        if (result.exitCode !== 0) throw new ReloadError(`${reload.join(' ')} failed: ${(result.stderr || result.stdout).slice(0, 500)}`);
      }
    },
  };
}
