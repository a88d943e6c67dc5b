import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CHART_RANGE_KEYS,
  CHART_RANGE_STEPS,
  CHART_RANGES,
  type ChartRange,
  type Dashboard,
  type InterfaceProto,
  type InterfaceRole,
  type LoadPoint,
  type LoadSeries,
  type NetifList,
  type OnlineUserList,
  type Registration,
  type SystemInfo,
} from '@portico/schema';
import daemonPackage from '../../package.json' with { type: 'json' };

/**
 * Live status of the device: what the dashboard, the monitoring pages and the load charts
 * show. Each driver provides one (sim: a simulated device; linux: /proc and /sys).
 * Reads are synchronous and cheap; the source keeps its own sampling timer until stop().
 */
export interface LiveStatusSource {
  dashboard(): Dashboard;
  loadSeries(range: ChartRange): LoadSeries;
  netif(): NetifList;
  onlineUsers(): OnlineUserList;
  registration(): Registration;
  system(): SystemInfo;
  /** The network state behind the status pages, when the source simulates a whole device. */
  network?: NetworkFacts;
  /**
   * A simulated device brings up the interfaces of the configuration: from this call on, its
   * links are the ones `read` gives (an interface added, removed or renamed there appears or
   * goes in its live status). Real devices read their links from the system instead.
   */
  followConfiguration?(read: () => readonly ConfiguredLink[]): void;
  /** Stops the sampling timer and saves what must survive a restart. Idempotent. */
  stop(): void;
}

/** One interface as the configuration has it. */
export interface ConfiguredLink {
  ifname: string;
  role: InterfaceRole;
  proto: InterfaceProto;
  enabled: boolean;
  hwport: readonly string[];
  /** Static addresses; empty for DHCP and PPPoE. */
  ipaddr: string;
  netmask: string;
  gateway: string;
  mtu: number;
}

/** Version the device reports on its dashboard and system page. */
export const DAEMON_VERSION: string = daemonPackage.version;

/** Finest sampling period of load data; the 5-minute chart shows every sample. */
export const LOAD_SAMPLE_MS = CHART_RANGE_STEPS['5m'] * 1000;

/** Device serial numbers: `PT` and 14 upper-case hex digits. */
export function formatSerial(hexDigits: string): string {
  return `PT${hexDigits.replace(/[^0-9a-f]/gi, '').slice(0, 14).toUpperCase().padEnd(14, '0')}`;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** ISO 8601 in the device's own time zone with its offset (the dashboard shows device time). */
export function localIsoTime(ms: number): string {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return (
    `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}` +
    `T${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}` +
    `${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`
  );
}

export function deviceTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Replaces a file so that a crash leaves either the old or the new content, never a mix. */
export function writeFileAtomic(path: string, content: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const temp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  // The rename itself is durable only once the folder entry is on disk.
  try {
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some file systems refuse fsync on a directory; the data itself is already synced.
  }
}

export const round1 = (v: number) => Math.round(v * 10) / 10;
export const round2 = (v: number) => Math.round(v * 100) / 100;
export const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** Load figures without their time: what a sample or a model gives for one instant. */
export type LoadValues = Omit<LoadPoint, 't'>;

/** A stored chart point: `n` is how many fine samples its averages stand for. */
export interface LoadBucket extends LoadPoint {
  n: number;
}

const LOAD_FIELDS = ['cpu', 'memory', 'load1', 'rx_rate', 'tx_rate', 'conn_count'] as const;

/**
 * Load history for every chart range: one ring per range, each point the average of the fine
 * samples that fell in its interval. Memory is bounded by the point count of each range.
 */
export class LoadHistory {
  private readonly rings = new Map<ChartRange, LoadBucket[]>();

  constructor(private readonly sampleMs: number = LOAD_SAMPLE_MS) {
    for (const range of CHART_RANGE_KEYS) this.rings.set(range, []);
  }

  /** Adds one sample (or `weight` samples of the same values) to every range. */
  record(t: number, values: LoadValues, weight = 1): void {
    for (const range of CHART_RANGE_KEYS) this.mergeInto(range, t, values, weight);
  }

  /**
   * Fills the samples a source did not take between `fromMs` and `toMs` (both exclusive)
   * from a model of the device: used to give a new device a past, and to bridge a long pause.
   * Works per chart point, never per fine sample, so a month costs as little as a minute.
   */
  fill(model: (t: number) => LoadValues, fromMs: number, toMs: number): void {
    for (const range of CHART_RANGE_KEYS) {
      const stepMs = CHART_RANGE_STEPS[range] * 1000;
      const from = Math.max(fromMs, toMs - CHART_RANGES[range] * 1000);
      for (let bucket = Math.floor((from + 1) / stepMs) * stepMs; bucket < toMs; bucket += stepMs) {
        const lo = Math.max(bucket, from + 1);
        const hi = Math.min(bucket + stepMs, toMs);
        // Fine samples fall on multiples of sampleMs.
        const samples = Math.ceil(hi / this.sampleMs) - Math.ceil(lo / this.sampleMs);
        if (samples <= 0) continue;
        const mid = Math.floor((lo + hi) / 2);
        this.mergeInto(range, mid, model(mid), samples);
      }
    }
  }

  /** The points of a range that lie within its span back from `nowMs`, oldest first. */
  series(range: ChartRange, nowMs: number): LoadSeries {
    const step = CHART_RANGE_STEPS[range];
    const stepMs = step * 1000;
    const oldest = Math.floor(nowMs / stepMs) * stepMs - CHART_RANGES[range] * 1000;
    const points = (this.rings.get(range) ?? [])
      .filter((p) => p.t > oldest && p.t <= nowMs)
      .map((p) => ({
        t: p.t,
        cpu: clamp(round1(p.cpu), 0, 100),
        memory: clamp(round1(p.memory), 0, 100),
        load1: Math.max(0, round2(p.load1)),
        rx_rate: Math.max(0, Math.round(p.rx_rate)),
        tx_rate: Math.max(0, Math.round(p.tx_rate)),
        conn_count: Math.max(0, Math.round(p.conn_count)),
      }));
    return { range, step, points };
  }

  /** Time of the newest fine sample recorded, or null when empty. */
  latest(): number | null {
    const ring = this.rings.get('5m');
    const last = ring?.[ring.length - 1];
    return last ? last.t : null;
  }

  snapshot(): Record<ChartRange, LoadBucket[]> {
    const out = {} as Record<ChartRange, LoadBucket[]>;
    for (const range of CHART_RANGE_KEYS) out[range] = (this.rings.get(range) ?? []).map((p) => ({ ...p }));
    return out;
  }

  /** Puts back a snapshot; points are trusted to be validated by the caller. */
  restore(snapshot: Partial<Record<ChartRange, LoadBucket[]>>, nowMs: number): void {
    for (const range of CHART_RANGE_KEYS) {
      const stepMs = CHART_RANGE_STEPS[range] * 1000;
      const oldest = Math.floor(nowMs / stepMs) * stepMs - CHART_RANGES[range] * 1000;
      const points = (snapshot[range] ?? [])
        .filter((p) => p.t % stepMs === 0 && p.t > oldest && p.t <= nowMs && p.n > 0)
        .sort((a, b) => a.t - b.t)
        .filter((p, i, all) => i === 0 || all[i - 1]!.t !== p.t);
      this.rings.set(range, points.map((p) => ({ ...p })));
    }
  }

  private mergeInto(range: ChartRange, t: number, values: LoadValues, weight: number): void {
    const ring = this.rings.get(range)!;
    const stepMs = CHART_RANGE_STEPS[range] * 1000;
    const spanMs = CHART_RANGES[range] * 1000;
    const bucket = Math.floor(t / stepMs) * stepMs;
    const last = ring[ring.length - 1];
    if (last && last.t === bucket) {
      const total = last.n + weight;
      for (const field of LOAD_FIELDS) last[field] = (last[field] * last.n + values[field] * weight) / total;
      last.n = total;
      return;
    }
    if (last && bucket < last.t) {
      // A clock set back by less than the span: drop the sample rather than rewrite history.
      if (bucket > last.t - spanMs) return;
      // Set back further: what the ring holds is in the future now.
      ring.length = 0;
    }
    ring.push({ t: bucket, ...values, n: weight });
    while (ring.length > 0 && ring[0]!.t <= bucket - spanMs) ring.shift();
  }
}

/** One record of the DHCP server's lease file. */
export interface LeaseRecord {
  /** End of the lease, ms since the epoch; 0 for an infinite lease. */
  expires: number;
  mac: string;
  ip: string;
  /** Empty when the client announced none. */
  hostname: string;
  clientId: string;
}

/** One entry of the kernel neighbour table (IPv4 ARP and IPv6 neighbour discovery). */
export interface NeighbourRecord {
  ip: string;
  family: '4' | '6';
  device: string;
  /** Lower-case; empty while unresolved. */
  mac: string;
  /** Lower-case NUD state; `none` when the kernel reports none. */
  state: string;
  router: boolean;
}

/** One route of any routing table, as the kernel lists it. */
export interface RouteRecord {
  family: '4' | '6';
  /** `main` for the main table, else its name or number. */
  table: string;
  type: string;
  /** Prefix, or `default`. */
  destination: string;
  gateway: string;
  device: string;
  protocol: string;
  scope: string;
  metric: number;
  source: string;
  nexthops: { gateway: string; device: string; weight: number }[];
}

/** Reachability of one address through one device. */
export interface ProbeRecord {
  target: string;
  sent: number;
  received: number;
  /** Average round trip in ms; null when nothing answered. */
  latency: number | null;
}

/** A WAN line to watch: a simulated device has its own; real devices take theirs from the configuration. */
export interface WanLine {
  name: string;
  device: string;
  table: number;
  gateway: string;
  trackIps: string[];
}

/**
 * The network state behind the status pages (leases, neighbours, routes, line probes). Real
 * drivers read it from the system; the simulator answers from the same simulated clients and
 * links its live status shows, so the pages agree with one another.
 */
export interface NetworkFacts {
  leases(): Promise<LeaseRecord[]>;
  neighbours(): Promise<NeighbourRecord[]>;
  routes(): Promise<RouteRecord[]>;
  /** Sends a few probes to `target` out of `device`. */
  probe(device: string, target: string): Promise<ProbeRecord>;
  /** Present on a simulated device: its own WAN lines. */
  lines?(): WanLine[];
}
