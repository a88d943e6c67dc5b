import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { networkInterface, writeSchema, type AnyEntity } from '@portico/schema';
import { runCommand, type CommandRunner } from '../../apps/daemon/src/engine/command-runner.js';
import { createLinuxApplier } from '../../apps/daemon/src/config/apply-linux.js';
import type { ConfigApplier, ConfigDomain, ConfigSnapshot } from '../../apps/daemon/src/config/config-types.js';
import { systemRegistry } from '../../apps/daemon/src/domain-list.js';
import type { QosDownloadSetting } from '../../apps/daemon/src/settings.js';
import { createLab, inNs, SERVER_ADDRESS, type Lab } from './lab-topology.js';

/** A snapshot row as the write path would store it; throws when the schema refuses it. */
export function row(entity: AnyEntity, id: string, input: Record<string, unknown>) {
  const parsed = writeSchema(entity, 'add').safeParse(input);
  if (!parsed.success) throw new Error(`${entity.name}: ${JSON.stringify(parsed.error.issues)}`);
  return { id, data: { ...(parsed.data as object), id } as Record<string, unknown> };
}

export interface LabGateway {
  lab: Lab;
  /** The linux driver's applier with every command run inside the gateway namespace. */
  applier: ConfigApplier;
  /** The throwaway system root the rendered files are installed under. */
  root: string;
  apply(snapshot: ConfigSnapshot): Promise<void>;
  /** Fetches the upstream page from a namespace; false when it never arrives. */
  fetchUpstream(ns: string, tries?: number): Promise<boolean>;
  down(): Promise<void>;
}

/**
 * The lab topology with the daemon's network domain on the linux driver: files installed
 * under a throwaway system root, commands and dnsmasq inside the gateway namespace, and an
 * HTTP server upstream. Smart QoS shapes download on the LAN side unless `qosDownload` says
 * otherwise (qos-ifb-download.test.ts runs `auto`, as the device does).
 */
export function createLabGateway(
  options: { clients?: number; httpServer?: boolean; domains?: (root: string) => ConfigDomain[]; qosDownload?: QosDownloadSetting } = {},
): LabGateway {
  const lab = createLab({ clients: options.clients ?? 2 });
  const root = mkdtempSync(join(tmpdir(), 'portico-lab-root-'));
  const webRoot = mkdtempSync(join(tmpdir(), 'portico-lab-www-'));
  writeFileSync(join(webRoot, 'index.html'), 'upstream-ok\n');
  const inGateway: CommandRunner = (argv, opts) => runCommand(['ip', 'netns', 'exec', lab.gw, ...argv], opts);
  const domains = systemRegistry({ port: 8080, systemRoot: root, driver: 'linux', qosDownload: options.qosDownload ?? 'lan' }, options.domains?.(root));
  const applier = createLinuxApplier({
    root,
    run: inGateway,
    domains,
    spawnPrefix: ['ip', 'netns', 'exec', lab.gw],
  });
  let httpd: ChildProcess | undefined;
  if (options.httpServer !== false) {
    httpd = spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'httpd', '-f', '-p', `${SERVER_ADDRESS}:80`, '-h', webRoot], { stdio: 'ignore' });
  }
  return {
    lab,
    applier,
    root,
    apply: (snapshot) => applier.apply(domains.renderable(), snapshot),
    async fetchUpstream(ns, tries = 10) {
      for (let i = 0; i < tries; i++) {
        const body = inNs(ns, ['busybox', 'wget', '-q', '-O', '-', `http://${SERVER_ADDRESS}/`], { allowFail: true, timeoutMs: 3000 }).stdout;
        if (body.includes('upstream-ok')) return true;
        await new Promise((r) => setTimeout(r, 200));
      }
      return false;
    },
    async down() {
      await applier.stop?.();
      httpd?.kill();
      lab.down();
      for (const dir of [root, webRoot]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

const WAN1 = { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' };
const WAN2 = { ifname: 'wan2', role: 'wan', hwport: ['wan2'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1' };

/** LAN 192.168.11.1/24 bridged over the first `ports` client ports (lanp1…). */
function lanRow(ports: number) {
  const hwport = Array.from({ length: ports }, (_, i) => `lanp${i + 1}`);
  return row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport, proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' });
}

/** The plain lab network: WAN 198.51.100.2/24 on wan1, LAN 192.168.11.1/24 bridged over two ports. */
export function oneWanOneLan() {
  return { networkInterface: [row(networkInterface, 'wan1', WAN1), lanRow(2)] };
}

/** Both lab WANs (198.51.100.2/24 on wan1, 203.0.113.2/24 on wan2) and the LAN; `wan1` adds fields to the first. */
export function twoWansOneLan(options: { lanPorts?: number; wan1?: Record<string, unknown> } = {}) {
  return { networkInterface: [row(networkInterface, 'wan1', { ...WAN1, ...options.wan1 }), row(networkInterface, 'wan2', WAN2), lanRow(options.lanPorts ?? 2)] };
}
