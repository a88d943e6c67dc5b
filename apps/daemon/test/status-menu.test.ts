import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  CHART_RANGE_KEYS,
  dashboardSchema,
  loadSeriesSchema,
  netifListSchema,
  onlineUserListSchema,
  registrationSchema,
  systemInfoSchema,
  type MenuSection,
} from '@portico/schema';
import { addAccount, adminClient, get, json, login, startDaemon, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;
beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const data = async (url: string, client: Client = admin) => {
  const body = json(await get(h.app, client, url));
  expect(body.success, `${url} ${JSON.stringify(body)}`).toBe(true);
  return body.data;
};

describe('live data routes', () => {
  test('answer what the shared schemas describe', async () => {
    expect(dashboardSchema.safeParse(await data('/api/dashboard?_=1')).success).toBe(true);
    expect(netifListSchema.safeParse(await data('/api/status/netif')).success).toBe(true);
    expect(onlineUserListSchema.safeParse(await data('/api/status/user')).success).toBe(true);
    expect(registrationSchema.safeParse(await data('/api/registration')).success).toBe(true);
    expect(systemInfoSchema.safeParse(await data('/api/sysconf/system')).success).toBe(true);
  });

  test('load series for every chart range, 5m by default; unknown ranges are refused', async () => {
    for (const range of CHART_RANGE_KEYS) {
      const series = await data(`/api/status/loadavg?range=${range}&_=2`);
      expect(loadSeriesSchema.safeParse(series).success, range).toBe(true);
      expect(series.range).toBe(range);
    }
    expect((await data('/api/status/loadavg')).range).toBe('5m');
    expect(json(await get(h.app, admin, '/api/status/loadavg?range=2y'))).toEqual({
      success: false,
      msg: 'msg.reviewFields',
      errors: { range: 'validation.option' },
    });
  });
});

describe('menu', () => {
  const pages = (menu: MenuSection[]) => menu.flatMap((s) => s.children.map((c) => c.module));

  test('a manager sees every section the capabilities allow, with modify permission', async () => {
    const menu: MenuSection[] = await data('/api/menu');
    expect(menu.map((s) => s.path)).toEqual(expect.arrayContaining(['/', '/netconf', '/system', '/enterprisestorage', '/wirelessmanage']));
    expect(pages(menu)).toEqual(expect.arrayContaining(['usermanagement', 'vlan', 'phtunnel', 'cmccweb']));
    expect(pages(menu)).not.toContain('iptv');
    expect(menu.flatMap((s) => s.children).every((c) => c.permission === 'modify')).toBe(true);
  });

  test('a voucher administrator sees only its pages, a visitor everything read-only', async () => {
    const voucher = await addAccount(h, admin, 'vouch', 1);
    const visitor = await addAccount(h, admin, 'visit', 2);
    const voucherMenu: MenuSection[] = await data('/api/menu', await login(h.app, 'vouch', voucher.password));
    expect(pages(voucherMenu).sort()).toEqual(['authuserinfo', 'billingplan', 'dashboard', 'localuser', 'voucher', 'voucherbatch']);
    const visitorMenu: MenuSection[] = await data('/api/menu', await login(h.app, 'visit', visitor.password));
    const items = visitorMenu.flatMap((s) => s.children);
    expect(items.length).toBeGreaterThan(50);
    expect(items.every((c) => c.permission === 'readonly')).toBe(true);
  });

  test('capabilities and disabled modules shape the menu', async () => {
    const small = await startDaemon({ env: { PORTICO_CAPABILITIES: 'gateway wifi_cpe iptv', PORTICO_DISABLED_MODULES: 'cloud, telnetclient' } });
    const client = await login(small.app, 'admin', small.initialPassword!);
    const menu: MenuSection[] = json(await get(small.app, client, '/api/menu')).data;
    const modules = pages(menu);
    expect(modules).toContain('iptv');
    expect(modules).not.toContain('vlan');
    expect(modules).not.toContain('telnetclient');
    expect(menu.map((s) => s.module)).not.toEqual(expect.arrayContaining(['cloud']));
    expect(menu.map((s) => s.module)).not.toContain('wirelessmanage');
    expect(menu.map((s) => s.module)).not.toContain('enterprisestorage');
    await small.close();
  });
});
