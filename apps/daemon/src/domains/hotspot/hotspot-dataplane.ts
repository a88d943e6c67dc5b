import type { CommandRunner } from '../../engine/command-runner.js';
import { integer, ipv4, mac } from '../network/network-public.js';

/**
 * Where authorised clients take effect. On the `linux` driver: elements of the nftables sets
 * the hotspot ruleset part declares (hotspot-ruleset.ts), changed by element in `nft -f -`
 * transactions, never a rule per client. Authorising a client writes ONE element (MAC . IP
 * into `hs_auth`); the per-address sets that let its downloads in and count its bytes are
 * filled by the data path itself from its first packets, so a burst of logins costs the kernel
 * one insertion per client and no per-client counter allocation. On `sim`: the same
 * bookkeeping in memory.
 */

export const HOTSPOT_TABLE = 'inet portico';
/** Authorised clients by MAC and IP: what they send is let through. */
export const AUTH_SET = 'hs_auth';
/** Addresses of authorised clients that sent something: what they receive is let through. Filled by the data path. */
export const AUTH_IP_SET = 'hs_auth_ip';
/** Bytes sent and received per authorised address (element counters). Filled by the data path. */
export const ACCT_UP_SET = 'hs_acct_up';
export const ACCT_DOWN_SET = 'hs_acct_down';
/** How long the data path keeps an address in those sets after its last packet. */
export const ACCT_IDLE_TIMEOUT = '1h';
/** Per-client speed limits: IP to a named `limit` object, one per direction. */
export const UP_LIMIT_MAP = 'hs_up_limit';
export const DOWN_LIMIT_MAP = 'hs_down_limit';
/** MACs refused at once from the online-user page, until the black list is saved. */
export const BLOCK_MAC_SET = 'hs_block_mac';

export interface ClientKey {
  mac: string;
  ip: string;
}

export interface ClientEntry extends ClientKey {
  /** Seconds the kernel keeps the element; null: until removed. */
  timeoutSeconds: number | null;
  /** Kbit/s; 0 = unlimited. */
  upKbps: number;
  downKbps: number;
}

export interface ClientCounters extends ClientKey {
  bytesUp: number;
  bytesDown: number;
}

export interface HotspotDataplane {
  /** Adds and removes clients in one transaction. Removing an absent client is not an error. */
  apply(add: readonly ClientEntry[], remove: readonly ClientKey[]): Promise<void>;
  /** Byte counters of every client the data plane holds. */
  counters(): Promise<ClientCounters[]>;
  /** MACs refused outright (online-user black-list action). */
  block(macs: readonly string[], unblock?: readonly string[]): Promise<void>;
  /**
   * Empties the data path's per-address sets of every address but `keep` (at start: an address
   * whose client went while the daemon was down must not hand its byte count to the next one).
   */
  forgetAddresses?(keep: ReadonlySet<string>): Promise<void>;
}

function limitName(ip: string, direction: 'up' | 'down'): string {
  return `hsl_${ipv4(ip).replace(/\./g, '_')}_${direction}`;
}

/** nft's byte rate for a Kbit/s figure; a burst of a quarter second keeps TCP close to the rate. */
function rate(kbps: number): string {
  const bytes = Math.max(1, Math.round((kbps * 1000) / 8));
  const burst = Math.max(16_000, Math.round(bytes / 4));
  return `rate over ${integer(bytes, 1, 2 ** 40, 'rate')} bytes/second burst ${integer(burst, 1, 2 ** 40, 'burst')} bytes`;
}

/**
 * `add` then `delete` of the same element in one transaction: the element is gone afterwards
 * whether or not it was there (the kernel or the data path may have let it expire), where a
 * bare `delete` of an absent element would refuse the whole transaction.
 */
function removeElements(set: string, elements: readonly string[]): string[] {
  if (elements.length === 0) return [];
  const list = elements.join(', ');
  return [`add element ${HOTSPOT_TABLE} ${set} { ${list} }`, `delete element ${HOTSPOT_TABLE} ${set} { ${list} }`];
}

/** The `nft -f -` lines of one batch. Pure; every value passes its syntax check first. */
export function renderClientBatch(add: readonly ClientEntry[], remove: readonly ClientKey[]): string {
  // One statement per set, whatever the number of clients: nft parses and commits a
  // 10,000-client burst in one go.
  const authOut: string[] = [];
  const ipOut: string[] = [];
  for (const client of remove) {
    if ((client as LimitedKey).onlyLimits) continue;
    const ip = ipv4(client.ip);
    authOut.push(`${mac(client.mac)} . ${ip}`);
    ipOut.push(ip);
  }
  const limitLines = remove.filter(hasLimitRemoved).flatMap((client) => limitRemoval(client as LimitedKey));
  const authIn: string[] = [];
  const limitObjects: string[] = [];
  const limitElements: Record<string, string[]> = { [UP_LIMIT_MAP]: [], [DOWN_LIMIT_MAP]: [] };
  for (const client of add) {
    const ip = ipv4(client.ip);
    const timeout = client.timeoutSeconds === null ? '' : ` timeout ${integer(Math.max(1, Math.ceil(client.timeoutSeconds)), 1, 2 ** 31, 'timeout')}s`;
    authIn.push(`${mac(client.mac)} . ${ip}${timeout}`);
    for (const [direction, kbps, map] of [['up', client.upKbps, UP_LIMIT_MAP], ['down', client.downKbps, DOWN_LIMIT_MAP]] as const) {
      if (kbps <= 0) continue;
      const name = limitName(ip, direction);
      limitObjects.push(`add limit ${HOTSPOT_TABLE} ${name} { ${rate(kbps)} }`);
      limitElements[map]!.push(`${ip} : "${name}"`);
    }
  }
  const lines: string[] = [
    ...removeElements(AUTH_SET, authOut),
    // A removed client's addresses leave the data path's sets too, so the next holder of the
    // address starts from zero bytes.
    ...removeElements(AUTH_IP_SET, ipOut),
    ...removeElements(ACCT_UP_SET, ipOut),
    ...removeElements(ACCT_DOWN_SET, ipOut),
    ...limitLines,
  ];
  if (authIn.length) lines.push(`add element ${HOTSPOT_TABLE} ${AUTH_SET} { ${authIn.join(', ')} }`);
  lines.push(...limitObjects);
  for (const [map, elements] of Object.entries(limitElements)) {
    if (elements.length) lines.push(`add element ${HOTSPOT_TABLE} ${map} { ${elements.join(', ')} }`);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** A removed client whose speed limits exist, by direction. */
export interface LimitedKey extends ClientKey {
  limits?: { up: boolean; down: boolean };
  /** Only the speed limits go; the client stays authorised (a new limit follows). */
  onlyLimits?: boolean;
}

function hasLimitRemoved(key: ClientKey): boolean {
  const limits = (key as LimitedKey).limits;
  return Boolean(limits?.up || limits?.down);
}

function limitRemoval(client: LimitedKey): string[] {
  const ip = ipv4(client.ip);
  const out: string[] = [];
  if (client.limits?.up) out.push(`delete element ${HOTSPOT_TABLE} ${UP_LIMIT_MAP} { ${ip} }`, `delete limit ${HOTSPOT_TABLE} ${limitName(ip, 'up')}`);
  if (client.limits?.down) out.push(`delete element ${HOTSPOT_TABLE} ${DOWN_LIMIT_MAP} { ${ip} }`, `delete limit ${HOTSPOT_TABLE} ${limitName(ip, 'down')}`);
  return out;
}

interface NftElem {
  elem?: { val?: unknown; counter?: { bytes?: number } };
}

function elementsOf(json: string, kind: 'set' | 'map'): Array<{ val: unknown; bytes: number }> {
  const parsed = JSON.parse(json || '{}') as { nftables?: Array<Record<string, { elem?: Array<NftElem | unknown> }>> };
  const holder = parsed.nftables?.find((item) => kind in item)?.[kind];
  return (holder?.elem ?? []).map((item) => {
    const wrapped = item as NftElem;
    if (wrapped && typeof wrapped === 'object' && 'elem' in wrapped) return { val: wrapped.elem?.val, bytes: wrapped.elem?.counter?.bytes ?? 0 };
    return { val: item, bytes: 0 };
  });
}

/** Batches of at least this many logins (and no removals) go in as two transactions at once. */
const SPLIT_BATCH = 2000;

/** The linux driver's data plane: nftables through a runner (execa, argument arrays, stdin). */
export class NftDataplane implements HotspotDataplane {
  constructor(private readonly run: CommandRunner) {}

  private async load(script: string): Promise<{ ok: boolean; stderr: string }> {
    if (!script) return { ok: true, stderr: '' };
    const result = await this.run(['nft', '-f', '-'], { input: script, timeoutMs: 60_000 });
    return { ok: result.exitCode === 0, stderr: result.stderr };
  }

  private async list(kind: 'set' | 'map', name: string) {
    const result = await this.run(['nft', '-j', 'list', kind, ...HOTSPOT_TABLE.split(' '), name], { timeoutMs: 60_000 });
    // No hotspot zone: the ruleset has no hotspot sets, so no client is authorised or counted.
    if (result.exitCode !== 0 && /No such file or directory/.test(result.stderr)) return [];
    if (result.exitCode !== 0) throw new Error(`nft list ${kind} ${name}: ${result.stderr}`);
    return elementsOf(result.stdout, kind);
  }

  async apply(add: readonly ClientEntry[], remove: readonly ClientKey[]): Promise<void> {
    if (remove.length === 0 && add.length >= SPLIT_BATCH) {
      // A large burst of logins: nft spends about half of a transaction parsing, so two
      // transactions of half the clients each, run side by side, use a second core.
      const half = Math.ceil(add.length / 2);
      const results = await Promise.all([this.load(renderClientBatch(add.slice(0, half), [])), this.load(renderClientBatch(add.slice(half), []))]);
      const failed = results.find((r) => !r.ok);
      if (failed) throw new Error(`nft: ${failed.stderr}`);
      return;
    }
    const first = await this.load(renderClientBatch(add, remove));
    if (first.ok) return;
    if (!remove.some(hasLimitRemoved)) throw new Error(`nft: ${first.stderr}`);
    // Elements go whether or not they are there, but a limit object does not: a removal that
    // names a limit the kernel no longer holds is retried with the limits still present.
    const limitedIps = async (map: string) => new Set((await this.list('map', map)).map((e) => String((e.val as unknown[])[0])));
    const up = await limitedIps(UP_LIMIT_MAP);
    const down = await limitedIps(DOWN_LIMIT_MAP);
    const present = remove.map((key) => {
      const ip = ipv4(key.ip);
      const limits = (key as LimitedKey).limits;
      return { ...key, limits: { up: Boolean(limits?.up) && up.has(ip), down: Boolean(limits?.down) && down.has(ip) } };
    });
    const second = await this.load(renderClientBatch(add, present));
    if (!second.ok) throw new Error(`nft: ${second.stderr}`);
  }

  /** Bytes of every authorised client: MAC . IP from `hs_auth`, bytes from the data path's sets. */
  async counters(): Promise<ClientCounters[]> {
    const clients = await this.list('set', AUTH_SET);
    const bytesOf = async (set: string) => new Map((await this.list('set', set)).map((e) => [String(e.val), e.bytes]));
    const up = await bytesOf(ACCT_UP_SET);
    const down = await bytesOf(ACCT_DOWN_SET);
    return clients.flatMap((e) => {
      const concat = (e.val as { concat?: [string, string] } | undefined)?.concat;
      if (!concat) return [];
      const [m, ip] = concat;
      return [{ mac: m, ip, bytesUp: up.get(ip) ?? 0, bytesDown: down.get(ip) ?? 0 }];
    });
  }

  async forgetAddresses(keep: ReadonlySet<string>): Promise<void> {
    const lines: string[] = [];
    for (const set of [AUTH_IP_SET, ACCT_UP_SET, ACCT_DOWN_SET]) {
      const gone = (await this.list('set', set)).map((e) => String(e.val)).filter((ip) => !keep.has(ip));
      lines.push(...removeElements(set, gone.map((ip) => ipv4(ip))));
    }
    const result = await this.load(lines.length ? `${lines.join('\n')}\n` : '');
    if (!result.ok) throw new Error(`nft: ${result.stderr}`);
  }

  async block(macs: readonly string[], unblock: readonly string[] = []): Promise<void> {
    const lines = [
      ...unblock.map((m) => `delete element ${HOTSPOT_TABLE} ${BLOCK_MAC_SET} { ${mac(m)} }`),
      ...macs.map((m) => `add element ${HOTSPOT_TABLE} ${BLOCK_MAC_SET} { ${mac(m)} }`),
    ];
    const result = await this.load(lines.length ? `${lines.join('\n')}\n` : '');
    if (!result.ok) throw new Error(`nft: ${result.stderr}`);
  }
}

/** The `sim` driver's data plane: the same sets in memory; traffic is what a test feeds it. */
export class SimDataplane implements HotspotDataplane {
  readonly clients = new Map<string, ClientEntry & { bytesUp: number; bytesDown: number }>();
  readonly blocked = new Set<string>();
  /** Transactions applied, for tests that check batching. */
  transactions = 0;

  async apply(add: readonly ClientEntry[], remove: readonly ClientKey[]): Promise<void> {
    renderClientBatch(add, remove);
    this.transactions += 1;
    for (const key of remove) if (!(key as LimitedKey).onlyLimits) this.clients.delete(key.ip);
    for (const entry of add) {
      const known = this.clients.get(entry.ip);
      this.clients.set(entry.ip, { ...entry, bytesUp: known?.mac === entry.mac ? known.bytesUp : 0, bytesDown: known?.mac === entry.mac ? known.bytesDown : 0 });
    }
  }

  async counters(): Promise<ClientCounters[]> {
    return [...this.clients.values()].map(({ mac: m, ip, bytesUp, bytesDown }) => ({ mac: m, ip, bytesUp, bytesDown }));
  }

  async block(macs: readonly string[], unblock: readonly string[] = []): Promise<void> {
    for (const m of unblock) this.blocked.delete(m);
    for (const m of macs) this.blocked.add(mac(m));
  }

  /** Traffic of a client, as the kernel's counters would show it. */
  addTraffic(ip: string, up: number, down: number): void {
    const client = this.clients.get(ip);
    if (!client) return;
    client.bytesUp += up;
    client.bytesDown += down;
  }
}
