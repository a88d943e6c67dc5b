import { describe, expect, test } from 'vitest';
import type { LoadPoint } from '@portico/schema';
import {
  chartPoints,
  DEFAULT_LOAD_RANGE,
  isChartRange,
  LOAD_RANGES,
  loadRefreshMs,
  rangeLabelKey,
  sampleTimeText,
  timeDomain,
  timeTickText,
} from '../src/pages/dashboard/load-chart-model.js';

const point = (t: number, extra: Partial<LoadPoint> = {}): LoadPoint => ({
  t,
  cpu: 10,
  memory: 20,
  load1: 0.5,
  rx_rate: 1000,
  tx_rate: 500,
  conn_count: 3,
  ...extra,
});

describe('chart ranges (spec §9)', () => {
  test('last 5 min, 30 min, 1 hour, 24 hours, 1 week, 1 month', () => {
    expect(LOAD_RANGES).toEqual(['5m', '30m', '1h', '24h', '1w', '1mo']);
    expect(DEFAULT_LOAD_RANGE).toBe('5m');
    expect(rangeLabelKey('1mo')).toBe('dashboard.range.1mo');
    expect(isChartRange('24h')).toBe(true);
    expect(isChartRange('2y')).toBe(false);
  });

  test('refresh follows the reported series step, never faster than 5 s', () => {
    expect(loadRefreshMs(null)).toBe(5000);
    expect(loadRefreshMs({ step: 1 })).toBe(5000);
    expect(loadRefreshMs({ step: 15 })).toBe(15_000);
    expect(loadRefreshMs({ step: 600 })).toBe(600_000);
    expect(loadRefreshMs({ step: Number.NaN })).toBe(5000);
  });
});

describe('axes', () => {
  const at = new Date(2025, 2, 1, 21, 4, 5).getTime();

  test('tick labels get coarser as the range grows', () => {
    expect(timeTickText('5m', at)).toBe('21:04:05');
    expect(timeTickText('30m', at)).toBe('21:04');
    expect(timeTickText('1h', at)).toBe('21:04');
    expect(timeTickText('24h', at)).toBe('21:04');
    expect(timeTickText('1w', at)).toBe('03-01 21:04');
    expect(timeTickText('1mo', at)).toBe('03-01');
    expect(sampleTimeText(at)).toBe('2025-03-01 21:04:05');
  });

  test('the time axis spans the whole range up to the last sample', () => {
    expect(timeDomain('5m', [point(1_000_000), point(1_300_000)])).toEqual([1_000_000, 1_300_000]);
    expect(timeDomain('1h', [], 10_000_000)).toEqual([10_000_000 - 3_600_000, 10_000_000]);
  });
});

describe('chart points', () => {
  test('sorted by time, percentages clamped, bad numbers drawn as zero', () => {
    const points = chartPoints([
      point(2000, { cpu: 130 }),
      point(1000, { rx_rate: Number.NaN, memory: -5 }),
      point(Number.NaN),
    ]);
    expect(points.map((p) => p.t)).toEqual([1000, 2000]);
    expect(points[0]).toMatchObject({ rx_rate: 0, memory: 0 });
    expect(points[1]).toMatchObject({ cpu: 100 });
  });
});
