import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHART_RANGE_KEYS,
  CHART_RANGE_STEPS,
  CHART_RANGES,
  chartRangePointCount,
  chartRangeSchema,
  dashboardSchema,
  loadSeriesSchema,
  netifListSchema,
  onlineUserListSchema,
  registrationSchema,
  systemInfoSchema,
} from '@portico/schema';
import { LoadHistory, formatSerial, localIsoTime, round1 } from '../src/drivers/live-source.js';

const dashboard = {
  board: { sn: 'PT0123456789ABCD', model: 'Portico G1800', version: '0.1.0' },
  system: {
    localtime: '2025-03-03T17:00:00+08:00',
    uptime: 3600,
    cpu: 12.5,
    memory: 40,
    memory_total: 4294967296,
    memory_used: 1717986918,
    conn_max: 1024,
    conn_count: 300,
    disk: 20,
    flash: 30,
    wanconnect: 2,
  },
  user: { online: 30, preauth: 2, auth: 20, total: 55, topflows: [{ ip: '192.168.11.100', flow: 123456 }] },
};

describe('live status schemas', () => {
  it('gives each chart range of spec §9 a whole number of 60 to 300 points', () => {
    expect(CHART_RANGE_KEYS).toEqual(['5m', '30m', '1h', '24h', '1w', '1mo']);
    for (const range of CHART_RANGE_KEYS) {
      const points = chartRangePointCount(range);
      expect(Number.isInteger(points), range).toBe(true);
      expect(points, range).toBeGreaterThanOrEqual(60);
      expect(points, range).toBeLessThanOrEqual(300);
      expect(points * CHART_RANGE_STEPS[range]).toBe(CHART_RANGES[range]);
    }
    expect(chartRangeSchema.safeParse('2h').error?.issues[0]?.message).toBe('validation.option');
  });

  it('accepts a well-formed dashboard and refuses impossible figures', () => {
    expect(dashboardSchema.parse(dashboard)).toEqual(dashboard);
    const bad = (patch: (d: typeof dashboard) => void) => {
      const copy = structuredClone(dashboard);
      patch(copy);
      return dashboardSchema.safeParse(copy).success;
    };
    expect(bad((d) => (d.system.cpu = 100.1))).toBe(false);
    expect(bad((d) => (d.system.memory_used = -1))).toBe(false);
    expect(bad((d) => (d.system.wanconnect = 0.5))).toBe(false);
    expect(bad((d) => (d.system.localtime = 'yesterday'))).toBe(false);
    expect(bad((d) => (d.user.topflows = Array.from({ length: 6 }, () => ({ ip: '192.168.11.2', flow: 1 }))))).toBe(false);
  });

  it('keeps hostile client text as it is: escaping is the console’s job', () => {
    const user = {
      ip: '192.168.11.12',
      mac: '02:11:22:33:44:55',
      hostname: '<img src=x onerror=alert(1)>\u202E',
      username: '',
      auth: 'preauth',
      up_rate: 0,
      down_rate: 0,
      up_bytes: 0,
      down_bytes: 0,
      online_time: 0,
      conn_count: 0,
    };
    expect(onlineUserListSchema.parse({ items: [user], total: 1 }).items[0]!.hostname).toBe(user.hostname);
    expect(onlineUserListSchema.safeParse({ items: [{ ...user, auth: 'guest' }], total: 1 }).success).toBe(false);
  });

  it('converts every schema to JSON Schema under its own name for the API document', () => {
    for (const [schema, id] of [
      [dashboardSchema, 'Dashboard'],
      [loadSeriesSchema, 'LoadSeries'],
      [netifListSchema, 'NetifList'],
      [onlineUserListSchema, 'OnlineUserList'],
      [registrationSchema, 'Registration'],
      [systemInfoSchema, 'SystemInfo'],
    ] as const) {
      const json = z.toJSONSchema(z.object({ data: schema }), { target: 'draft-2020-12' }) as { $defs?: Record<string, unknown> };
      expect(Object.keys(json.$defs ?? {}), id).toContain(id);
    }
  });
});

describe('live status helpers', () => {
  it('writes device time with its UTC offset', () => {
    const text = localIsoTime(Date.UTC(2025, 2, 3, 9, 0, 5));
    expect(z.iso.datetime({ offset: true }).safeParse(text).success).toBe(true);
    expect(new Date(text).getTime()).toBe(Date.UTC(2025, 2, 3, 9, 0, 5));
  });

  it('formats serial numbers as PT and 14 hex digits', () => {
    expect(formatSerial('0a1b2c3d4e5f6a7b8c')).toBe('PT0A1B2C3D4E5F6A');
    expect(formatSerial('ab')).toBe('PTAB000000000000');
  });

  it('averages samples into each range’s points and drops what falls out of the span', () => {
    const history = new LoadHistory(5000);
    const base = Date.UTC(2025, 2, 3, 0, 0, 0);
    const values = (cpu: number) => ({ cpu, memory: 50, load1: 1, rx_rate: cpu * 100, tx_rate: 0, conn_count: 10 });
    for (let i = 0; i < 120; i += 1) history.record(base + i * 5000, values(i % 2 === 0 ? 10 : 20));
    const last = base + 119 * 5000;
    expect(history.series('5m', last).points).toHaveLength(60);
    const halfHour = history.series('30m', last).points;
    // 15-second points hold three 5-second samples: 10, 20, 10 or 20, 10, 20.
    expect(halfHour).toHaveLength(40);
    expect(new Set(halfHour.map((p) => p.cpu))).toEqual(new Set([13.3, 16.7]));
    expect(history.series('1h', last).points.every((p) => p.cpu === 15)).toBe(true);
    // Ten minutes later with nothing recorded, the 5-minute chart is empty rather than stale.
    expect(history.series('5m', last + 600_000).points).toHaveLength(0);
  });

  it('fills a gap from a model with each point weighted by the samples it stands for', () => {
    const history = new LoadHistory(5000);
    const base = Date.UTC(2025, 2, 3, 0, 5, 0);
    history.fill(() => ({ cpu: 50, memory: 50, load1: 1, rx_rate: 1000, tx_rate: 100, conn_count: 5 }), base - 86_400_000, base);
    history.record(base, { cpu: 100, memory: 50, load1: 1, rx_rate: 1000, tx_rate: 100, conn_count: 5 });
    const day = history.series('24h', base).points;
    expect(day).toHaveLength(144);
    // The newest 10-minute point began at 00:00: 60 model samples, then the first real one.
    expect(day.at(-1)).toMatchObject({ t: base - 300_000, cpu: round1((50 * 60 + 100) / 61) });
    expect(day.slice(0, -1).every((p) => p.cpu === 50)).toBe(true);
    expect(history.series('5m', base).points.at(-1)!.cpu).toBe(100);
  });
});
