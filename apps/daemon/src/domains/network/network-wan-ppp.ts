import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIpv4 } from '@portico/schema';
import { clearWanPolicy, HookRecordFolder, runWanCommands, wanSourceRule, wanTableRoute, type DynamicWanOptions, type HookRecord, type WanPolicy } from './network-hook-records.js';

/** A PPPoE WAN as its link hook's reader needs it (from dialled-links.json). */
export interface PppWan extends WanPolicy {
  /** The WAN's name: pppd's ipparam and linkname. */
  name: string;
  /** The PPP device pppd creates (`ifname`). */
  device: string;
  /** Whether the ISP's DNS servers are used (no DNS server configured: `usepeerdns`). */
  peerDns: boolean;
}

/** What a PPP session that is up brings: its local address and the ISP's DNS servers. */
export interface PppSession {
  /** The pppd that reported it: a down reported by another pppd (an earlier one) is not this session's. */
  pid: number | null;
  local: string;
  dns: string[];
}

const here = dirname(fileURLToPath(import.meta.url));
/** pppd's link-up and link-down scripts: beside this module in the source tree and in dist/. */
export const PPP_HOOKS = { up: join(here, 'ppp-up-hook.mjs'), down: join(here, 'ppp-down-hook.mjs') } as const;
/** Where the hooks record each WAN's events, under the install root. */
export const PPP_RECORD_DIR = 'run/portico/wan-ppp';

/**
 * What pppd needs on its command line to run the hooks: the scripts (pppd 2.4.9's
 * `ip-up-script`/`ip-down-script`) and, with `set`, the hooks' environment, since pppd runs
 * scripts with an otherwise empty one: the record folder, and a PATH that finds this node.
 */
export function pppHookOptions(root: string): string[] {
  const path = [dirname(process.execPath), '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(':');
  return ['ip-up-script', PPP_HOOKS.up, 'ip-down-script', PPP_HOOKS.down, 'set', `PORTICO_PPP_DIR=${join(root, PPP_RECORD_DIR)}`, 'set', `PATH=${path}`];
}

/** The session in an `up` record of `wan`, or null when a value is missing or not valid. */
export function pppSessionOf(wan: PppWan, record: HookRecord): PppSession | null {
  if (record.event !== 'up' || record.ifname !== wan.device) return null;
  const local = typeof record.local === 'string' ? record.local : '';
  if (!isIpv4(local)) return null;
  const offered = Array.isArray(record.dns) ? record.dns : [];
  const dns = wan.peerDns ? offered.filter((server): server is string => typeof server === 'string' && isIpv4(server)).slice(0, 2) : [];
  return { pid: pidOf(record), local, dns };
}

function pidOf(record: HookRecord): number | null {
  return typeof record.pid === 'number' && Number.isSafeInteger(record.pid) && record.pid > 0 ? record.pid : null;
}

/**
 * pppd adds its own routes (the main-table default route with `defaultroute-metric`) with the
 * kernel's `boot` protocol; the WAN-table route and source rule the hook's session brings carry
 * it too, so the network batches, which flush only `static` rules, leave them alone.
 */
const PROTO = 'boot';

/**
 * The commands that put a session (or its end) into multi-WAN policy routing, as a DHCP lease
 * does: the WAN table's default route through the PPP device, and the rule sending what leaves
 * from the session's address through that table. Without multi-WAN there is none.
 */
export function pppSessionCommands(wan: PppWan, session: PppSession | null, previous: PppSession | null): string[][] {
  const changed = !previous || !session || previous.local !== session.local;
  const commands = changed ? clearWanPolicy(wan) : [];
  if (!session) return commands;
  commands.push(...wanTableRoute(wan, ['dev', wan.device], PROTO));
  if (changed) commands.push(...wanSourceRule(wan, session.local, PROTO));
  return commands;
}

/**
 * The PPPoE WANs' link-up and link-down events: pppd runs the hooks, which record each event
 * under the WAN's name; the daemon reads the record, checks every value, applies the session's
 * policy routing with `ip` argument arrays and puts its DNS servers (when the WAN uses the
 * ISP's) into the resolver file it shares with the DHCP WANs. On down, both go.
 */
export class WanPppLinks {
  private readonly wans = new Map<string, { wan: PppWan; session: PppSession | null }>();
  private readonly records: HookRecordFolder;

  constructor(private readonly options: DynamicWanOptions) {
    this.records = new HookRecordFolder(join(options.root, PPP_RECORD_DIR), {
      knows: (name) => this.wans.has(name),
      onRecord: (name, record) => this.read(name, record),
      report: options.report,
    });
  }

  configure(wans: readonly PppWan[]): void {
    const wanted = new Map(wans.map((wan) => [wan.name, wan]));
    for (const [name, entry] of this.wans) {
      const next = wanted.get(name);
      if (next && JSON.stringify(next) === JSON.stringify(entry.wan)) continue;
      // Its pppd is stopped or restarted: its session's routing goes now, since the down its hook
      // records arrives once this WAN is no longer the one described.
      this.wans.delete(name);
      if (entry.session) this.records.enqueue(() => this.run(pppSessionCommands(entry.wan, null, entry.session)));
    }
    for (const wan of wanted.values()) if (!this.wans.has(wan.name)) this.wans.set(wan.name, { wan, session: null });
    if (wanted.size) this.records.watch();
    this.records.enqueue(async () => this.writeResolv());
  }

  /** Puts every session's routing back: a network re-apply flushed the WAN tables. */
  reapply(): Promise<void> {
    for (const [name, entry] of this.wans) {
      if (entry.session) this.records.enqueue(() => this.apply(name, entry.session, null));
    }
    return this.records.settled();
  }

  /** The session each WAN has up, as the daemon applied it. */
  sessions(): Array<{ name: string; session: PppSession | null }> {
    return [...this.wans.entries()].map(([name, entry]) => ({ name, session: entry.session }));
  }

  async stop(): Promise<void> {
    for (const entry of this.wans.values()) {
      if (entry.session) this.records.enqueue(() => this.run(pppSessionCommands(entry.wan, null, entry.session)));
    }
    this.wans.clear();
    this.records.enqueue(async () => this.writeResolv());
    await this.records.close();
  }

  private async read(name: string, record: HookRecord): Promise<void> {
    const entry = this.wans.get(name);
    if (!entry) return;
    if (record.event === 'down') {
      if (!entry.session) return;
      // An earlier pppd's down (one left from before a restart) is not the end of this session.
      if (entry.session.pid !== null && pidOf(record) !== entry.session.pid) {
        this.options.report?.(new Error(`PPPoE WAN ${name}: a link-down of another pppd than the one whose session is up was ignored`));
        return;
      }
      return this.apply(name, null, entry.session);
    }
    if (record.event !== 'up') return;
    const session = pppSessionOf(entry.wan, record);
    if (!session) {
      this.options.report?.(new Error(`PPPoE WAN ${name}: a link-up record without a valid device or address was ignored`));
      return;
    }
    return this.apply(name, session, entry.session);
  }

  private async apply(name: string, session: PppSession | null, previous: PppSession | null): Promise<void> {
    const entry = this.wans.get(name);
    if (!entry) return;
    await this.run(pppSessionCommands(entry.wan, session, previous));
    entry.session = session;
    this.writeResolv();
  }

  private run(commands: readonly string[][]): Promise<void> {
    return runWanCommands(this.options.run, commands, this.options.report);
  }

  private writeResolv(): void {
    this.options.resolv.publish('ppp', [...this.wans.values()].flatMap((entry) => entry.session?.dns ?? []));
  }
}
