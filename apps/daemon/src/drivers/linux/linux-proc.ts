/*
 * Parsers of the kernel's text interfaces under /proc. Pure: text in, figures out, so each can
 * be checked against a captured file. Malformed lines are skipped, never thrown on: the kernel
 * format is stable, but a reader must not bring the daemon down over one odd line.
 */

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
