import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../engine/command-runner.js';
import type { DomainRegistry } from './config-domains.js';
import type { ConfigApplier } from './config-types.js';
import { renderAndInstall } from './apply-install.js';
import { loadQosScript } from '../domains/qos/qos-load.js';
import { QOS_FILES } from '../domains/qos/qos-config.js';

/** The procd service that reads each UCI package, reloaded when its file changes. */
export const OPENWRT_RELOADS: Readonly<Record<string, readonly string[]>> = {
  '/etc/config/network': ['/etc/init.d/network', 'reload'],
  '/etc/config/dhcp': ['/etc/init.d/dnsmasq', 'reload'],
  '/etc/config/firewall': ['/etc/init.d/firewall', 'reload'],
  '/etc/sysctl.d/12-portico-conntrack.conf': ['sysctl', '-p', '/etc/sysctl.d/12-portico-conntrack.conf'],
  '/etc/config/mwan3': ['/etc/init.d/mwan3', 'reload'],
  '/etc/config/igmpproxy': ['/etc/init.d/igmpproxy', 'reload'],
};

/** Smart QoS shaping: the same tc script as on linux, loaded whole the same way (qos-load.ts). */
const QOS_SCRIPT = QOS_FILES.tc;

/**
 * Services from optional packages: when the package is not installed (no init script) the
 * configuration is kept for it and nothing is reloaded, instead of failing the whole apply.
 */
const OPTIONAL_SERVICES = new Set(['/etc/init.d/mwan3', '/etc/init.d/igmpproxy']);

/** fw4 reads its nftables includes on every reload, like its UCI package. */
const FW4_INCLUDES = '/usr/share/nftables.d/';

export function openwrtReloadFor(target: string): readonly string[] | undefined {
  return OPENWRT_RELOADS[target] ?? (target.startsWith(FW4_INCLUDES) ? OPENWRT_RELOADS['/etc/config/firewall'] : undefined);
}

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
      const reloaded = new Set<string>();
      for (const file of applyOptions?.full ? files : changed) {
        if (file.target === QOS_SCRIPT) {
          const failure = await loadQosScript(options.run, QOS_SCRIPT, file.content);
          if (failure !== null) throw new ReloadError(`loading ${QOS_SCRIPT} failed: ${failure}`);
          continue;
        }
        const reload = openwrtReloadFor(file.target);
        // Several changed files of one service (fw4's includes) reload it once.
        if (!reload || reloaded.has(reload.join(' '))) continue;
        if (OPTIONAL_SERVICES.has(reload[0]!) && !existsSync(join(options.root, reload[0]!))) continue;
        reloaded.add(reload.join(' '));
        const result = await options.run(reload);
        if (result.exitCode !== 0) throw new ReloadError(`${reload.join(' ')} failed: ${(result.stderr || result.stdout).slice(0, 500)}`);
      }
    },
    // netifd restarts the interface's protocol handler (udhcpc, pppd): a fresh lease or dial.
    async reconnect(wan) {
      return (await options.run(['ifup', wan])).exitCode === 0;
    },
  };
}
