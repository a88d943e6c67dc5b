import { existsSync, mkdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../../engine/command-runner.js';
import type { WanResolvFile } from './network-wan-resolv.js';

/** A hook's record as read: every value is untrusted text until its reader checks it. */
export type HookRecord = Readonly<Record<string, unknown>>;

/**
 * The folder a link hook (udhcpc's, pppd's) records its link's events in: one `<name>.json`
 * per link, replaced by a rename at each event. The hooks only record; the daemon reads each
 * new record here, one at a time in arrival order, and acts on it with checked values.
 */
export class HookRecordFolder {
  private watcher: FSWatcher | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly options: {
      /** Whether a link of that name is one this folder's reader runs. */
      knows: (name: string) => boolean;
      onRecord: (name: string, record: HookRecord) => Promise<void>;
      report?: (error: unknown) => void;
    },
  ) {}

  /** Starts watching (once). */
  watch(): void {
    if (this.watcher) return;
    mkdirSync(this.dir, { recursive: true });
    this.watcher = watch(this.dir, (_event, file) => {
      const name = String(file ?? '').replace(/\.json$/, '');
      if (this.options.knows(name)) this.enqueue(() => this.read(name));
    });
  }

  /** Runs `task` after every record and task queued before it; a failure is reported. */
  enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error: unknown) => this.options.report?.(error));
  }

  /** Resolves once everything queued so far is done. */
  settled(): Promise<void> {
    return this.queue;
  }

  close(): Promise<void> {
    this.watcher?.close();
    this.watcher = null;
    return this.queue;
  }

  private async read(name: string): Promise<void> {
    const file = join(this.dir, `${name}.json`);
    if (!existsSync(file)) return;
    let record: unknown;
    try {
      record = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return; // a half-written file is replaced by a rename; the next event reads it
    }
    if (record && typeof record === 'object' && !Array.isArray(record)) await this.options.onRecord(name, record as HookRecord);
  }
}

/** What the readers of the dynamic WANs' hook records (DHCP leases, PPP sessions) work with. */
export interface DynamicWanOptions {
  root: string;
  run: CommandRunner;
  /** The resolver file dnsmasq reads learnt DNS servers from, shared by all of them. */
  resolv: WanResolvFile;
  report?: (error: unknown) => void;
}

/** A dynamic WAN's share of multi-WAN policy routing: its table and its source rule's priority. */
export interface WanPolicy {
  table?: number;
  rulePriority?: number;
}

/** Removes what a WAN's last address put in its table and source rule. */
export function clearWanPolicy(wan: WanPolicy): string[][] {
  const commands: string[][] = [];
  if (wan.table !== undefined) commands.push(['ip', 'route', 'flush', 'table', String(wan.table)]);
  if (wan.rulePriority !== undefined) commands.push(['ip', 'rule', 'del', 'priority', String(wan.rulePriority)]);
  return commands;
}

/** The WAN table's default route, `path` being `via <router> dev <device>` or `dev <device>`. */
export function wanTableRoute(wan: WanPolicy, path: readonly string[], proto: string): string[][] {
  return wan.table === undefined ? [] : [['ip', 'route', 'replace', 'default', ...path, 'table', String(wan.table), 'proto', proto]];
}

/** The rule sending what leaves from the WAN's address through the WAN's table. */
export function wanSourceRule(wan: WanPolicy, address: string, proto: string): string[][] {
  if (wan.table === undefined || wan.rulePriority === undefined) return [];
  return [['ip', 'rule', 'add', 'priority', String(wan.rulePriority), 'from', address, 'lookup', String(wan.table), 'protocol', proto]];
}

/** Runs a WAN's commands in order; removing what is not there (a rule, an empty table) is expected and harmless. */
export async function runWanCommands(run: CommandRunner, commands: readonly string[][], report?: (error: unknown) => void): Promise<void> {
  for (const argv of commands) {
    const result = await run(argv);
    if (result.exitCode !== 0 && !['del', 'flush'].includes(argv[2] ?? '')) {
      report?.(new Error(`${argv.join(' ')}: ${result.stderr.slice(0, 300)}`));
    }
  }
}
