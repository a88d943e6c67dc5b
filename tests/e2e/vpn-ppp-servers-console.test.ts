import { describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { consoleFixture, loginInBrowser, newPage } from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';
const fixture = consoleFixture(PASSWORD);

const settings = async (kind: string) => (await fixture.api.get(`auth/${kind}`)).data as Record<string, unknown>;

async function open(page: Page, route: string): Promise<void> {
  await page.goto(`${fixture.daemon.url}${route}`);
  await page.getByTestId('entity-form').waitFor();
  // The status panel: nothing dials on the sim driver.
  await expect.poll(() => page.getByTestId('ppp-running').textContent()).toBe('STOPPED');
}

describe('PPP servers in the console', () => {
  test('PPTP, L2TP/IPsec and PPPoE servers configured from their generated forms, with §5 rules on their fields', async () => {
    const { context, page } = await newPage(fixture.browser);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await loginInBrowser(page, fixture.daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');

    // PPTP: a local IP inside the remote range is refused on its field, then saved.
    await open(page, '/vpnserver/pptpservice');
    await page.getByTestId('field-enabled').check();
    await page.getByTestId('field-localip').fill('10.0.20.50');
    await page.getByTestId('entity-save').click();
    await expect.poll(() => page.getByTestId('field-error-localip').textContent()).toBe('The local IP must not be inside the remote IP range.');
    await page.getByTestId('field-localip').fill('10.0.20.1');
    await page.getByTestId('field-msdns').fill('192.168.11.1');
    await page.getByTestId('entity-save').click();
    await expect.poll(async () => (await settings('pptp')).enabled, { timeout: 15_000 }).toBe(true);
    expect(await settings('pptp')).toMatchObject({ localip: '10.0.20.1', msdns: '192.168.11.1', mppe: true });

    // L2TP over IPsec: the pre-shared key is required, and never read back.
    await open(page, '/vpnserver/l2tpservice');
    await page.getByTestId('field-enabled').check();
    await page.getByTestId('field-ipsec').check();
    await page.getByTestId('entity-save').click();
    await expect.poll(() => page.getByTestId('field-error-psk').textContent()).toBe('This field is required.');
    await page.getByTestId('field-psk').fill('L2tp-shared-key');
    await page.getByTestId('entity-save').click();
    await expect.poll(async () => (await settings('l2tp')).ipsec, { timeout: 15_000 }).toBe(true);
    expect((await settings('l2tp')).psk).toBeUndefined();

    // PPPoE: an interface is required when enabled; MPPE needs MS-CHAP (advanced tab).
    await open(page, '/hotspot/ppoeservice');
    await page.getByTestId('field-enabled').check();
    await page.getByTestId('entity-save').click();
    await expect.poll(() => page.getByTestId('field-error-interfaces').textContent()).toBe('This field is required.');
    await page.getByTestId('field-interfaces').click();
    await page.getByRole('option', { name: 'lan', exact: true }).click();
    // A multiple choice stays open for more: close it.
    await page.keyboard.press('Escape');
    await page.getByTestId('field-pppoeonly').check();
    // Remind expired users sets the range's last quarter aside: a range of 3 is refused on its field.
    await page.getByTestId('field-remindexpired').check();
    await page.getByTestId('field-remoteip').fill('10.0.40.10-10.0.40.12');
    await page.getByTestId('entity-save').click();
    await expect
      .poll(() => page.getByTestId('field-error-remoteip').textContent())
      .toBe('With "Remind expired users" the range must hold at least 4 addresses (its last quarter is set aside for expired accounts).');
    await page.getByTestId('field-remoteip').fill('10.0.40.10-10.0.40.200');
    await page.getByTestId('tab-advanced').click();
    // MPPE keys come out of MS-CHAP: with PAP alone the rule lands on the MPPE switch.
    const choose = async (field: string, ...options: string[]) => {
      await page.getByTestId(field).click();
      for (const option of options) await page.getByRole('option', { name: option, exact: true }).click();
      await page.keyboard.press('Escape');
    };
    await choose('field-authproto', 'MS-CHAPv2', 'PAP');
    await page.getByTestId('field-mppe').check();
    await page.getByTestId('field-mtu').fill('1400');
    await page.getByTestId('entity-save').click();
    await expect.poll(() => page.getByTestId('field-error-mppe').textContent()).toBe('MPPE needs MS-CHAP or MS-CHAPv2 among the protocols.');
    await choose('field-authproto', 'MS-CHAPv2');
    await page.getByTestId('entity-save').click();
    await expect.poll(async () => (await settings('pppoe')).enabled, { timeout: 15_000 }).toBe(true);
    expect(await settings('pppoe')).toMatchObject({ interfaces: ['lan'], pppoeonly: true, remindexpired: true, mtu: 1400, mppe: true, authproto: ['pap', 'mschap-v2'] });
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
  // Saved again with its IPsec key left empty: the stored key is kept, not asked for again.
  test('accounts from RADIUS: refused on the field until the RADIUS server is set up, then saved', async () => {
    const { context, page } = await newPage(fixture.browser);
    await loginInBrowser(page, fixture.daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await open(page, '/vpnserver/l2tpservice');
    await page.getByTestId('field-enabled').check();
    await page.getByTestId('tab-advanced').click();
    await page.getByTestId('field-authway').click();
    await page.getByRole('option', { name: 'RADIUS server', exact: true }).click();
    await page.getByTestId('entity-save').click();
    await expect.poll(() => page.getByTestId('field-error-authway').textContent()).toBe('Accounts from RADIUS need the RADIUS server (Hotspot > RADIUS) enabled with an IPv4 address.');
    expect((await settings('l2tp')).authway).toBe('local');
    expect((await fixture.api.post('auth/radius', { enabled: true, radiusip: '192.0.2.10', sharekey: 'Radius-Key1' })).success).toBe(true);
    await page.getByTestId('entity-save').click();
    await expect.poll(async () => (await settings('l2tp')).authway, { timeout: 15_000 }).toBe('radius');
    expect(await settings('l2tp')).toMatchObject({ enabled: true, ipsec: true });
    await context.close();
  }, 180_000);
});
