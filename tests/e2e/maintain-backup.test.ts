import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  adminWithPassword,
  launchBrowser,
  loginInBrowser,
  newPage,
  startDaemon,
  type ApiSession,
  type RunningDaemon,
} from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';
const VPN_PASSWORD = 'Office-Vpn-Secret-9';
const PASSPHRASE = 'carry-me-over-2025';

let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;
let files: string;

beforeAll(async () => {
  [daemon, browser] = await Promise.all([startDaemon({ PORTICO_LAN_PORTS: 'eth1' }), launchBrowser()]);
  api = await adminWithPassword(daemon, PASSWORD);
  files = mkdtempSync(join(tmpdir(), 'portico-e2e-backup-'));
});
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

async function vpnClients(): Promise<Array<{ id: string; name: string }>> {
  const reply = await api.get('vpnclient');
  return (reply.data as { items: Array<{ id: string; name: string }> }).items;
}

async function addOffice(): Promise<void> {
  const added = await api.post('vpnclient', { action: 'add', type: 'pptp', name: 'office', server: 'vpn.example.com', username: 'branch', password: VPN_PASSWORD });
  expect(added.success).toBe(true);
}

async function removeAll(): Promise<void> {
  const ids = (await vpnClients()).map((c) => c.id);
  if (ids.length) expect((await api.post('vpnclient', { action: 'delete', ids })).success).toBe(true);
}

/** Clicks download and saves what the browser receives. */
async function downloadThroughConsole(page: Page, name: string): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('backup-download').click()]);
  expect(download.suggestedFilename()).toMatch(/^portico-config-\d{8}T\d{6}\.tar\.gz$/);
  const file = join(files, name);
  await download.saveAs(file);
  return file;
}

async function restoreThroughConsole(page: Page, file: string, passphrase = ''): Promise<void> {
  // The console's file input keeps the browser's own input hidden inside it.
  await page.getByTestId('maintain-restore').locator('input[type="file"]').setInputFiles(file);
  await page.getByTestId('restore-passphrase').fill(passphrase);
  await page.getByTestId('restore-upload').click();
  await page.getByTestId('restore-ok').click();
}

describe('backup and restore in the console', () => {
  test('download a backup, lose a setting, restore it, reboot to apply', async () => {
    await addOffice();
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/system/systemmaintain`);
    await page.getByTestId('maintain-backup').waitFor();

    const file = await downloadThroughConsole(page, 'device.tar.gz');
    const tar = gunzipSync(readFileSync(file));
    expect(tar.includes(Buffer.from('manifest.json'))).toBe(true);
    expect(tar.includes(Buffer.from(VPN_PASSWORD))).toBe(false);
    await page.getByTestId('notice-success').first().waitFor();

    await removeAll();
    expect(await vpnClients()).toEqual([]);

    await restoreThroughConsole(page, file);
    await page.getByTestId('restore-done').waitFor();
    await expect.poll(async () => (await vpnClients()).map((c) => c.name)).toEqual(['office']);
    await page.getByTestId('restore-reboot-pending').waitFor();

    // Reboot to apply: a counter while the (simulated) device restarts, then the page reloads.
    await page.getByTestId('restore-reboot').click();
    const text = page.getByTestId('maintain-progress-text');
    await text.waitFor();
    expect(await text.textContent()).toMatch(/^Rebooting… \d+ s$/);
    await page.waitForFunction(() => /Rebooting… [1-9]\d* s/.test(document.querySelector('[data-testid="maintain-progress-text"]')?.textContent ?? ''));
    await page.getByTestId('maintain-progress-back').waitFor({ timeout: 90_000 });
    // The reload clears the counter; the restart applied the restored configuration.
    await page.getByTestId('maintain-progress').waitFor({ state: 'detached' });
    await page.getByTestId('maintain-backup').waitFor();
    await expect.poll(() => page.getByTestId('restore-reboot-pending').count()).toBe(0);
    expect((await vpnClients()).map((c) => c.name)).toEqual(['office']);
    await context.close();
  });

  test('a passphrase backup: refused without or with a wrong passphrase, restored with it', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/system/systemmaintain`);
    await page.getByTestId('maintain-backup').waitFor();

    await page.getByTestId('backup-passphrase').fill(PASSPHRASE);
    const file = await downloadThroughConsole(page, 'portable.tar.gz');
    await removeAll();

    await restoreThroughConsole(page, file, 'not-the-right-one');
    await page.getByTestId('notice-error').filter({ hasText: 'wrong passphrase' }).waitFor();
    expect(await vpnClients()).toEqual([]);

    await restoreThroughConsole(page, file, PASSPHRASE);
    await page.getByTestId('restore-done').waitFor();
    await expect.poll(async () => (await vpnClients()).map((c) => c.name)).toEqual(['office']);
    await page.getByTestId('restore-later').click();
    await context.close();
  });

  test('a file that is not a backup is refused and nothing changes', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/system/systemmaintain`);
    await page.getByTestId('maintain-restore').waitFor();
    const bogus = join(files, 'bogus.tar.gz');
    writeFileSync(bogus, 'not a backup at all');
    const before = await api.get('sysconf/journal');
    await restoreThroughConsole(page, bogus);
    await page.getByTestId('notice-error').filter({ hasText: 'Config upload failed' }).waitFor();
    expect((await api.get('sysconf/journal')).data).toEqual(before.data);
    await context.close();
  });

  test('factory reset: asked first, then a counter until the device is back with the factory configuration', async () => {
    await removeAll();
    await addOffice();
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/system/systemmaintain`);
    await page.getByTestId('maintain-device').waitFor();

    await page.getByTestId('maintain-reset').click();
    await page.getByTestId('maintain-restart-cancel').click();
    expect((await vpnClients()).map((c) => c.name)).toEqual(['office']);

    await page.getByTestId('maintain-reset').click();
    await page.getByTestId('maintain-restart-ok').click();
    const text = page.getByTestId('maintain-progress-text');
    await text.waitFor();
    expect(await text.textContent()).toMatch(/^Restoring factory defaults and rebooting… \d+ s$/);
    await page.getByTestId('maintain-progress-back').waitFor({ timeout: 90_000 });
    await page.getByTestId('maintain-progress').waitFor({ state: 'detached' });
    expect(await vpnClients()).toEqual([]);
    const journal = (await api.get('sysconf/journal')).data as { items: Array<{ summary: unknown; user: string }> };
    expect(journal.items[0]).toMatchObject({ summary: { key: 'factoryReset' }, user: 'admin' });
    await context.close();
  });
});
