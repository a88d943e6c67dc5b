import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, ApiSession, launchBrowser, loginInBrowser, newPage, startDaemon, type RunningDaemon } from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';
const NEW_PASSWORD = 'Wizard2026pass';

let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;

beforeAll(async () => {
  [daemon, browser] = await Promise.all([startDaemon(), launchBrowser()]);
  api = await adminWithPassword(daemon, PASSWORD);
});
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

describe('setup wizard', () => {
  test('WAN by PPPoE through the interface route (confirmed), LAN kept, Wi-Fi later, a new admin password', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    // The dashboard leads to the wizard.
    await page.getByTestId('dashboard-wizard').click();
    await page.waitForURL('**/system/wizard');
    await page.getByTestId('wizard-wan').waitFor();

    await page.getByTestId('wizard-wan-proto').click();
    await page.getByRole('option', { name: 'PPPoE dial-up' }).click();
    await page.getByTestId('wizard-wan-user').fill('home-line');
    await page.getByTestId('wizard-wan-password').fill('line-secret-1');
    await page.getByTestId('wizard-wan-save').click();
    await page.getByTestId('apply-confirm-bar').waitFor();
    await page.getByTestId('apply-confirm-ok').click();
    await page.getByTestId('wizard-lan').waitFor();
    const rows = (await api.get('network')).data as { items: Array<{ role: string; proto: string; pppoe_username: string }> };
    expect(rows.items.find((row) => row.role === 'wan')).toMatchObject({ proto: 'pppoe', pppoe_username: 'home-line' });

    await page.getByTestId('wizard-lan').getByTestId('wizard-skip').click();
    await page.getByTestId('wizard-wifi-later').click();
    // The time step is the Time page's own form: a zone of the device's database, saved.
    await page.getByTestId('wizard-time').getByTestId('field-timezone').fill('Europe/Berlin');
    await page.getByTestId('wizard-time').getByTestId('entity-save').click();
    await page.getByTestId('modpwd-old').fill(PASSWORD);
    await page.getByTestId('modpwd-new').fill(NEW_PASSWORD);
    await page.getByTestId('modpwd-confirm').fill(NEW_PASSWORD);
    await page.getByTestId('modpwd-submit').click();
    await page.getByTestId('wizard-done').waitFor();

    const fresh = new ApiSession(daemon.url);
    expect((await fresh.login('admin', NEW_PASSWORD)).success).toBe(true);
    expect(((await fresh.get('sysconf/time')).data as { timezone: string }).timezone).toBe('Europe/Berlin');
    await context.close();
  });
});
