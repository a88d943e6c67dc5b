import { describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { freshDaemonFixture, newPage } from './e2e-harness.js';

/**
 * What a newcomer does with a fresh device, in the console alone: sign in with the password
 * the daemon printed, change it, put a hotspot on the factory LAN, sell a voucher, and watch a
 * guest sign in on the captive portal and be sent away again. The built daemon runs on its sim
 * driver with its factory network; Chromium is both the administrator and the guest (a loopback
 * client stands in the first zone's LAN on sim: domains/hotspot/hotspot-client-zone.ts).
 */
const fx = freshDaemonFixture();

const NEW_PASSWORD = 'Lobby2025pass';

/** The password the daemon printed at its first start, as the newcomer reads it. */
async function printedPassword(): Promise<string> {
  const printed = /Initial admin password: (\S+)/;
  await expect.poll(() => printed.test(fx.daemon.output())).toBe(true);
  return printed.exec(fx.daemon.output())![1]!;
}

/**
 * Opens a page from the side menu, unfolding its section when it is folded, and waits until the
 * page itself shows (its heading is the menu's label): until then the previous page may still
 * be on screen.
 */
async function openMenu(page: Page, section: string, item: string): Promise<void> {
  const folder = page.getByTestId(`nav-section-${section}`);
  // The menu arrives with its own request after the page.
  await folder.waitFor();
  const entry = page.getByTestId(`nav-item-${item}`);
  if (!(await entry.isVisible())) await folder.click();
  const label = (await entry.textContent())!.trim();
  await entry.click();
  await page.getByRole('heading', { name: label, exact: true }).waitFor();
}

/** Picks an option of a select field as a person does: opens it and clicks the option. */
async function choose(page: Page, testId: string, option: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe('a newcomer sets up a hotspot and a guest uses it', () => {
  test('from the first sign-in to a voucher guest kicked off', async () => {
    const admin = await newPage(fx.browser);
    const consolePage = admin.page;

    // 1. First sign-in with the printed password, then the forced password change.
    await consolePage.goto(fx.daemon.url);
    await consolePage.waitForURL('**/login');
    await consolePage.getByTestId('login-username').fill('admin');
    await consolePage.getByTestId('login-password').fill(await printedPassword());
    await consolePage.getByTestId('login-submit').click();
    await consolePage.waitForURL('**/modpwd');
    await consolePage.getByTestId('modpwd-old').fill(await printedPassword());
    await consolePage.getByTestId('modpwd-new').fill(NEW_PASSWORD);
    await consolePage.getByTestId('modpwd-confirm').fill(NEW_PASSWORD);
    await consolePage.getByTestId('modpwd-submit').click();
    await consolePage.waitForURL('**/dashboard');

    // 2. A service zone on the factory LAN.
    await openMenu(consolePage, 'hotspot', 'servicezone');
    await consolePage.getByTestId('entity-add').click();
    const drawer = consolePage.getByRole('dialog');
    await drawer.getByTestId('field-name').fill('lobby');
    // The factory LAN is offered by its interface name.
    await choose(consolePage, 'field-ifname', 'lan');
    await drawer.getByTestId('entity-save').click();
    const zoneRow = consolePage.getByRole('row', { name: /lobby/ });
    await zoneRow.getByRole('cell', { name: 'lan', exact: true }).waitFor();

    // 3. A billing plan, then a batch of vouchers on it.
    await openMenu(consolePage, 'hotspot', 'billingplan');
    await consolePage.getByTestId('entity-add').click();
    await consolePage.waitForURL('**/hotspot/billingplan/add');
    await consolePage.getByTestId('field-name').fill('day pass');
    await consolePage.getByTestId('field-effecttime').fill('24');
    await consolePage.getByTestId('entity-save').click();
    await consolePage.waitForURL('**/hotspot/billingplan');
    await consolePage.getByRole('cell', { name: 'day pass', exact: true }).waitFor();

    await openMenu(consolePage, 'hotspot', 'voucherbatch');
    await consolePage.getByTestId('voucher-name').fill('front desk');
    await consolePage.getByTestId('voucher-amount').fill('2');
    await choose(consolePage, 'voucher-plan', 'day pass');
    await consolePage.getByTestId('voucher-create').click();
    await consolePage.getByTestId('voucher-sheet').waitFor();
    // The code as printed for the guest, read off the sheet.
    const code = (await consolePage.getByTestId('voucher-code').first().textContent())!.trim();
    expect(code).not.toBe('');

    // 4. and 5. The guest opens the captive portal and signs in with the voucher.
    const guest = await newPage(fx.browser);
    const portalPage = guest.page;
    await portalPage.goto(`${fx.daemon.portalUrl}/auth/portal`);
    await portalPage.getByTestId('auth-form').waitFor();
    await portalPage.locator('input[name="code"]').fill(code);
    await portalPage.getByTestId('field-acceptTerms').check();
    await portalPage.getByTestId('auth-submit').click();
    await portalPage.getByTestId('auth-success').waitFor();
    expect(await portalPage.getByTestId('session-plan').textContent()).toBe('day pass');

    // 6. The administrator sees the guest online and kicks it off.
    await openMenu(consolePage, 'sysstatus', 'authuserinfo');
    const row = consolePage.getByTestId('online-user-table').locator('tbody tr', { hasText: 'day pass' });
    await row.waitFor();
    consolePage.once('dialog', (dialog) => void dialog.accept());
    await row.getByTestId('online-kick').click();
    await row.waitFor({ state: 'detached' });
    await expect.poll(() => consolePage.getByTestId('online-total').textContent()).toBe('Users online: 0');

    // The guest, whose connection stopped, reloads the portal: it says the device is not
    // connected and offers to sign in again.
    await portalPage.reload();
    await portalPage.getByTestId('auth-not-connected').waitFor();
    await portalPage.getByRole('link', { name: /sign in/i }).click();
    await portalPage.getByTestId('auth-form').waitFor();

    await guest.context.close();
    await admin.context.close();
  });
});
