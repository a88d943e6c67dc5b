import { CHART_RANGES, QOS_CLASSES, type ChartRange } from '@portico/schema';

/** The flow chart answer of GET /api/flow/chart (rates in bytes per second). */
export const FLOW_SERIES = [...QOS_CLASSES, 'limited'] as const;
export type FlowSeries = (typeof FLOW_SERIES)[number];

export interface FlowPoint {
  t: number;
  up: Record<FlowSeries, number>;
  down: Record<FlowSeries, number>;
  wans: Record<string, { rx: number; tx: number }>;
}

export interface FlowChart {
  range: ChartRange;
  step: number;
  points: FlowPoint[];
}

export const FLOW_REFRESH_MS = 5000;

/** One chart row per point: kbit/s by series for one direction, and `t`. */
export function directionRows(chart: FlowChart | null, direction: 'up' | 'down'): Array<Record<string, number>> {
  return (chart?.points ?? [])
    .filter((p) => Number.isFinite(p.t))
    .sort((a, b) => a.t - b.t)
    .map((p) => {
      const row: Record<string, number> = { t: p.t };
      for (const series of FLOW_SERIES) row[series] = Math.max(0, Math.round(((p[direction][series] ?? 0) * 8) / 1000));
      return row;
    });
}

/** One row per point with each WAN's received and sent kbit/s (`<wan>_rx`, `<wan>_tx`). */
export function wanRows(chart: FlowChart | null): { rows: Array<Record<string, number>>; wans: string[] } {
  const wans = [...new Set((chart?.points ?? []).flatMap((p) => Object.keys(p.wans)))].sort();
  const rows = (chart?.points ?? []).map((p) => {
    const row: Record<string, number> = { t: p.t };
    for (const wan of wans) {
      row[`${wan}_rx`] = Math.round(((p.wans[wan]?.rx ?? 0) * 8) / 1000);
      row[`${wan}_tx`] = Math.round(((p.wans[wan]?.tx ?? 0) * 8) / 1000);
    }
    return row;
  });
  return { rows, wans };
}

/** The x-axis spans the whole range, ending at the last point. */
export function flowDomain(range: ChartRange, rows: ReadonlyArray<{ t?: number }>, now = Date.now()): [number, number] {
  const end = rows.length ? (rows[rows.length - 1]!.t ?? now) : now;
  return [end - CHART_RANGES[range] * 1000, end];
}
