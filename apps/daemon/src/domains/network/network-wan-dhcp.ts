import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIpv4, netmaskToPrefix } from '@portico/schema';
import { spawnService, stopChild } from './network-child-process.js';
import { clearWanPolicy, HookRecordFolder, runWanCommands, wanSourceRule, wanTableRoute, type DynamicWanOptions, type HookRecord, type WanPolicy } from './network-hook-records.js';

/** A DHCP WAN as the network renderer describes it (wan-dhcp.json). */
export interface DhcpWanClient extends WanPolicy {
  name: string;
  device: string;
  /** Main-table default-route metric. */
  metric: number;
}

export interface WanDhcpConfig {
  clients: DhcpWanClient[];
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
  const text = (name: string) => (typeof record[name] === 'string' ? (record[name] as string) : '');
  const address = text('ip');
  if (!isIpv4(address)) return null;
  const byMask = /^\d{1,2}$/.test(text('mask')) ? Number(text('mask')) : null;
  const prefix = byMask !== null && byMask >= 1 && byMask <= 32 ? byMask : netmaskToPrefix(text('subnet'));
  if (prefix === null || prefix === undefined || prefix < 1 || prefix > 32) return null;
  const router = text('router').split(/\s+/).find(isIpv4) ?? null;
  const dns = text('dns').split(/\s+/).filter(isIpv4).slice(0, 3);
  return { address, prefix, router, dns };
}

const PROTO = 'dhcp';

/** The commands that put a lease (or its loss) on the WAN's device; pure, argument arrays only. */
export function leaseCommands(client: DhcpWanClient, lease: WanLease | null, previous: WanLease | null): string[][] {
  const dev = client.device;
  const commands: string[][] = [];
  const changed = !previous || !lease || previous.address !== lease.address || previous.prefix !== lease.prefix;
  if (changed) commands.push(['ip', 'address', 'flush', 'dev', dev, 'scope', 'global'], ...clearWanPolicy(client));
  if (!lease) return commands;
  commands.push(['ip', 'address', 'replace', `${lease.address}/${lease.prefix}`, 'dev', dev]);
  if (lease.router) {
    commands.push(['ip', 'route', 'replace', 'default', 'via', lease.router, 'dev', dev, 'proto', PROTO, 'metric', String(client.metric)]);
    commands.push(...wanTableRoute(client, ['via', lease.router, 'dev', dev], PROTO));
  }
  if (changed) commands.push(...wanSourceRule(client, lease.address, PROTO));
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
  private readonly records: HookRecordFolder;

  constructor(private readonly options: DynamicWanOptions & { spawnPrefix?: readonly string[] }) {
    this.records = new HookRecordFolder(join(options.root, 'run/portico/wan-dhcp'), {
      knows: (name) => this.clients.has(name),
      onRecord: (name, record) => this.readLease(name, record),
      report: options.report,
    });
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
    if (wanted.size) this.records.watch();
    for (const client of wanted.values()) if (!this.clients.has(client.name)) this.start(client);
    this.records.enqueue(async () => this.writeResolv());
  }

  /** Puts every current lease back: a network re-apply flushed what these commands set. */
  reapply(): Promise<void> {
    for (const [name, entry] of this.clients) {
      if (entry.lease) this.records.enqueue(() => this.applyLease(name, entry.lease, null));
    }
    return this.records.settled();
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
    const children = [...this.clients.values()].map((entry) => entry.child).filter((c): c is ChildProcess => !!c);
    this.clients.clear();
    await Promise.all(children.map((child) => stopChild(child)));
    await this.records.close();
  }

  private start(config: DhcpWanClient): void {
    // -f foreground (supervised), -R release on exit, -t/-T/-A retry pacing.
    const argv = ['busybox', 'udhcpc', '-f', '-R', '-i', config.device, '-s', DHCP_HOOK, '-t', '4', '-T', '2', '-A', '5'];
    const child = spawnService(argv, this.options.spawnPrefix, {
      stdio: 'ignore',
      env: { ...process.env, PORTICO_DHCP_DIR: this.records.dir, PORTICO_WAN: config.name },
    });
    const entry = { config, child, lease: null as WanLease | null };
    child.once('error', (error) => this.options.report?.(error));
    this.clients.set(config.name, entry);
  }

  private async readLease(name: string, record: HookRecord): Promise<void> {
    if (!['bound', 'renew', 'deconfig', 'leasefail', 'nak'].includes(String(record.event))) return;
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
    await runWanCommands(this.options.run, leaseCommands(entry.config, lease, previous), this.options.report);
    entry.lease = lease;
    this.writeResolv();
  }

  private writeResolv(): void {
    this.options.resolv.publish('dhcp', [...this.clients.values()].flatMap((entry) => entry.lease?.dns ?? []));
  }
}
