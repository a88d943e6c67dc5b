import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, test } from 'vitest';
import { dashboardSchema, type Dashboard } from '@portico/schema';
import { i18n } from '../src/i18n/console-i18n.js';
import { DashboardView, type DashboardViewProps } from '../src/pages/dashboard/dashboard-view.js';

/** The dashboard drawn on the server renderer (no DOM here) for known figures. */
const figures: Dashboard = dashboardSchema.parse({
  board: { sn: 'PT2400001', model: 'PT-2400', version: '1.0.0' },
  system: {
    localtime: '2025-03-01T21:04:05+08:00',
    uptime: 90061,
    cpu: 12,
    memory: 40,
    memory_total: 1073741824,
    memory_used: 429496730,
    conn_max: 1024,
    conn_count: 100,
    disk: 10,
    flash: 20,
    wanconnect: 0,
  },
  user: {
    online: 7,
    preauth: 2,
    auth: 5,
    total: 20,
    topflows: [{ ip: '<img src=x onerror=alert(1)>', flow: 2048 }],
  },
});

function render(props: Partial<DashboardViewProps>, lang = 'en-US'): string {
  void i18n.changeLanguage(lang);
  const all: DashboardViewProps = { data: figures, failed: false, range: '5m', series: null, onRange: () => undefined, ...props };
  return renderToString(
    createElement(I18nextProvider, { i18n }, createElement(MantineProvider, null, createElement(DashboardView, all))),
  );
}

describe('dashboard view', () => {
  test('board, system, WAN and users with their test ids', () => {
    const html = render({});
    expect(html).toContain('data-testid="dashboard"');
    expect(html).toMatch(/data-testid="dash-board-sn"[^>]*>PT2400001</);
    expect(html).toMatch(/data-testid="dash-wan-status"[^>]*data-online="false"|data-online="false"[^>]*data-testid="dash-wan-status"/);
    expect(html).toContain('Offline');
    expect(html).toMatch(/data-testid="dash-users-online"[^>]*>7</);
    expect(html).toContain('2025-03-01 21:04:05');
    expect(html).toContain('1 d 1 h 1 min 1 s');
    expect(html).toContain('100 of 1024');
  });

  test('a range button per §9 range, the chosen one pressed', () => {
    const html = render({ range: '24h' });
    for (const range of ['5m', '30m', '1h', '24h', '1w', '1mo']) expect(html).toContain(`data-testid="dash-range-${range}"`);
    expect(html).toMatch(/aria-pressed="true"[^>]*data-testid="dash-range-24h"/);
    expect(html).toContain('Last 24 hours');
  });

  test('WAN online when wanconnect > 0, in Chinese too', () => {
    const online = { ...figures, system: { ...figures.system, wanconnect: 2 } };
    expect(render({ data: online })).toMatch(/data-online="true"/);
    expect(render({ data: online }, 'zh-CN')).toContain('在线');
    expect(render({ data: online }, 'zh-TW')).toContain('連線中');
  });

  test('device text is escaped, never markup', () => {
    const html = render({});
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('2.0 KB');
  });

  test('before the first answer: a loader, or the unavailable notice after a failure', () => {
    expect(render({ data: null })).toContain('data-testid="dashboard"');
    expect(render({ data: null, failed: true })).toContain('Status information is not available right now.');
  });
});
