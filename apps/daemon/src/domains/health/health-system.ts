import { readFileSync, statfsSync } from 'node:fs';
import type { HealthLink } from '@portico/schema';

/** Disk and memory of the machine the daemon runs on (spec §3 "Health report"). */

export interface DiskUse {
  partition: string;
  total: number;
  used: number;
  free: number;
  usage: number;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/** Use of the file systems holding each path; one line per distinct file system. */
export function diskUse(partitions: readonly string[]): DiskUse[] {
  const out: DiskUse[] = [];
  const seen = new Set<string>();
  for (const partition of partitions) {
    let stat;
    try {
      stat = statfsSync(partition);
    } catch {
      continue;
    }
    const total = stat.blocks * stat.bsize;
    const free = stat.bavail * stat.bsize;
    const used = Math.max(0, total - stat.bfree * stat.bsize);
    const key = `${stat.type} ${total} ${stat.files}`;
    if (seen.has(key) || total <= 0) continue;
    seen.add(key);
    out.push({ partition, total, used, free, usage: round1(Math.min(100, (used / Math.max(1, used + free)) * 100)) });
  }
  return out;
}

export interface MemoryUse {
  total: number;
  used: number;
  cache: number;
  free: number;
  usage: number;
}

/** /proc/meminfo, in bytes: `cache` is buffers and page cache, `used` what neither holds. */
export function parseMeminfo(text: string): MemoryUse | null {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d{1,15}) kB$`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : null;
  };
  const total = kb('MemTotal');
  const free = kb('MemFree');
  if (total === null || free === null || total <= 0) return null;
  const cache = (kb('Buffers') ?? 0) + (kb('Cached') ?? 0) + (kb('SReclaimable') ?? 0);
  const used = Math.max(0, total - free - cache);
  return { total, used, cache: Math.min(cache, total), free: Math.min(free, total), usage: round1(Math.min(100, (used / total) * 100)) };
}

export function memoryUse(meminfo = '/proc/meminfo'): MemoryUse | null {
  try {
    return parseMeminfo(readFileSync(meminfo, 'utf8'));
  } catch {
    return null;
  }
}

/** Counters of one link as the kernel keeps them since it came up. */
export interface LinkCounters {
  rxBytes: number;
  txBytes: number;
  rxPackets: number | null;
  txPackets: number | null;
  rxDropped: number | null;
  txDropped: number | null;
}

const COUNTERS = ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets', 'rx_dropped', 'tx_dropped'] as const;

/** A link's counters under /sys/class/net, or null when the device is not there. */
export function sysfsCounters(sysNet: string, device: string): LinkCounters | null {
  if (!/^[A-Za-z0-9_.@-]{1,15}$/.test(device)) return null;
  const values: number[] = [];
  for (const name of COUNTERS) {
    try {
      const text = readFileSync(`${sysNet}/${device}/statistics/${name}`, 'utf8').trim();
      if (!/^\d{1,20}$/.test(text)) return null;
      values.push(Number(text));
    } catch {
      return null;
    }
  }
  const [rxBytes, txBytes, rxPackets, txPackets, rxDropped, txDropped] = values as [number, number, number, number, number, number];
  return { rxBytes, txBytes, rxPackets, txPackets, rxDropped, txDropped };
}

/** Local calendar day of an instant: the packet-loss counters start again when it changes (spec §9). */
export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
}

/** Local midnight at or before an instant. */
export function localMidnight(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

interface LinkBaseline {
  day: string;
  since: number;
  base: LinkCounters;
  last: LinkCounters;
  lastAt: number;
}

const diff = (now: number | null, base: number | null) => (now === null || base === null ? null : now >= base ? now - base : now);

/**
 * Link statistics since 0:00 (spec §9: the counters reset daily): the first reading of a day
 * is that day's baseline, and each reading reports what came since it. A counter that went
 * backwards (the link was recreated) counts from zero again.
 */
export class LinkStatistics {
  private readonly baselines = new Map<string, LinkBaseline>();

  sample(at: number, links: ReadonlyArray<{ interface: string; device: string; counters: LinkCounters }>): HealthLink[] {
    const day = localDay(at);
    const out: HealthLink[] = [];
    const present = new Set<string>();
    for (const { interface: name, device, counters } of links) {
      const key = `${name} ${device}`;
      present.add(key);
      let entry = this.baselines.get(key);
      const wentBack = entry !== undefined && counters.rxBytes < entry.last.rxBytes;
      if (!entry || entry.day !== day || wentBack) {
        const base = entry && entry.day === day && wentBack ? zeroLike(counters) : counters;
        entry = { day, since: entry && entry.day === day ? entry.since : entry ? localMidnight(at) : at, base, last: counters, lastAt: at };
        this.baselines.set(key, entry);
      }
      const seconds = Math.max(1, (at - entry.lastAt) / 1000);
      const rate = (now: number, prev: number) => (at > entry!.lastAt && now >= prev ? Math.round((now - prev) / seconds) : 0);
      out.push({
        interface: name,
        device,
        rxRate: rate(counters.rxBytes, entry.last.rxBytes),
        txRate: rate(counters.txBytes, entry.last.txBytes),
        rxBytes: diff(counters.rxBytes, entry.base.rxBytes) ?? 0,
        txBytes: diff(counters.txBytes, entry.base.txBytes) ?? 0,
        rxPackets: diff(counters.rxPackets, entry.base.rxPackets),
        txPackets: diff(counters.txPackets, entry.base.txPackets),
        rxDropped: diff(counters.rxDropped, entry.base.rxDropped),
        txDropped: diff(counters.txDropped, entry.base.txDropped),
        since: entry.since,
      });
      entry.last = counters;
      entry.lastAt = at;
    }
    for (const key of [...this.baselines.keys()]) if (!present.has(key)) this.baselines.delete(key);
    return out;
  }
}

function zeroLike(c: LinkCounters): LinkCounters {
  const z = (v: number | null) => (v === null ? null : 0);
  return { rxBytes: 0, txBytes: 0, rxPackets: z(c.rxPackets), txPackets: z(c.txPackets), rxDropped: z(c.rxDropped), txDropped: z(c.txDropped) };
}
