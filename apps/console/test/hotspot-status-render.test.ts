import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, test } from 'vitest';
import type { OnlineUserList } from '@portico/schema';
import { i18n } from '../src/i18n/console-i18n.js';
import { AuthUserInfoView } from '../src/pages/hotspot-status/auth-user-info-page.js';
import { InnerUserView } from '../src/pages/hotspot-status/inner-user-page.js';
import { InnerUserFlowView } from '../src/pages/hotspot-status/inner-user-flow-page.js';
import { InnerUserDetailView } from '../src/pages/hotspot-status/inner-user-detail-page.js';
import { CUSTOM_PAGES } from '../src/routes/page-registry.js';
import { onRoute } from './console-routes.js';
import type { OnlineHotspotList } from '../src/pages/hotspot-status/hotspot-status-api.js';

/**
 * The hotspot status pages drawn on the server renderer for known data: every value the
 * device gives (account names, plans, host names) shows as text, never as markup.
 */
const HOSTILE = '<img src=x onerror=alert(1)>';

const online: OnlineHotspotList = {
  items: [
    {
      ip: '192.168.11.20',
      mac: '02:00:00:00:00:02',
      zone: 'guests',
      kind: 'local',
      username: HOSTILE,
      plan: `plan${HOSTILE}`,
      startedAt: 0,
      onlineSeconds: 3725,
      bytesUp: 2048,
      bytesDown: 1_048_576,
      secondsRemaining: null,
      bytesRemaining: 5_000_000,
      upKbps: 4096,
      downKbps: 0,
    },
  ],
  total: 1,
  blocked: ['02:66:66:66:66:66'],
};

const clients: OnlineUserList = {
  items: [
    { ip: '192.168.11.20', mac: '02:00:00:00:00:02', hostname: HOSTILE, username: 'alice', auth: 'auth', up_rate: 1024, down_rate: 4096, up_bytes: 10, down_bytes: 20, online_time: 61, conn_count: 3 },
    { ip: '192.168.11.21', mac: '02:00:00:00:00:03', hostname: 'laptop', username: '', auth: 'preauth', up_rate: 0, down_rate: 0, up_bytes: 5000, down_bytes: 9000, online_time: 5, conn_count: 1 },
  ],
  total: 2,
};

const noop = () => undefined;

function render(page: ReactElement, lang = 'en-US', url = '/sysstatus/authuserinfo'): string {
  void i18n.changeLanguage(lang);
  return renderToString(
    createElement(I18nextProvider, { i18n }, createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: [url] }, onRoute(url, page)))),
  );
}

const authView = (data: OnlineHotspotList | null, failed = false) =>
  createElement(AuthUserInfoView, { data, failed, onKick: noop, onBlock: noop, onUnblock: noop, onRate: noop });

describe('online authenticated users', () => {
  test('each user with usage, remaining allowance, limits and the three actions', () => {
    const html = render(authView(online));
    expect(html).toContain('data-testid="auth-user-info-page"');
    expect(html).toMatch(/data-testid="page-title"[^>]*>Authenticated users</);
    expect(html).toContain('Users online: 1');
    for (const id of ['online-kick', 'online-rate', 'online-block', 'blocked-macs']) expect(html).toContain(`data-testid="${id}"`);
    expect(html).toContain('Local user');
    expect(html).toContain('1 h 2 min 5 s');
    expect(html).toContain('4096 Kbit/s / Unlimited');
    expect(html).toContain('02:66:66:66:66:66');
  });

  test('each session names the method that admitted it, outside portals included', () => {
    const base = online.items[0]!;
    const kinds = ['ldap', 'sms', 'wifidog', 'cmcc', 'rusystem', 'cloudportal', 'weixin', 'social', 'unknown-kind'];
    const many: OnlineHotspotList = { items: kinds.map((kind, i) => ({ ...base, kind, ip: `192.168.11.${30 + i}` })), total: kinds.length, blocked: [] };
    const html = render(authView(many));
    for (const label of ['LDAP account', 'SMS code', 'WiFiDog', 'CMCC portal', 'RU system', 'Cloud portal', 'WeChat Wi-Fi', 'Social login', 'Other']) expect(html).toContain(label);
    const zh = render(authView(many), 'zh-CN');
    for (const label of ['CMCC 门户', 'RU 系统', '云平台', '微信', '社交登录']) expect(zh).toContain(label);
  });

  test('device text is escaped, never markup', () => {
    const html = render(authView(online));
    expect(html).not.toContain('<img src=x');
    expect(html).toMatch(/data-testid="online-username"[^>]*>&lt;img src=x onerror=alert\(1\)&gt;</);
    expect(html).toMatch(/data-testid="online-plan"[^>]*>plan&lt;img/);
  });

  test('Chinese labels, and the notice when the status cannot be read', () => {
    expect(render(authView(online), 'zh-CN')).toMatch(/data-testid="page-title"[^>]*>认证用户</);
    expect(render(authView(online), 'zh-TW')).toMatch(/data-testid="page-title"[^>]*>認證使用者</);
    expect(render(authView(null, true))).toContain('The status could not be read right now.');
  });
});

describe('inner users', () => {
  test('list, flow details and detail show the clients; host names are text', () => {
    const list = render(createElement(InnerUserView, { data: clients, failed: false }), 'en-US', '/sysstatus/inneruser');
    expect(list).toMatch(/data-testid="page-title"[^>]*>LAN users</);
    expect(list).toContain('2 clients');
    expect(list).toContain('Awaiting sign-in');
    expect(list).toContain('href="/sysstatus/inneruser/detail?ip=192.168.11.20"');
    expect(list).not.toContain('<img src=x');
    expect(list).toMatch(/data-testid="inner-user-hostname"[^>]*>&lt;img/);

    const flow = render(createElement(InnerUserFlowView, { data: clients, failed: false }), 'en-US', '/sysstatus/inneruser/flowdetails');
    expect(flow).toContain('Flow details');
    // Heaviest first.
    expect(flow.indexOf('192.168.11.21')).toBeLessThan(flow.indexOf('192.168.11.20'));

    const detail = render(createElement(InnerUserDetailView, { ip: '192.168.11.20', clients, sessions: online, failed: false }), 'zh-CN', '/sysstatus/inneruser/detail?ip=192.168.11.20');
    expect(detail).toContain('终端 192.168.11.20');
    expect(detail).toContain('data-testid="detail-session"');
    expect(detail).not.toContain('<img src=x');
    const missing = render(createElement(InnerUserDetailView, { ip: '192.168.11.99', clients, sessions: online, failed: false }));
    expect(missing).toContain('data-testid="inner-user-missing"');
  });

  test('the four pages are registered', () => {
    for (const path of ['/sysstatus/authuserinfo', '/sysstatus/inneruser', '/sysstatus/inneruser/flowdetails', '/sysstatus/inneruser/detail']) {
      expect(CUSTOM_PAGES[path]).toBeDefined();
    }
  });
});
