import type { ChartRange } from '../constants/index.js';
import { QOS_CLASSES } from './qos-fields.js';

/** Series of the Smart QoS flow charts: the four classes and the per-user limited traffic. */
export const FLOW_SERIES = [...QOS_CLASSES, 'limited'] as const;
export type FlowSeries = (typeof FLOW_SERIES)[number];

/** One sample of `GET /api/flow/chart`: bytes per second by series and per WAN. */
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
