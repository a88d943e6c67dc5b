import { CHART_RANGE_KEYS, CHART_RANGE_STEPS, CHART_RANGES, type ChartRange, type RatePoint } from '@portico/schema';

/*
 * Per-interface traffic rates for the monitoring charts (spec §9 ranges): one ring per range and
 * interface, each point the average of the samples that fell in its interval. Memory is bounded
 * by the point count of each range and by the number of interfaces kept.
 */

interface Bucket {
  t: number;
  rx: number;
  tx: number;
  n: number;
}

/** Interfaces beyond this many (links that come and go) are forgotten, least recently seen first. */
const INTERFACES_MAX = 64;

export class TrafficHistory {
  private readonly rings = new Map<string, Map<ChartRange, Bucket[]>>();
  private readonly lastSeen = new Map<string, number>();

  record(ifname: string, t: number, rx: number, tx: number): void {
    let byRange = this.rings.get(ifname);
    if (!byRange) {
      byRange = new Map(CHART_RANGE_KEYS.map((range) => [range, [] as Bucket[]]));
      this.rings.set(ifname, byRange);
    }
    this.lastSeen.set(ifname, t);
    for (const range of CHART_RANGE_KEYS) {
      const ring = byRange.get(range)!;
      const stepMs = CHART_RANGE_STEPS[range] * 1000;
      const bucket = Math.floor(t / stepMs) * stepMs;
      const last = ring[ring.length - 1];
      if (last && last.t === bucket) {
        last.rx = (last.rx * last.n + rx) / (last.n + 1);
        last.tx = (last.tx * last.n + tx) / (last.n + 1);
        last.n += 1;
        continue;
      }
      // A clock set back: what the ring holds is in the future, start again.
      if (last && bucket < last.t) ring.length = 0;
      ring.push({ t: bucket, rx, tx, n: 1 });
      while (ring.length > 0 && ring[0]!.t <= bucket - CHART_RANGES[range] * 1000) ring.shift();
    }
    while (this.rings.size > INTERFACES_MAX) {
      const oldest = [...this.lastSeen].reduce((a, b) => (b[1] < a[1] ? b : a))[0];
      this.rings.delete(oldest);
      this.lastSeen.delete(oldest);
    }
  }

  /** Points of a range within its span back from `nowMs`, oldest first. */
  series(ifname: string, range: ChartRange, nowMs: number): RatePoint[] {
    const stepMs = CHART_RANGE_STEPS[range] * 1000;
    const oldest = Math.floor(nowMs / stepMs) * stepMs - CHART_RANGES[range] * 1000;
    return (this.rings.get(ifname)?.get(range) ?? [])
      .filter((p) => p.t > oldest && p.t <= nowMs)
      .map((p) => ({ t: p.t, rx_rate: Math.max(0, Math.round(p.rx)), tx_rate: Math.max(0, Math.round(p.tx)) }));
  }
}
