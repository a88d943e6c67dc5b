import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ActivationError, activateWith, type RenderedFile } from '../../engine/engine-types.js';
import type { DriverEnv, ServiceReload, TargetActivation } from '../../config/domain-module.js';
import { NETWORK_FILES, TOLERANT_BATCHES } from './network-config.js';
import { OPENWRT_SWANCTL_FILES } from './network-openwrt-vpn.js';
import type { WanHealthConfig } from './network-ip-batch.js';
import { spawnService, stopChild } from './network-child-process.js';
import type { DialledLinks } from './network-dialled-links.js';
import { LinkDialler } from './network-link-dialler.js';
import { IKE_FILES } from './network-ike.js';
import { ikeDaemonOf } from './network-ike-daemon.js';
import { applySysctl } from './network-sysctl.js';
import { WanHealthMonitor } from './network-wan-health.js';
import { WanDhcpSupervisor, type WanDhcpConfig } from './network-wan-dhcp.js';
import { WanPppLinks } from './network-wan-ppp.js';
import { WanResolvFile } from './network-wan-resolv.js';

/** The dnsmasq the daemon runs in the foreground and restarts when its configuration changes. */
function dnsmasqSupervisor(env: DriverEnv, binary = 'dnsmasq') {
  let dnsmasq: ChildProcess | null = null;

  async function stop(): Promise<void> {
    const child = dnsmasq;
    dnsmasq = null;
    if (child) await stopChild(child);
  }

  async function start(conf: string): Promise<void> {
    await stop();
    const pidFile = join(env.root, 'run/portico/dnsmasq.pid');
    await rm(pidFile, { force: true });
    const argv = [binary, '--keep-in-foreground', `--conf-file=${conf}`, `--pid-file=${pidFile}`];
    const child = spawnService(argv, env.spawnPrefix, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    // dnsmasq writes its pid file once its sockets are bound: that is the moment it serves.
    // A bad configuration or a port in use makes it exit instead.
    const exited = new Promise<number>((done) => child.once('exit', (code) => done(code ?? 1)));
    const deadline = Date.now() + 5000;
    for (;;) {
      const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 10))]);
      if (code !== null) throw new ActivationError(conf, `dnsmasq exited (${code}): ${stderr.slice(0, 500)}`);
      if (await readFile(pidFile, 'utf8').then((text) => text.trim() !== '', () => false)) break;
      if (Date.now() > deadline) throw new ActivationError(conf, 'dnsmasq did not become ready');
    }
    dnsmasq = child;
  }

  return { start, stop };
}

/**
 * The Network section live on a Debian-style system: `ip -batch`, `sysctl -w` of the settings
 * that differ, `nft -f` (one atomic transaction per ruleset file), a dnsmasq the daemon
 * supervises, the WAN DHCP clients, the multi-WAN health monitor and the dialler of PPPoE WANs
 * and VPN clients (each reads its rendered JSON file).
 */
export function networkLinuxActivation(env: DriverEnv): TargetActivation {
  const wanHealth = new WanHealthMonitor({ run: env.run, report: env.report });
  const resolv = new WanResolvFile(env.root, NETWORK_FILES.wanResolv);
  const wanDhcp = new WanDhcpSupervisor({ root: env.root, run: env.run, resolv, spawnPrefix: env.spawnPrefix, report: env.report });
  const wanPpp = new WanPppLinks({ root: env.root, run: env.run, resolv, report: env.report });
  const dnsmasq = dnsmasqSupervisor(env);
  const ike = ikeDaemonOf(env);
  const dialler = new LinkDialler({ root: env.root, run: env.run, spawnPrefix: env.spawnPrefix, report: env.report, ike });
  const noteLoad = async () => ike.note({ load: true });
  const runOrThrow = (target: string, argv: readonly string[]) => activateWith(env.run, target, argv);
  return {
    activate: {
      'ip-batch': async (file: RenderedFile, path: string) => {
        // Links that exist already and tables not made yet fail single lines there, expectedly.
        if (TOLERANT_BATCHES.has(file.target)) await env.run(['ip', '-force', '-batch', path]);
        else await runOrThrow(file.target, ['ip', '-batch', path]);
      },
      sysctl: (file) => applySysctl(env, file.target, file.content),
      nft: (file, path) => runOrThrow(file.target, ['nft', '-f', path]),
      dnsmasq: (_file, path) => dnsmasq.start(path),
      [NETWORK_FILES.wanHealth]: async (file) => wanHealth.configure(JSON.parse(file.content) as WanHealthConfig),
      [NETWORK_FILES.wanDhcp]: async (file) => wanDhcp.configure(JSON.parse(file.content) as WanDhcpConfig),
      [IKE_FILES.charon]: async () => ike.note({ restart: true }),
      [IKE_FILES.swanctl]: noteLoad,
      [IKE_FILES.control]: async (file) => ike.note({ enabled: (JSON.parse(file.content) as { enabled: boolean }).enabled }),
      [NETWORK_FILES.swanctl]: noteLoad,
      [NETWORK_FILES.swanctlSecrets]: noteLoad,
      [NETWORK_FILES.dialledLinks]: async (file) => {
        const links = JSON.parse(file.content) as DialledLinks;
        wanPpp.configure(links.pppd.flatMap((link) => (link.wan ? [link.wan] : [])));
        dialler.describe(links);
      },
    },
    // The batches flushed the routes and addresses the daemon keeps by itself: DHCP leases,
    // PPPoE sessions' WAN tables and WANs the health monitor took out. Put them back.
    async afterPass(live) {
      if (live.some((file) => file.check === 'ip-batch')) {
        await wanDhcp.reapply();
        await wanPpp.reapply();
        await wanHealth.reassert();
      }
      // The one charon first (every IKE user's changes of this pass in one load), then the
      // clients' child SAs on it.
      await ike.flush();
      await dialler.afterPass(live);
    },
    reconnect: async (wan) => (await dialler.reconnect(wan)) ?? wanDhcp.reconnect(wan),
    async stop() {
      await wanHealth.stop();
      await dialler.stop();
      await ike.stop();
      await wanPpp.stop();
      await wanDhcp.stop();
      await dnsmasq.stop();
    },
  };
}

/** The procd service that reads each UCI package of the Network section. */
const OPENWRT_RELOADS: Readonly<Record<string, ServiceReload>> = {
  '/etc/config/network': { argv: ['/etc/init.d/network', 'reload'] },
  '/etc/config/dhcp': { argv: ['/etc/init.d/dnsmasq', 'reload'] },
  '/etc/config/firewall': { argv: ['/etc/init.d/firewall', 'reload'] },
  // From optional packages: without them the configuration is kept and nothing is reloaded.
  '/etc/config/mwan3': { argv: ['/etc/init.d/mwan3', 'reload'], optional: true },
  '/etc/config/igmpproxy': { argv: ['/etc/init.d/igmpproxy', 'reload'], optional: true },
  // strongSwan's swanctl init script loads them (`swanctl --load-all`) on reload.
  [OPENWRT_SWANCTL_FILES.connections]: { argv: ['/etc/init.d/swanctl', 'reload'], optional: true },
  [OPENWRT_SWANCTL_FILES.secrets]: { argv: ['/etc/init.d/swanctl', 'reload'], optional: true },
};

/** fw4 reads its nftables includes on every reload, like its UCI package. */
const FW4_INCLUDES = '/usr/share/nftables.d/';

export function networkOpenwrtReload(target: string): ServiceReload | undefined {
  return OPENWRT_RELOADS[target] ?? (target.startsWith(FW4_INCLUDES) ? OPENWRT_RELOADS['/etc/config/firewall'] : undefined);
}

export function networkOpenwrtActivation(): TargetActivation {
  return { reloadFor: networkOpenwrtReload };
}
