import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHART_RANGE_KEYS, CHART_RANGE_STEPS, CHART_RANGES, FLOW_SERIES, QOS_CLASSES, type ChartRange, type FlowChart, type FlowPoint, type FlowSeries, type QosClass } from '@portico/schema';
import type { CommandRunner } from '../../engine/command-runner.js';
import { activity, valueNoise } from '../../drivers/sim/sim-rhythm.js';
import { QOS_FILES } from './qos-config.js';
import { CLASS_MINOR } from './qos-plan.js';
import { qosScriptDirectives } from './qos-tc.js';

/**
 * Smart QoS flow charts (spec §9 ranges 5 min … 1 month): bytes per second by priority class
 * (and the traffic of rate-limited users) in each direction, and by WAN. A sampler reads
 * cumulative byte counters every 5 s; the history turns them into rates and keeps, per
 * range, one averaged point per step of that range.
 *
 * On the linux driver the counters are the HTB classes' own (`tc -s class show`) on the
 * devices the installed QoS script shapes, and each WAN's interface counters; on sim they are
 * simulated with the same daily rhythm as the rest of the simulated device.
 */

export { FLOW_SERIES, type FlowChart, type FlowPoint, type FlowSeries };

/** Cumulative byte counters at one moment. */
export interface QosCounters {
  up: Record<FlowSeries, number>;
  down: Record<FlowSeries, number>;
  /** By WAN device: received and sent bytes. */
  wans: Record<string, { rx: number; tx: number }>;
}


const SAMPLE_MS = CHART_RANGE_STEPS['5m'] * 1000;
const zero = (): Record<FlowSeries, number> => Object.fromEntries(FLOW_SERIES.map((s) => [s, 0])) as Record<FlowSeries, number>;

interface Bucket {
  point: FlowPoint;
  n: number;
}

function blend(into: number, value: number, n: number): number {
  return (into * n + value) / (n + 1);
}

/** Rates from successive counters; a counter that went down (a reset tree, a reboot) restarts. */
export class QosFlowHistory {
  private last: { t: number; counters: QosCounters } | undefined;
  private readonly rings = new Map<ChartRange, Bucket[]>(CHART_RANGE_KEYS.map((r) => [r, []]));

  record(t: number, counters: QosCounters): void {
    const previous = this.last;
    this.last = { t, counters };
    if (!previous || t <= previous.t) return;
    const seconds = (t - previous.t) / 1000;
    const rate = (now: number, before: number) => (now >= before ? (now - before) / seconds : 0);
    const point: FlowPoint = { t, up: zero(), down: zero(), wans: {} };
    for (const series of FLOW_SERIES) {
      point.up[series] = rate(counters.up[series], previous.counters.up[series]);
      point.down[series] = rate(counters.down[series], previous.counters.down[series]);
    }
    for (const [wan, now] of Object.entries(counters.wans)) {
      const before = previous.counters.wans[wan];
      if (before) point.wans[wan] = { rx: rate(now.rx, before.rx), tx: rate(now.tx, before.tx) };
    }
    for (const range of CHART_RANGE_KEYS) {
      const ring = this.rings.get(range)!;
      const stepMs = CHART_RANGE_STEPS[range] * 1000;
      const bucketT = Math.floor(t / stepMs) * stepMs;
      const last = ring[ring.length - 1];
      if (last && last.point.t === bucketT) {
        for (const series of FLOW_SERIES) {
          last.point.up[series] = blend(last.point.up[series], point.up[series], last.n);
          last.point.down[series] = blend(last.point.down[series], point.down[series], last.n);
        }
        for (const [wan, value] of Object.entries(point.wans)) {
          const into = (last.point.wans[wan] ??= { rx: 0, tx: 0 });
          into.rx = blend(into.rx, value.rx, last.n);
          into.tx = blend(into.tx, value.tx, last.n);
        }
        last.n += 1;
        continue;
      }
      if (last && bucketT < last.point.t) ring.length = 0;
      ring.push({ point: { ...point, t: bucketT, up: { ...point.up }, down: { ...point.down }, wans: structuredClone(point.wans) }, n: 1 });
      while (ring.length && ring[0]!.point.t <= bucketT - CHART_RANGES[range] * 1000) ring.shift();
    }
  }

  chart(range: ChartRange, nowMs: number): FlowChart {
    const stepMs = CHART_RANGE_STEPS[range] * 1000;
    const oldest = Math.floor(nowMs / stepMs) * stepMs - CHART_RANGES[range] * 1000;
    const round = (values: Record<FlowSeries, number>) =>
      Object.fromEntries(FLOW_SERIES.map((s) => [s, Math.round(values[s])])) as Record<FlowSeries, number>;
    const points = this.rings
      .get(range)!
      .filter((b) => b.point.t > oldest && b.point.t <= nowMs)
      .map(({ point }) => ({
        t: point.t,
        up: round(point.up),
        down: round(point.down),
        wans: Object.fromEntries(Object.entries(point.wans).map(([w, v]) => [w, { rx: Math.round(v.rx), tx: Math.round(v.tx) }])),
      }));
    return { range, step: CHART_RANGE_STEPS[range], points };
  }
}

const SERIES_OF_MINOR = new Map<number, FlowSeries>(QOS_CLASSES.map((c: QosClass) => [CLASS_MINOR[c], c]));

/** Bytes by series from `tc -s class show dev X`: priority classes by id, user classes as `limited`. */
export function classBytes(text: string): Record<FlowSeries, number> {
  const out = zero();
  for (const block of text.split(/^(?=class )/m)) {
    const id = /^class htb 1:([0-9a-f]+) /.exec(block);
    const sent = /Sent (\d+) bytes/.exec(block);
    if (!id || !sent) continue;
    const minor = Number.parseInt(id[1]!, 16);
    const series = SERIES_OF_MINOR.get(minor) ?? (minor >= 0x100 ? 'limited' : undefined);
    if (series) out[series] += Number(sent[1]);
  }
  return out;
}

/** Devices the installed QoS script shapes: its upload and download trees. */
export function shapedDevices(script: string): { up: string[]; down: string[] } {
  const directives = qosScriptDirectives(script);
  return { up: directives.upload, down: directives.download };
}

/** The linux driver's counters: HTB class statistics and the WANs' interface counters. */
export function linuxQosCounters(options: { root: string; run: CommandRunner; sysfs?: string }): () => Promise<QosCounters> {
  const sysfs = options.sysfs ?? '/sys/class/net';
  return async () => {
    const script = await readFile(join(options.root, QOS_FILES.tc), 'utf8').catch(() => '');
    const devices = shapedDevices(script);
    const counters: QosCounters = { up: zero(), down: zero(), wans: {} };
    for (const [direction, list] of [['up', devices.up], ['down', devices.down]] as const) {
      for (const dev of list) {
        const result = await options.run(['tc', '-s', 'class', 'show', 'dev', dev]);
        if (result.exitCode !== 0) continue;
        const bytes = classBytes(result.stdout);
        for (const series of FLOW_SERIES) counters[direction][series] += bytes[series];
      }
    }
    for (const dev of devices.up) {
      const read = (name: string) => readFile(join(sysfs, dev, 'statistics', name), 'utf8').then(Number, () => NaN);
      const [rx, tx] = await Promise.all([read('rx_bytes'), read('tx_bytes')]);
      if (Number.isFinite(rx) && Number.isFinite(tx)) counters.wans[dev] = { rx, tx };
    }
    return counters;
  };
}

/** Simulated counters: each series grows at a rate that follows the day's activity. */
export function simQosCounters(wans: readonly string[] = ['wan1']): (t: number) => QosCounters {
  const shares: Record<FlowSeries, number> = { priority: 0.08, express: 0.45, normal: 0.25, bulk: 0.12, limited: 0.1 };
  const totals = { up: zero(), down: zero() };
  const wanTotals = Object.fromEntries(wans.map((w) => [w, { rx: 0, tx: 0 }]));
  let lastT: number | undefined;
  return (t) => {
    const seconds = lastT === undefined ? 0 : Math.max(0, (t - lastT) / 1000);
    lastT = t;
    const busy = activity(t);
    let up = 0;
    let down = 0;
    FLOW_SERIES.forEach((series, key) => {
      const wobble = 1 + 0.3 * valueNoise(7, key, t, 60_000);
      const downRate = 2_500_000 * busy * shares[series] * wobble;
      totals.down[series] += downRate * seconds;
      totals.up[series] += (downRate / 6) * seconds;
      down += downRate * seconds;
      up += (downRate / 6) * seconds;
    });
    wans.forEach((wan, i) => {
      const share = wans.length === 1 ? 1 : i === 0 ? 0.6 : 0.4 / (wans.length - 1);
      wanTotals[wan]!.rx += down * share;
      wanTotals[wan]!.tx += up * share;
    });
    return { up: { ...totals.up }, down: { ...totals.down }, wans: structuredClone(wanTotals) };
  };
}

/** Samples every 5 s into the history; returns a stop function. */
export function startQosFlowSampler(read: (t: number) => QosCounters | Promise<QosCounters>, history: QosFlowHistory, now: () => number): () => void {
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const t = now();
      history.record(t, await read(t));
    } catch {
      // A missing device or a failed read leaves a gap in the chart, nothing more.
    } finally {
      busy = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), SAMPLE_MS);
  timer.unref();
  return () => clearInterval(timer);
}
