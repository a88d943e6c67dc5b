export * from './status-types.js';
// The chart ranges belong to the constants; status readers name them with the series they shape.
export { CHART_RANGES, CHART_RANGE_KEYS, type ChartRange } from '../constants/chart-ranges.js';
export * from './status-network-types.js';
