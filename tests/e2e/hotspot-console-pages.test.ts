import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { png } from '../support/upload-fixtures.js';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';

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


async function chooseFile(page: Page, testId: string, name: string, buffer: Buffer): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId(testId).click()]);
  await chooser.setFiles({ name, mimeType: 'image/png', buffer });
}

describe('hotspot console pages in the browser', () => {
  test('the local portal page uploads a logo to the daemon, refuses a wrong size, and removes it', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/hotspot/localportal`);
    await page.getByTestId('portal-uploads').waitFor();
    await expect(page.getByTestId('entity-form').count()).resolves.toBe(1);

    await chooseFile(page, 'portal-file-logo-upload', 'logo.png', png(960, 640));
    await expect.poll(() => page.getByTestId('portal-file-logo-current').textContent()).toContain('logo.png');
    // Kept by the daemon: a fresh load shows it again.
    await page.reload();
    await expect.poll(() => page.getByTestId('portal-file-logo-current').textContent()).toContain('960');

    await chooseFile(page, 'portal-file-logo-upload', 'small.png', png(800, 600));
    await page.getByTestId('portal-file-logo-error').waitFor();
    await expect(page.getByTestId('portal-file-logo-current').textContent()).resolves.toContain('logo.png');

    // Removing asks first; declining keeps the file.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByTestId('portal-file-logo-delete').click();
    await expect(page.getByTestId('portal-file-logo-current').textContent()).resolves.toContain('logo.png');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByTestId('portal-file-logo-delete').click();
    await expect.poll(() => page.getByTestId('portal-file-logo-current').textContent()).not.toContain('logo.png');
    await context.close();
  });

  test('the white list sub-routes show the entries of their own type', async () => {
    const add = (type: string, value: string) => api.post('auth/whitelist', { action: 'add', type, value, comment: '<b>x</b>' });
    expect((await add('mac', 'aa:bb:cc:dd:ee:01')).success).toBe(true);
    expect((await add('ip', '203.0.113.7')).success).toBe(true);
    expect((await add('url', 'example.org')).success).toBe(true);
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    const rows = async (path: string) => {
      await page.goto(`${daemon.url}${path}`);
      await page.getByTestId('hotspot-list').waitFor();
      await expect.poll(() => page.locator('[data-testid^="entity-row-"]').count()).toBeGreaterThan(0);
      return page.locator('[data-testid^="entity-row-"]').allTextContents();
    };
    expect((await rows('/hotspot/whitelistconfig')).length).toBe(3);
    const macs = await rows('/hotspot/whitelistconfig/macedit');
    expect(macs).toHaveLength(1);
    expect(macs[0]).toContain('aa:bb:cc:dd:ee:01');
    // Shown as text, never as markup.
    expect(macs[0]).toContain('<b>x</b>');
    expect(await rows('/hotspot/whitelistconfig/ipedit')).toEqual([expect.stringContaining('203.0.113.7')]);
    expect(await rows('/hotspot/whitelistconfig/domainedit')).toEqual([expect.stringContaining('example.org')]);
    await context.close();
  });
});
