import { CHART_RANGES, FLOW_SERIES, type ChartRange, type FlowChart } from '@portico/schema';

export { FLOW_SERIES, type FlowChart, type FlowSeries } from '@portico/schema';

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
