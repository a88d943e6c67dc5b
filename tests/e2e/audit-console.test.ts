import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import Database from 'better-sqlite3';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';

/*
 * The Security pages of the behaviour audit and the speed test in Chromium, against the built
 * daemon (sim driver). Records are written into the audit's store file as the capture writes
 * them, hostile ones among them: a host `<script>` and a path of markup read as typed text.
 */

const PASSWORD = 'AdminPassw0rd';
const NOW = Date.now();

let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;

/** 192.168.11.50 as the store keeps it. */
const ip = (text: string) => text.split('.').reduce((n, part) => n * 256 + Number(part), 0);

beforeAll(async () => {
  [daemon, browser] = await Promise.all([startDaemon(), launchBrowser()]);
  api = await adminWithPassword(daemon, PASSWORD);
  // The status read opens the store on the device's own storage.
  expect((await api.get('sysconf/auditdisk')).success).toBe(true);
  const db = new Database(join(daemon.stateDir, 'audit', 'audit.db'));
  const url = db.prepare('INSERT INTO url (ts, client, server, port, kind, host, path) VALUES (?, ?, ?, ?, ?, ?, ?)');
  url.run(NOW - 60_000, ip('192.168.11.50'), ip('192.0.2.80'), 80, 0, 'news.example.test', '/today?x=1');
  url.run(NOW - 30_000, ip('192.168.11.66'), ip('192.0.2.81'), 80, 0, '<script>window.__pwned=1</script>', '/<img src=x onerror=window.__pwned=2>');
  url.run(NOW - 20_000, ip('192.168.11.50'), ip('192.0.2.82'), 443, 1, 'secure.example.test', '');
  db.prepare('INSERT INTO flow (ts, client, cport, server, port, proto) VALUES (?, ?, ?, ?, ?, ?)').run(NOW - 10_000, ip('192.168.11.50'), 40000, ip('192.0.2.80'), 80, 6);
  db.close();
});
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

describe('behaviour audit pages', () => {
  test('records, search, hostile hosts shown as text, the export download', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/security/behavioraudit`);
    await page.getByTestId('audit-urls-table').waitFor();
    await page.getByText('news.example.test').waitFor();
    // Markup in a recorded host or path is text on the page, never an element.
    await page.getByText('<script>window.__pwned=1</script>').waitFor();
    await page.getByText('/<img src=x onerror=window.__pwned=2>').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('[data-testid="audit-urls-table"] img').count()).toBe(0);
    await expect.poll(() => page.getByTestId('audit-count-urls').textContent()).toContain('3');

    await page.getByTestId('audit-client').fill('192.168.11.50');
    await page.getByTestId('audit-search').click();
    await expect.poll(() => page.getByTestId('audit-host').count()).toBe(2);
    await page.getByTestId('audit-text').fill('secure');
    await page.getByTestId('audit-search').click();
    await expect.poll(() => page.getByTestId('audit-host').allTextContents()).toEqual(['secure.example.test']);

    await page.goto(`${daemon.url}/security/behavioraudit/urlexport`);
    await page.getByTestId('audit-urls-table').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('audit-export').click()]);
    expect(download.suggestedFilename()).toBe('audit-urls.csv');

    await page.goto(`${daemon.url}/security/behavioraudit/ipexport`);
    await page.getByTestId('audit-flows-table').getByText('40000').waitFor();
    await context.close();
  }, 120_000);

  test('settings: the disks with their retention; the audit switched on and saved', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/security/behavioraudit/config`);
    await page.getByTestId('audit-disks').waitFor();
    await page.getByTestId('audit-enabled').check();
    await page.getByTestId('audit-save').click();
    await expect.poll(async () => ((await api.get('sysconf/audit')).data as { enabled?: boolean }).enabled, { timeout: 15_000 }).toBe(true);
    await context.close();
  }, 120_000);
});

describe('speed test page', () => {
  test('the server is validated and saved; a simulated device measures nothing', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/security/speedtest`);
    await page.getByTestId('speedtest-server').waitFor();
    await page.getByTestId('speedtest-server').fill('<script>');
    await page.getByTestId('speedtest-save').click();
    await page.getByText('Please review fields again').first().waitFor();
    await page.getByTestId('speedtest-server').fill('192.0.2.80');
    await page.getByTestId('speedtest-save').click();
    await expect.poll(async () => ((await api.get('sysconf/speedtest')).data as { server?: string }).server, { timeout: 15_000 }).toBe('192.0.2.80');
    await page.getByTestId('speedtest-start').click();
    await page.getByText('A simulated device measures no WAN').first().waitFor();
    await context.close();
  }, 120_000);
});
