import { describe, expect, test } from 'vitest';
import { flatten, resources } from '@portico/i18n';
import { dashboardSchema, type Dashboard } from '@portico/schema';
import {
  clampPercent,
  connectionPercent,
  deviceTimeText,
  percentText,
  systemGauges,
  topFlowRows,
  uptimeText,
  usageLevel,
  wanOnline,
  type Translate,
} from '../src/pages/dashboard/dashboard-model.js';

function translator(lang: 'en-US' | 'zh-CN' | 'zh-TW'): Translate {
  const flat = flatten(resources[lang]);
  return (key, options) => {
    let text = flat[key] ?? key;
    for (const [name, value] of Object.entries(options ?? {})) text = text.replaceAll(`{{${name}}}`, String(value));
    return text;
  };
}

const sample: Dashboard = dashboardSchema.parse({
  board: { sn: 'PT2400001', model: 'PT-2400', version: '1.0.0' },
  system: {
    localtime: '2025-03-01T21:04:05+08:00',
    uptime: 3 * 86400 + 4 * 3600 + 5 * 60 + 6,
    cpu: 12.5,
    memory: 71,
    memory_total: 512 * 1024 * 1024,
    memory_used: 256 * 1024 * 1024,
    conn_max: 1024,
    conn_count: 256,
    disk: 95,
    flash: 0,
    wanconnect: 1,
  },
  user: {
    online: 7,
    preauth: 2,
    auth: 5,
    total: 20,
    topflows: [
      { ip: '192.168.11.20', flow: 1024 },
      { ip: '192.168.11.30', flow: 5 * 1024 * 1024 },
    ],
  },
});

describe('WAN state (spec §4)', () => {
  test('online when wanconnect is above zero', () => {
    expect(wanOnline(1)).toBe(true);
    expect(wanOnline(3)).toBe(true);
    expect(wanOnline(0)).toBe(false);
    expect(wanOnline(Number.NaN)).toBe(false);
  });
});

describe('percentages and gauges', () => {
  test('clamped and rounded for display', () => {
    expect(clampPercent(-3)).toBe(0);
    expect(clampPercent(140)).toBe(100);
    expect(clampPercent(Number.NaN)).toBe(0);
    expect(percentText(12.5)).toBe('12.5%');
    expect(percentText(71)).toBe('71%');
    expect(percentText(33.333)).toBe('33.3%');
  });

  test('levels turn amber at 70% and red at 90%', () => {
    expect(usageLevel(69.9)).toBe('normal');
    expect(usageLevel(70)).toBe('busy');
    expect(usageLevel(90)).toBe('critical');
  });

  test('connections against their limit; no limit reads 0%', () => {
    expect(connectionPercent(256, 1024)).toBe(25);
    expect(connectionPercent(5, 0)).toBe(0);
    expect(connectionPercent(2000, 1024)).toBe(100);
  });

  test('the gauges of a sample, with memory and connection details', () => {
    const gauges = systemGauges(sample.system, translator('en-US'));
    expect(gauges.map((g) => [g.key, g.percent, g.level])).toEqual([
      ['cpu', 12.5, 'normal'],
      ['memory', 71, 'busy'],
      ['connections', 25, 'normal'],
      ['disk', 95, 'critical'],
      ['flash', 0, 'normal'],
    ]);
    expect(gauges[1]!.detail).toBe('256.0 MB used of 512.0 MB');
    expect(gauges[2]!.detail).toBe('256 of 1024');
    expect(systemGauges({ ...sample.system, memory_total: 0 }, translator('en-US'))[1]!.detail).toBeUndefined();
  });
});

describe('time texts', () => {
  test('the device clock is shown as the device sent it, not in the browser zone', () => {
    expect(deviceTimeText('2025-03-01T21:04:05+08:00')).toBe('2025-03-01 21:04:05');
    expect(deviceTimeText('2025-03-01T21:04:05.123Z')).toBe('2025-03-01 21:04:05');
    expect(deviceTimeText('garbled')).toBe('garbled');
  });

  test('uptime in days, hours, minutes and seconds in each language', () => {
    const seconds = sample.system.uptime;
    expect(uptimeText(seconds, translator('en-US'), 'en-US')).toBe('3 d 4 h 5 min 6 s');
    expect(uptimeText(seconds, translator('zh-CN'), 'zh-CN')).toBe('3 天4 小时5 分6 秒');
    expect(uptimeText(seconds, translator('zh-TW'), 'zh-TW')).toBe('3 天4 小時5 分6 秒');
    expect(uptimeText(0, translator('en-US'), 'en-US')).toBe('0 s');
    expect(uptimeText(3600, translator('en-US'), 'en-US')).toBe('1 h');
  });
});

describe('top flows', () => {
  test('heaviest first, formatted as bytes', () => {
    expect(topFlowRows(sample.user.topflows)).toEqual([
      { ip: '192.168.11.30', flow: 5 * 1024 * 1024, text: '5.0 MB' },
      { ip: '192.168.11.20', flow: 1024, text: '1.0 KB' },
    ]);
  });

  test('the same address is summed; bad numbers count as nothing', () => {
    expect(
      topFlowRows([
        { ip: '10.0.0.2', flow: 100 },
        { ip: '10.0.0.2', flow: 50 },
        { ip: '10.0.0.3', flow: Number.NaN },
      ]),
    ).toEqual([
      { ip: '10.0.0.2', flow: 150, text: '150 B' },
      { ip: '10.0.0.3', flow: 0, text: '0 B' },
    ]);
    expect(topFlowRows([])).toEqual([]);
  });
});
