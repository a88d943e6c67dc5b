/*
 * Parsers of the kernel's text interfaces under /proc. Pure: text in, figures out, so each can
 * be checked against a captured file. Malformed lines are skipped, never thrown on: the kernel
 * format is stable, but a reader must not bring the daemon down over one odd line.
 */
import type { RouteRecord } from '../live-source.js';

export interface LoadAverage {
  load1: number;
  load5: number;
  load15: number;
}

/** /proc/loadavg: `0.52 0.58 0.59 1/467 12345`. */
export function parseLoadavg(text: string): LoadAverage | null {
  const [a, b, c] = text.trim().split(/\s+/).map(Number);
  if (a === undefined || b === undefined || c === undefined || [a, b, c].some((v) => !Number.isFinite(v))) return null;
  return { load1: a, load5: b, load15: c };
}

export interface CpuTimes {
  /** Jiffies spent working (everything but idle and iowait). */
  busy: number;
  total: number;
}

/**
 * The aggregate `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal
 * guest guest_nice. Guest time is already inside user and nice, so it is not added again.
 */
export function parseCpuTimes(text: string): CpuTimes | null {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return null;
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 4 || fields.some((v) => !Number.isFinite(v))) return null;
  const total = fields.reduce((sum, v) => sum + v, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** CPU use in percent between two /proc/stat readings; null when no time passed. */
export function cpuPercentBetween(before: CpuTimes, after: CpuTimes): number | null {
  const total = after.total - before.total;
  if (total <= 0) return null;
  return Math.min(100, Math.max(0, ((after.busy - before.busy) / total) * 100));
}

export interface MemoryInfo {
  totalBytes: number;
  availableBytes: number;
}

/** /proc/meminfo (kB values). Kernels before 3.14 lack MemAvailable: free + buffers + cached stands in. */
export function parseMeminfo(text: string): MemoryInfo | null {
  const kb = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\w+(?:\(\w+\))?):\s+(\d+)/.exec(line);
    if (match) kb.set(match[1]!, Number(match[2]));
  }
  const total = kb.get('MemTotal');
  if (total === undefined || total <= 0) return null;
  const available =
    kb.get('MemAvailable') ?? (kb.get('MemFree') ?? 0) + (kb.get('Buffers') ?? 0) + (kb.get('Cached') ?? 0);
  return { totalBytes: total * 1024, availableBytes: Math.min(total, available) * 1024 };
}

/** /proc/uptime: seconds since boot, first field. */
export function parseUptime(text: string): number | null {
  const value = Number(text.trim().split(/\s+/)[0]);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

export interface DevCounters {
  rxBytes: number;
  txBytes: number;
}

/** /proc/net/dev: two header lines, then `name: rx_bytes packets ... (8 rx fields) tx_bytes ...`. */
export function parseNetDev(text: string): Map<string, DevCounters> {
  const out = new Map<string, DevCounters>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const fields = line.slice(colon + 1).trim().split(/\s+/).map(Number);
    const rx = fields[0];
    const tx = fields[8];
    if (!name || rx === undefined || tx === undefined || !Number.isFinite(rx) || !Number.isFinite(tx)) continue;
    out.set(name, { rxBytes: rx, txBytes: tx });
  }
  return out;
}

export interface ArpEntry {
  ip: string;
  mac: string;
  flags: number;
  device: string;
}

/** ATF_COM: the neighbour's address is known (the entry is not incomplete). */
export const ARP_COMPLETE = 0x2;

/** /proc/net/arp: `IP address  HW type  Flags  HW address  Mask  Device`. */
export function parseArp(text: string): ArpEntry[] {
  const out: ArpEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [ip, , flags, mac, , device] = line.trim().split(/\s+/);
    if (!ip || !flags || !mac || !device) continue;
    const flagValue = Number.parseInt(flags, 16);
    if (!Number.isFinite(flagValue)) continue;
    out.push({ ip, mac: mac.toLowerCase(), flags: flagValue, device });
  }
  return out;
}

/** An address as /proc/net/route prints it: 32-bit hex in host (little-endian) order. */
export function routeHexToIpv4(hex: string): string | null {
  if (!/^[0-9a-f]{8}$/i.test(hex)) return null;
  const value = Number.parseInt(hex, 16);
  return [0, 8, 16, 24].map((shift) => (value >>> shift) & 0xff).join('.');
}

export interface DefaultRoute {
  iface: string;
  /** Next hop; empty for a point-to-point link without one. */
  gateway: string;
  metric: number;
}

/** Default routes (destination and mask 0) of /proc/net/route, lowest metric first. */
export function parseDefaultRoutes(text: string): DefaultRoute[] {
  const out: DefaultRoute[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [iface, destination, gateway, flags, , , metric, mask] = line.trim().split(/\s+/);
    if (!iface || destination !== '00000000' || mask !== '00000000' || !gateway || !flags) continue;
    // RTF_UP: only routes in use.
    if ((Number.parseInt(flags, 16) & 0x1) === 0) continue;
    const via = routeHexToIpv4(gateway);
    out.push({ iface, gateway: via === null || via === '0.0.0.0' ? '' : via, metric: Number(metric) || 0 });
  }
  return out.sort((a, b) => a.metric - b.metric);
}

export interface ClientFlows {
  conns: number;
  /** Bytes sent by the client on its open connections (needs nf_conntrack_acct). */
  upBytes: number;
  downBytes: number;
}

/**
 * /proc/net/nf_conntrack, one connection a line; the first `src=` is the side that opened it,
 * the first `bytes=` counts its direction and the second the reply (present only when
 * connection accounting is on). Grouped by the opening address.
 */
export function parseConntrack(text: string): Map<string, ClientFlows> {
  const out = new Map<string, ClientFlows>();
  for (const line of text.split('\n')) {
    const src = /\bsrc=(\S+)/.exec(line);
    if (!src) continue;
    const bytes = [...line.matchAll(/\bbytes=(\d+)/g)].map((m) => Number(m[1]));
    const entry = out.get(src[1]!) ?? { conns: 0, upBytes: 0, downBytes: 0 };
    entry.conns += 1;
    entry.upBytes += bytes[0] ?? 0;
    entry.downBytes += bytes[1] ?? 0;
    out.set(src[1]!, entry);
  }
  return out;
}

export interface CpuInfo {
  model: string;
  cores: number;
}

/** /proc/cpuinfo: model name on x86, Hardware / cpu model / Model on ARM and MIPS boards. */
export function parseCpuinfo(text: string): CpuInfo {
  const values = new Map<string, string>();
  let cores = 0;
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    // Old ARM kernels also have a `Processor : ARMv7 ...` line; only numbered ones are cores.
    if (key === 'processor' && /^\d+$/.test(value)) cores += 1;
    if (value && !values.has(key)) values.set(key, value);
  }
  const model = ['model name', 'cpu model', 'processor', 'hardware', 'model']
    .map((key) => values.get(key))
    .find((value) => value !== undefined && !/^\d+$/.test(value));
  return { model: model ?? '', cores };
}

/** dnsmasq lease file: `expiry mac ip hostname client-id`; `*` means no host name. */
export function parseDnsmasqLeases(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [, mac, , hostname] = line.trim().split(/\s+/);
    if (!mac || !hostname || hostname === '*') continue;
    out.set(mac.toLowerCase(), hostname);
  }
  return out;
}

/*
 * Parsers of `ip -j` (iproute2 JSON) and of the lease file and ping summaries the network
 * status pages read. Records that do not have the expected shape are skipped.
 */

type JsonObject = Record<string, unknown>;

function jsonArray(text: string): JsonObject[] {
  try {
    const value: unknown = JSON.parse(text.trim() === '' ? '[]' : text);
    return Array.isArray(value) ? value.filter((v): v is JsonObject => typeof v === 'object' && v !== null) : [];
  } catch {
    return [];
  }
}

const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0);

export interface LeaseFileRecord {
  /** ms since the epoch; 0 for an infinite lease. */
  expires: number;
  mac: string;
  ip: string;
  hostname: string;
  clientId: string;
}

/**
 * dnsmasq's lease file, every record: `expiry mac ip hostname client-id`, expiry in seconds
 * since the epoch (0 = infinite), `*` for a missing host name or client id. IPv6 leases (after
 * the `duid` line) name an IAID instead of a MAC and are not part of the DHCPv4 lease list.
 */
export function parseLeaseFile(text: string): LeaseFileRecord[] {
  const out: LeaseFileRecord[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] === 'duid') break;
    const [expiry, mac, ip, hostname, clientId] = fields;
    if (!expiry || !/^\d+$/.test(expiry) || !mac || !ip) continue;
    if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(mac) || !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) continue;
    out.push({
      expires: Number(expiry) * 1000,
      mac: mac.toLowerCase(),
      ip,
      hostname: hostname && hostname !== '*' ? hostname : '',
      clientId: clientId && clientId !== '*' ? clientId : '',
    });
  }
  return out;
}

export interface IpNeighbour {
  ip: string;
  family: '4' | '6';
  device: string;
  mac: string;
  state: string;
  router: boolean;
}

/** `ip -j neigh show`: `{dst, dev, lladdr?, router?, state: ["REACHABLE"]}`; both families. */
export function parseIpNeigh(text: string): IpNeighbour[] {
  const out: IpNeighbour[] = [];
  for (const entry of jsonArray(text)) {
    const ip = str(entry.dst);
    const device = str(entry.dev);
    if (!ip || !device) continue;
    const states = Array.isArray(entry.state) ? entry.state.map(str).filter(Boolean) : [];
    out.push({
      ip,
      family: ip.includes(':') ? '6' : '4',
      device,
      mac: str(entry.lladdr).toLowerCase(),
      state: (states[0] ?? 'none').toLowerCase(),
      // iproute2 prints a flag that is set as a key with a null value.
      router: 'router' in entry,
    });
  }
  return out;
}

/** A route as `ip -j route show table all` lists it. */
export type IpRoute = RouteRecord;

/**
 * `ip -j -4|-6 route show table all`. The main table's routes carry no `table` key; a unicast
 * route no `type`; a multipath route lists its paths under `nexthops`.
 */
export function parseIpRoutes(text: string, family: '4' | '6'): IpRoute[] {
  const out: IpRoute[] = [];
  for (const entry of jsonArray(text)) {
    const destination = str(entry.dst);
    if (!destination) continue;
    const nexthops = Array.isArray(entry.nexthops)
      ? entry.nexthops
          .filter((hop): hop is JsonObject => typeof hop === 'object' && hop !== null)
          .map((hop) => ({ gateway: str(hop.gateway), device: str(hop.dev), weight: num(hop.weight) || 1 }))
      : [];
    out.push({
      family,
      table: str(entry.table) || 'main',
      type: str(entry.type) || 'unicast',
      destination,
      gateway: str(entry.gateway),
      device: str(entry.dev),
      protocol: str(entry.protocol) || 'boot',
      scope: str(entry.scope) || 'global',
      metric: num(entry.metric),
      source: str(entry.prefsrc),
      nexthops,
    });
  }
  return out;
}

export interface PingSummary {
  sent: number;
  received: number;
  latency: number | null;
}

/**
 * The summary of iputils or busybox ping: `3 packets transmitted, 2 [packets] received` and
 * `rtt|round-trip min/avg/max[/mdev] = a/b/c[/d] ms`. Null when there is no summary.
 */
export function parsePing(text: string): PingSummary | null {
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(text);
  if (!counts) return null;
  const rtt = /(?:rtt|round-trip) min\/avg\/max(?:\/mdev)? = [\d.]+\/([\d.]+)\//.exec(text);
  const received = Number(counts[2]);
  return {
    sent: Number(counts[1]),
    received,
    latency: received > 0 && rtt ? Math.round(Number(rtt[1]) * 100) / 100 : null,
  };
}
