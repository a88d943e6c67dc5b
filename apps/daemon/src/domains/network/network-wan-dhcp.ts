import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIpv4, netmaskToPrefix } from '@portico/schema';
import type { CommandRunner } from '../../engine/command-runner.js';
import { spawnService, stopChild } from './network-child-process.js';

/** A DHCP WAN as the network renderer describes it (wan-dhcp.json). */
export interface DhcpWanClient {
  name: string;
  device: string;
  /** Main-table default-route metric. */
  metric: number;
  /** Set with multi-WAN: the WAN's own table and its source-address rule priority. */
  table?: number;
  rulePriority?: number;
}

export interface WanDhcpConfig {
  clients: DhcpWanClient[];
}

/** A lease as the hook recorded it; every value is untrusted text until checked. */
interface HookRecord {
  event: string;
  ip?: string;
  mask?: string;
  subnet?: string;
  router?: string;
  dns?: string;
}

export interface WanLease {
  address: string;
  prefix: number;
  router: string | null;
  dns: string[];
}

/** The lease in a hook record, or null when the record carries none or a value is not valid. */
export function leaseOf(record: HookRecord): WanLease | null {
  if (record.event !== 'bound' && record.event !== 'renew') return null;
  const address = record.ip ?? '';
  if (!isIpv4(address)) return null;
  const byMask = /^\d{1,2}$/.test(record.mask ?? '') ? Number(record.mask) : null;
  const prefix = byMask !== null && byMask >= 1 && byMask <= 32 ? byMask : netmaskToPrefix(record.subnet ?? '');
  if (prefix === null || prefix === undefined || prefix < 1 || prefix > 32) return null;
  const router = (record.router ?? '').split(/\s+/).find(isIpv4) ?? null;
  const dns = (record.dns ?? '').split(/\s+/).filter(isIpv4).slice(0, 3);
  return { address, prefix, router, dns };
}

const PROTO = 'dhcp';

/** The commands that put a lease (or its loss) on the WAN's device; pure, argument arrays only. */
export function leaseCommands(client: DhcpWanClient, lease: WanLease | null, previous: WanLease | null): string[][] {
  const dev = client.device;
  const commands: string[][] = [];
  const changed = !previous || !lease || previous.address !== lease.address || previous.prefix !== lease.prefix;
  if (changed) {
    commands.push(['ip', 'address', 'flush', 'dev', dev, 'scope', 'global']);
    if (client.table !== undefined) commands.push(['ip', 'route', 'flush', 'table', String(client.table)]);
    if (client.rulePriority !== undefined) commands.push(['ip', 'rule', 'del', 'priority', String(client.rulePriority)]);
  }
  if (!lease) return commands;
  commands.push(['ip', 'address', 'replace', `${lease.address}/${lease.prefix}`, 'dev', dev]);
  if (lease.router) {
    commands.push(['ip', 'route', 'replace', 'default', 'via', lease.router, 'dev', dev, 'proto', PROTO, 'metric', String(client.metric)]);
    if (client.table !== undefined) {
      commands.push(['ip', 'route', 'replace', 'default', 'via', lease.router, 'dev', dev, 'table', String(client.table), 'proto', PROTO]);
    }
  }
  if (client.rulePriority !== undefined && client.table !== undefined && changed) {
    commands.push(['ip', 'rule', 'add', 'priority', String(client.rulePriority), 'from', lease.address, 'lookup', String(client.table), 'protocol', PROTO]);
  }
  return commands;
}

/** The hook udhcpc runs: beside this module in the source tree and in dist/. */
export const DHCP_HOOK = join(dirname(fileURLToPath(import.meta.url)), 'dhcp-hook.mjs');

/**
 * DHCP client of the DHCP WANs: one supervised `busybox udhcpc` per WAN, whose hook records
 * each lease event in a file; the daemon reads it, checks every value (the upstream DHCP
 * server is untrusted) and applies the lease with `ip` argument arrays: address, default
 * route at the WAN's metric, and with multi-WAN its table and source rule. The DNS servers of
 * all leases go to the resolver file dnsmasq reads.
 */
export class WanDhcpSupervisor {
  private clients = new Map<string, { config: DhcpWanClient; child: ChildProcess | null; lease: WanLease | null }>();
  private watcher: FSWatcher | null = null;
  private queue: Promise<void> = Promise.resolve();
  private readonly stateDir: string;

  constructor(
    private readonly options: {
      root: string;
      run: CommandRunner;
      /** The resolver file (absolute on the target) dnsmasq reads learnt DNS servers from. */
      resolvFile: string;
      spawnPrefix?: readonly string[];
      report?: (error: unknown) => void;
    },
  ) {
    this.stateDir = join(options.root, 'run/portico/wan-dhcp');
  }

  configure(config: WanDhcpConfig): void {
    const wanted = new Map(config.clients.map((client) => [client.name, client]));
    for (const [name, entry] of this.clients) {
      const next = wanted.get(name);
      if (!next || JSON.stringify(next) !== JSON.stringify(entry.config)) {
        entry.child?.kill('SIGTERM');
        this.clients.delete(name);
      }
    }
    if (wanted.size && !this.watcher) {
      mkdirSync(this.stateDir, { recursive: true });
      this.watcher = watch(this.stateDir, (_event, file) => {
        const name = String(file ?? '').replace(/\.json$/, '');
        if (this.clients.has(name)) this.enqueue(() => this.readLease(name));
      });
    }
    for (const client of wanted.values()) if (!this.clients.has(client.name)) this.start(client);
    this.enqueue(() => this.writeResolv());
  }

  /** Puts every current lease back: a network re-apply flushed what these commands set. */
  reapply(): Promise<void> {
    for (const [name, entry] of this.clients) {
      if (entry.lease) this.enqueue(() => this.applyLease(name, entry.lease, null));
    }
    return this.queue;
  }

  /** Starts the WAN's DHCP client again: a fresh discover, as `network/reconnect` asks. */
  reconnect(name: string): boolean {
    const entry = this.clients.get(name);
    if (!entry) return false;
    entry.child?.kill('SIGTERM');
    this.start(entry.config);
    return true;
  }

  leases(): Array<{ name: string; lease: WanLease | null }> {
    return [...this.clients.entries()].map(([name, entry]) => ({ name, lease: entry.lease }));
  }

  async stop(): Promise<void> {
    this.watcher?.close();
    this.watcher = null;
    const children = [...this.clients.values()].map((entry) => entry.child).filter((c): c is ChildProcess => !!c);
    this.clients.clear();
    await Promise.all(children.map((child) => stopChild(child)));
    await this.queue;
  }

  private start(config: DhcpWanClient): void {
    // -f foreground (supervised), -R release on exit, -t/-T/-A retry pacing.
    const argv = ['busybox', 'udhcpc', '-f', '-R', '-i', config.device, '-s', DHCP_HOOK, '-t', '4', '-T', '2', '-A', '5'];
    const child = spawnService(argv, this.options.spawnPrefix, {
      stdio: 'ignore',
      env: { ...process.env, PORTICO_DHCP_DIR: this.stateDir, PORTICO_WAN: config.name },
    });
    const entry = { config, child, lease: null as WanLease | null };
    child.once('error', (error) => this.options.report?.(error));
    this.clients.set(config.name, entry);
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error: unknown) => this.options.report?.(error));
  }

  private async readLease(name: string): Promise<void> {
    const file = join(this.stateDir, `${name}.json`);
    if (!existsSync(file)) return;
    let record: HookRecord;
    try {
      record = JSON.parse(readFileSync(file, 'utf8')) as HookRecord;
    } catch {
      return; // a half-written file is replaced by a rename; the next event reads it
    }
    if (!['bound', 'renew', 'deconfig', 'leasefail', 'nak'].includes(record.event)) return;
    const entry = this.clients.get(name);
    if (!entry) return;
    const lease = leaseOf(record);
    // deconfig at start and leasefail change nothing until there was a lease.
    if (!lease && !entry.lease && record.event !== 'nak') return;
    await this.applyLease(name, lease, entry.lease);
  }

  private async applyLease(name: string, lease: WanLease | null, previous: WanLease | null): Promise<void> {
    const entry = this.clients.get(name);
    if (!entry) return;
    for (const argv of leaseCommands(entry.config, lease, previous)) {
      const result = await this.options.run(argv);
      // Deleting what is not there (a rule, an empty table) is expected and harmless.
      if (result.exitCode !== 0 && !['del', 'flush'].includes(argv[3] ?? '') && argv[2] !== 'rule') {
        this.options.report?.(new Error(`${argv.join(' ')}: ${result.stderr.slice(0, 300)}`));
      }
    }
    entry.lease = lease;
    await this.writeResolv();
  }

  private async writeResolv(): Promise<void> {
    const servers = [...new Set([...this.clients.values()].flatMap((entry) => entry.lease?.dns ?? []))];
    const target = join(this.options.root, this.options.resolvFile);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(`${target}.tmp`, servers.map((server) => `nameserver ${server}\n`).join(''));
    renameSync(`${target}.tmp`, target);
  }
}
