import type { CommandRunner } from '../engine/command-runner.js';
import { createLinuxActivator } from '../drivers/linux/linux-activate.js';
import type { DomainRegistry } from './config-domains.js';
import type { ConfigApplier } from './config-types.js';
import { renderAndInstall } from './apply-install.js';
import { NETWORK_FILES, TOLERANT_BATCHES } from '../domains/network/network-config.js';
import type { WanHealthConfig } from '../domains/network/network-ip-batch.js';
import { WanHealthMonitor } from '../drivers/linux/wan-health.js';
import { WanDhcpSupervisor, type WanDhcpConfig } from '../drivers/linux/wan-dhcp.js';

/**
 * Applier of the linux driver: renders the domains, installs the files under `root` (the
 * system root, `/` on a device) after each passed its real checker, then makes the changed
 * ones live in render order (ip batches, sysctl, nft, dnsmasq).
 */
export function createLinuxApplier(options: {
  root: string;
  run: CommandRunner;
  domains: DomainRegistry;
  dnsmasqBinary?: string;
  spawnPrefix?: readonly string[];
  report?: (error: unknown) => void;
}): ConfigApplier & { wanHealth: WanHealthMonitor; wanDhcp: WanDhcpSupervisor } {
  const wanHealth = new WanHealthMonitor({ run: options.run, report: options.report });
  const wanDhcp = new WanDhcpSupervisor({
    root: options.root,
    run: options.run,
    resolvFile: NETWORK_FILES.wanResolv,
    spawnPrefix: options.spawnPrefix,
    report: options.report,
  });
  const activator = createLinuxActivator({
    root: options.root,
    run: options.run,
    dnsmasqBinary: options.dnsmasqBinary,
    tolerantBatches: TOLERANT_BATCHES,
    spawnPrefix: options.spawnPrefix,
    consumers: new Map([
      [NETWORK_FILES.wanHealth, (content: string) => wanHealth.configure(JSON.parse(content) as WanHealthConfig)],
      [NETWORK_FILES.wanDhcp, (content: string) => wanDhcp.configure(JSON.parse(content) as WanDhcpConfig)],
    ]),
  });
  return {
    async apply(domains, snapshot, applyOptions) {
      const { files, changed } = await renderAndInstall(options, domains, snapshot);
      // The ip batches build on each other (the prepare batch flushes what the state batch then
      // sets), so a change to any of them replays them all, in order.
      const batchChanged = changed.some((file) => file.check === 'ip-batch');
      const live = applyOptions?.full ? files : files.filter((file) => changed.includes(file) || (batchChanged && file.check === 'ip-batch'));
      await activator.activate(live);
      // The batches flushed the routes and addresses the daemon keeps by itself: DHCP leases
      // and WANs the health monitor took out. Put them back.
      if (live.some((file) => file.check === 'ip-batch')) {
        await wanDhcp.reapply();
        await wanHealth.reassert();
      }
    },
    reconnect: async (wan: string) => wanDhcp.reconnect(wan),
    async stop() {
      await wanHealth.stop();
      await wanDhcp.stop();
      await activator.stop();
    },
    wanHealth,
    wanDhcp,
  };
}
