/** Time windows of the flow and load charts (spec §9), with their length in seconds. */
export const CHART_RANGES = {
  '5m': 300,
  '30m': 1800,
  '1h': 3600,
  '24h': 86400,
  '1w': 604800,
  '1mo': 2592000,
} as const;
export type ChartRange = keyof typeof CHART_RANGES;
export const CHART_RANGE_KEYS = Object.keys(CHART_RANGES) as ChartRange[];

/** Line monitoring refresh period, seconds (spec §2). */
export const LINE_MONITOR_REFRESH_SECONDS = 5;
