import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { MenuSection } from '@portico/schema';
import { isUnbuilt } from '../../apps/console/src/routes/unbuilt-pages.js';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';

/**
 * Every page the menu routes, opened in one browser session: none is "not found", only those
 * the console declares not built (UNBUILT_PAGES) show the placeholder, and on every list each
 * Add and the first row's Edit open a working form, on its sub-route or in a drawer. The walk
 * comes from the server's menu, so a page added to the route map is covered by itself.
 */

const PASSWORD = 'EveryPage0k';

/**
 * One row in every list that would otherwise be empty, so every first-row Edit is exercised.
 * The factory LAN (PORTICO_LAN_PORTS) brings the `lan` interface and its DHCP server.
 */
const SEEDS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['network', { ifname: 'wan', role: 'wan', hwport: ['eth0'], proto: 'dhcp', subif_type: 'vlan' }],
  ['dhcpstatic', { mac: '02:00:00:00:00:10', ip: '192.168.11.10' }],
  ['staticroute', { target: '10.50.0.0/16', gateway: '192.168.11.254' }],
  ['arpbind', { ip: '192.168.11.11', mac: '02:00:00:00:00:11' }],
  ['vlan', { ifname: 'guest', port: 'eth0', tag: 20 }],
  ['vwan', { interface: 'wan' }],
  ['portattr', { port: 'eth1' }],
  ['vpnclient', { type: 'pptp', name: 'office', server: 'vpn.example.com', username: 'branch', password: 'Branch2024' }],
  ['auth/zone', { name: 'guests', ifname: 'lan' }],
  ['auth/tariff', { name: 'day' }],
  ['auth/userauth', { username: 'walker', password: 'Walker2025' }],
  ['auth/whitelist', { type: 'ip', value: '192.168.11.50' }],
  ['auth/blacklist', { type: 'ip', value: '192.168.11.51' }],
  ['firewall/redirect', { name: 'web', extport: 8081, intip: '192.168.11.20' }],
  ['firewall/nat', { name: 'snat' }],
  ['hostmapping', { name: 'host', wan: 'wan', public: '203.0.113.5', private: '192.168.11.21' }],
  ['firewall/filter', { name: 'block' }],
  ['sessionlimit/rules', { name: 'limit', ip: '192.168.11.30' }],
  ['dmz', { wan: 'wan', host: '192.168.11.40' }],
  ['flow/ipqos', { name: 'desk', usernet: '192.168.11.60' }],
  ['flow/macqos', { name: 'phone', usernet: '02:00:00:00:00:12' }],
  ['flow/qosclass', { name: 'ssh', dport: ['22'] }],
  ['flow/policyroute', { name: 'video', dest_domain: ['video.example.com'] }],
  ['flow/loadbalance', { interface: 'wan' }],
  ['flow/ispinfo', { name: 'campus', networks: ['10.60.0.0/16'] }],
  ['ac/apgroup', { name: 'lobby' }],
  ['ac/macfilter', { mac: '02:00:00:00:00:13' }],
  ['ac/cpe', { name: 'north', ssid: 'north-link', key: 'bridge-passphrase' }],
  ['auth/ipsec', { name: 'branch', remote_addr: '198.51.100.9', local_subnets: '192.168.11.0/24', peer_subnets: '10.9.0.0/24', psk: 'seed-key-1' }],
  ['sysconf/emailinfo/recipients', { name: 'ops', address: 'ops@example.org', events: ['loop'] }],
];

let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  // The seeds lay down their own WAN on eth0: the daemon starts without the factory WAN.
  [daemon, browser] = await Promise.all([startDaemon({ PORTICO_LAN_PORTS: 'eth1', PORTICO_WAN_PORTS: '' }), launchBrowser()]);
  api = await adminWithPassword(daemon, PASSWORD);
  for (const [path, body] of SEEDS) {
    const reply = await api.post(path, { ...body, action: 'add' });
    expect(reply.success, `seed ${path}: ${JSON.stringify(reply)}`).toBe(true);
    // A change that could cut the administrator off waits for its confirmation.
    const token = (reply.data as { confirm?: { token?: string } } | undefined)?.confirm?.token;
    if (token) expect((await api.post('sysconf/confirm', { token })).success).toBe(true);
  }
  // An SSID names its AP group by id.
  const groups = (await api.get('ac/apgroup')).data as { items: Array<{ id: string }> };
  expect((await api.post('ac/ssid', { action: 'add', group: groups.items[0]!.id, ssid: 'Lobby', key: 'lobby-passphrase' })).success).toBe(true);
  ({ page } = await newPage(browser));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
  await page.waitForURL('**/dashboard');
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

/**
 * Moves to a console path inside the running app (as a menu click does), without reloading:
 * one session and one page for the whole walk. Resolves once that route's page is on screen.
 */
async function visit(path: string): Promise<void> {
  const [pathname] = path.split('?');
  await page.evaluate((to) => {
    window.history.pushState({}, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await page.locator(`[data-route="${pathname}"], [data-testid="not-found"]`).first().waitFor();
}

type PageState = 'notFound' | 'notAvailable' | 'list' | 'form' | 'other';

/** Waits for the routed page to settle on one of the states a test tells apart. */
async function pageState(): Promise<PageState> {
  const main = page.locator('main');
  const marks: Array<[PageState, Locator]> = [
    ['notFound', page.getByTestId('not-found')],
    ['notAvailable', page.getByTestId('not-available')],
    ['list', main.getByTestId('entity-list').first()],
    ['form', main.getByTestId('entity-form').first()],
    ['form', main.getByTestId('entity-form-failed').first()],
  ];
  // Lazy chunks and first reads: the page's loader shows until its content arrives.
  await page.waitForFunction(() => !document.querySelector('main [data-testid="entity-form-loading"]') && document.querySelector('main')?.textContent?.trim(), null, {
    timeout: 15_000,
  });
  for (const [state, locator] of marks) if (await locator.isVisible()) return state;
  return 'other';
}

/** Saves the drawer's form; the drawer closes once the API accepted it. */
async function saveDrawer(drawer: Locator): Promise<void> {
  await drawer.getByTestId('entity-save').click();
  await expect.poll(async () => ((await drawer.isVisible()) ? await drawer.textContent() : 'closed'), { timeout: 15_000 }).toBe('closed');
}

async function routedPaths(): Promise<string[]> {
  const menu = (await api.get('menu')).data as MenuSection[];
  return menu.flatMap((section) => section.children.flatMap((item) => [item.path, ...item.routes]));
}

/** Opens a form from a button; the form is on a new page or in a drawer, and it loads. */
async function opensForm(button: Locator, from: string, what: string): Promise<void> {
  await button.click();
  const drawer = page.getByRole('dialog');
  await expect
    .poll(async () => page.url() !== from || (await drawer.getByTestId('entity-form').isVisible()), { message: `${what} opens nothing` })
    .toBe(true);
  if (page.url() !== from) {
    // The list stays on screen until the form's chunk has loaded.
    await page.locator(`[data-route="${new URL(page.url()).pathname}"], [data-testid="not-found"]`).first().waitFor();
    expect(await pageState(), `${what} leads to ${page.url()}`).toBe('form');
    expect(await page.getByTestId('entity-form-failed').count(), `${what}: the form could not load`).toBe(0);
    await visit(from.slice(daemon.url.length));
  } else {
    await expect.poll(() => drawer.getByTestId('entity-form-loading').count()).toBe(0);
    expect(await drawer.getByTestId('entity-form-failed').count(), `${what}: the form could not load`).toBe(0);
    await drawer.getByTestId('entity-cancel').click();
    await drawer.waitFor({ state: 'hidden' });
  }
}

/** Every Add and the first row's Edit of the list (or lists, one tab each) on the current page. */
async function exerciseLists(path: string): Promise<number> {
  let opened = 0;
  const tabs = await page.locator('[data-testid^="entity-tab-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!));
  for (const tab of tabs.length ? tabs : [null]) {
    const from = page.url();
    if (tab) await page.getByTestId(tab).click();
    const list = page.getByTestId('entity-list');
    // Rows, or the empty-list line once the read is done.
    const settled = () => list.locator('[data-testid^="entity-edit-"], [data-testid="entity-empty"]').first().waitFor();
    await settled();
    const adds = await list.locator('[data-testid^="entity-add"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!));
    expect(adds.length, `${path}: no Add`).toBeGreaterThan(0);
    for (const add of adds) {
      if (tab) await page.getByTestId(tab).click();
      await opensForm(list.getByTestId(add), page.url(), `${path} ${tab ?? ''} ${add}`);
      opened++;
    }
    if (tab) await page.getByTestId(tab).click();
    await settled();
    const edit = list.locator('[data-testid^="entity-edit-"]').first();
    expect(await edit.count(), `${path} ${tab ?? ''}: an empty list (seed a row)`).toBe(1);
    await opensForm(edit, page.url(), `${path} ${tab ?? ''} first Edit`);
    opened++;
    if (page.url() !== from) await visit(from.slice(daemon.url.length));
  }
  return opened;
}

describe('every page of the console', () => {
  test('opens, with no page missing, placeholders only where declared, and working Add and Edit', async () => {
    const paths = await routedPaths();
    expect(paths.length).toBeGreaterThan(50);
    let forms = 0;
    for (const path of paths) {
      await visit(path);
      const state = await pageState();
      expect(state, `${path} is not found`).not.toBe('notFound');
      expect(state === 'notAvailable', `${path}: placeholder ${state === 'notAvailable' ? 'shown but not declared not built' : 'missing for a page declared not built'}`).toBe(isUnbuilt(path));
      if (state === 'list') forms += await exerciseLists(path);
    }
    expect(forms).toBeGreaterThan(20);
    expect(consoleErrors).toEqual([]);
  }, 600_000);

  test('an interface added in the drawer, and a service zone on it chosen from the list, are saved through the API', async () => {
    await page.goto(`${daemon.url}/netconf/interface`);
    await page.getByTestId('entity-add').click();
    const drawer = page.getByRole('dialog');
    await drawer.getByTestId('field-ifname').fill('branch');
    await drawer.getByTestId('field-role').click();
    await page.getByRole('option', { name: 'LAN', exact: true }).click();
    await drawer.getByTestId('field-hwport').fill('eth2');
    await drawer.getByTestId('field-hwport').press('Enter');
    await drawer.getByTestId('field-ipaddr').fill('192.168.70.1');
    await drawer.getByTestId('field-netmask').fill('255.255.255.0');
    await saveDrawer(drawer);
    // An interface change can cut the administrator off: it waits for the confirmation.
    await page.getByTestId('apply-confirm-ok').click();
    await page.getByTestId('apply-confirm-bar').waitFor({ state: 'hidden' });
    const interfaces = (await api.get('network')).data as { items: Array<{ ifname: string }> };
    expect(interfaces.items.map((i) => i.ifname)).toContain('branch');
    await page.getByTestId('entity-list').getByText('branch', { exact: true }).waitFor();

    await page.goto(`${daemon.url}/hotspot/servicezone`);
    await page.getByTestId('entity-add').click();
    await drawer.getByTestId('field-name').fill('staff');
    // The interface is a choice among the LAN-side interfaces; no WAN is offered.
    await drawer.getByTestId('field-ifname').click();
    await expect.poll(() => page.getByRole('option', { name: 'branch', exact: true }).count()).toBe(1);
    expect(await page.getByRole('option', { name: 'wan', exact: true }).count()).toBe(0);
    await page.getByRole('option', { name: 'branch', exact: true }).click();
    await saveDrawer(drawer);
    const zones = (await api.get('auth/zone')).data as { items: Array<{ name: string; ifname: string }> };
    expect(zones.items.find((z) => z.name === 'staff')?.ifname).toBe('branch');
    expect(consoleErrors).toEqual([]);
  });

  test('a MAC bandwidth rule is added on its own page and listed on its tab', async () => {
    await page.goto(`${daemon.url}/smartqos/flowcontrol`);
    await page.getByTestId('entity-tab-qosMacRule').click();
    await page.getByTestId('entity-add').click();
    await page.waitForURL('**/smartqos/flowcontrol/macadd');
    await page.getByTestId('field-name').fill('tablet');
    await page.getByTestId('field-usernet').fill('02:00:00:00:00:13');
    await page.getByTestId('entity-save').click();
    await page.waitForURL('**/smartqos/flowcontrol?tab=qosMacRule');
    await page.getByTestId('entity-list').getByText('tablet', { exact: true }).waitFor();
    const rules = (await api.get('flow/macqos')).data as { items: Array<{ name: string; usernet: string }> };
    expect(rules.items.find((r) => r.name === 'tablet')?.usernet).toBe('02:00:00:00:00:13');
    expect(consoleErrors).toEqual([]);
  });
});
