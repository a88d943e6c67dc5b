import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type RunningDaemon } from './e2e-harness.js';

/*
 * The DHCP lease page on the simulated device, in a real browser: leases of the simulated
 * clients are listed, the state filter narrows them, and host names that clients announce with
 * markup in them show as text and run nothing.
 */

const PASSWORD = 'LeasePassw0rd';
let browser: Browser;
let daemon: RunningDaemon;

beforeAll(async () => {
  browser = await launchBrowser();
  // A LAN port, so the factory network with its DHCP pool is laid down on first start.
  daemon = await startDaemon({ PORTICO_DRIVER: 'sim', PORTICO_LAN_PORTS: 'eth1' });
  await adminWithPassword(daemon, PASSWORD);
});
afterAll(async () => {
  await daemon?.stop();
  await browser?.close();
});

describe('DHCP lease page', () => {
  test('lists leases, filters by state, and shows hostile host names as plain text', async () => {
    const { context, page } = await newPage(browser);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
      await page.waitForURL('**/dashboard');
      await page.goto(`${daemon.url}/sysstatus/dhcplease`);
      const table = page.getByTestId('dhcp-lease-table');
      await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThan(5);
      await expect.poll(() => page.getByTestId('dhcp-lease-page').textContent()).toContain('192.168.11.100');

      // The simulated clients include names made of markup; they must arrive as text.
      const names = await page.getByTestId('lease-hostname').allTextContents();
      expect(names).toContain('<img src=x onerror=alert(1)>');
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      expect(await page.locator('[data-testid="dhcp-lease-table"] script').count()).toBe(0);

      // Only free addresses after choosing "Free": no MAC, no host name.
      await page.getByTestId('lease-status-filter').getByText(/^Free/).click();
      await expect
        .poll(async () => {
          const rows = await table.locator('tbody tr').allTextContents();
          return rows.length > 0 && rows.every((r) => r.includes('Free') && !/[0-9a-f]{2}(:[0-9a-f]{2}){5}/.test(r));
        })
        .toBe(true);

      // And only active leases after choosing "Active".
      await page.getByTestId('lease-status-filter').getByText(/^Active/).click();
      await expect
        .poll(async () => {
          const rows = await table.locator('tbody tr').allTextContents();
          return rows.length > 0 && rows.every((r) => r.includes('Active') && /[0-9a-f]{2}(:[0-9a-f]{2}){5}/.test(r));
        })
        .toBe(true);
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
