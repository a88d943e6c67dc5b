import { CHART_RANGE_KEYS, CHART_RANGES, type ChartRange, type LoadPoint, type LoadSeries } from '@portico/schema';

/** The load chart's ranges (spec §9) and how its axes read; no chart library in here. */

export const LOAD_RANGES: readonly ChartRange[] = CHART_RANGE_KEYS;
export const DEFAULT_LOAD_RANGE: ChartRange = '5m';

export function isChartRange(value: unknown): value is ChartRange {
  return typeof value === 'string' && (LOAD_RANGES as readonly string[]).includes(value);
}

export function rangeLabelKey(range: ChartRange): string {
  return `dashboard.range.${range}`;
}

/**
 * The series gains a point once per step, so it is read again once per step (the step the
 * daemon reported), never faster than the dashboard itself refreshes.
 */
export const MIN_LOAD_REFRESH_MS = 5000;

export function loadRefreshMs(series: Pick<LoadSeries, 'step'> | null): number {
  const step = series && Number.isFinite(series.step) ? series.step : 0;
  return Math.max(MIN_LOAD_REFRESH_MS, step * 1000);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Time-axis labels: seconds only matter in the five-minute view, the date only once a
 * range spans days, and the hour not at all across a month.
 */
export function timeTickText(range: ChartRange, ms: number): string {
  const d = new Date(ms);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const md = `${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  if (range === '5m') return `${hm}:${pad(d.getSeconds())}`;
  if (CHART_RANGES[range] <= CHART_RANGES['24h']) return hm;
  if (range === '1w') return `${md} ${hm}`;
  return md;
}

/** Tooltip heading: always the full date and time of the sample. */
export function sampleTimeText(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Points in time order with out-of-range numbers made drawable. */
export function chartPoints(points: readonly LoadPoint[]): LoadPoint[] {
  const finite = (n: number, max = Number.POSITIVE_INFINITY) => (Number.isFinite(n) ? Math.min(max, Math.max(0, n)) : 0);
  return points
    .filter((p) => Number.isFinite(p.t))
    .map((p) => ({
      ...p,
      cpu: finite(p.cpu, 100),
      memory: finite(p.memory, 100),
      load1: finite(p.load1),
      rx_rate: finite(p.rx_rate),
      tx_rate: finite(p.tx_rate),
      conn_count: finite(p.conn_count),
    }))
    .sort((a, b) => a.t - b.t);
}

/** The x-axis spans the whole range ending at the last sample, so a young series is not stretched. */
export function timeDomain(range: ChartRange, points: readonly LoadPoint[], now: number = Date.now()): [number, number] {
  const end = points.length ? points[points.length - 1]!.t : now;
  return [end - CHART_RANGES[range] * 1000, end];
}
