import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type RunningDaemon } from './e2e-harness.js';

/*
 * The Logging pages in a real browser: every /logging route shows the log viewer; the
 * security (DHCP) log shows dnsmasq's lines with a host name made of markup as plain text,
 * filters by text and level, downloads as text and gzip, and cleans after a confirmation.
 */

const PASSWORD = 'LogsPassw0rd';
const HOSTILE = '<img src=x onerror=alert(1)>';
let browser: Browser;
let daemon: RunningDaemon;

/** dnsmasq's stamp (`%b %e %H:%M:%S`, the device's local time) of a moment `minutes` ago. */
function stamp(minutesAgo: number): string {
  const at = new Date(Date.now() - minutesAgo * 60_000);
  const month = at.toLocaleString('en-US', { month: 'short' });
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${month} ${String(at.getDate()).padStart(2, ' ')} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}

beforeAll(async () => {
  browser = await launchBrowser();
  daemon = await startDaemon({ PORTICO_DRIVER: 'sim' });
  await adminWithPassword(daemon, PASSWORD);
  const file = join(daemon.stateDir, 'rendered/var/log/portico/dhcp.log');
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(
    file,
    [
      `${stamp(3)} dnsmasq-dhcp[812]: 1 DHCPDISCOVER(br-lan) 02:00:00:00:00:01`,
      `${stamp(2)} dnsmasq-dhcp[812]: 1 DHCPACK(br-lan) 192.168.11.100 02:00:00:00:00:01 ${HOSTILE}`,
      `${stamp(1)} dnsmasq-dhcp[812]: 2 DHCPNAK(br-lan) 192.168.11.7 02:00:00:00:00:02 wrong network`,
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await daemon?.stop();
  await browser?.close();
});

describe('Logging pages', () => {
  test('every log page shows the viewer; the auth log has the sign-in that opened it', async () => {
    const { context, page } = await newPage(browser);
    try {
      await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
      await page.waitForURL('**/dashboard');
      for (const [route, name] of [['systemlogs', 'system'], ['portlogs', 'port'], ['smslogs', 'sms'], ['wirelesslogs', 'wireless'], ['authlogs', 'auth']] as const) {
        await page.goto(`${daemon.url}/logging/${route}`);
        await page.getByTestId(`log-${name}`).getByTestId('log-table').waitFor();
      }
      await expect.poll(() => page.getByTestId('log-message').allTextContents()).toContain('admin signed in to the console from 127.0.0.1');
    } finally {
      await context.close();
    }
  });

  test('the security log shows hostile text as text, filters, downloads and cleans', async () => {
    const { context, page } = await newPage(browser);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      // Only the clean's confirmation is accepted; an alert would mean markup ran.
      void (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss());
    });
    try {
      await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
      await page.waitForURL('**/dashboard');
      await page.goto(`${daemon.url}/logging/securitylogs`);
      const messages = () => page.getByTestId('log-message').allTextContents();
      await expect.poll(messages).toHaveLength(3);
      expect(await messages()).toContain(`1 DHCPACK(br-lan) 192.168.11.100 02:00:00:00:00:01 ${HOSTILE}`);
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      expect(dialogs).toEqual([]);

      // Text filter.
      await page.getByTestId('log-filter-text').fill('dhcpnak');
      await page.getByTestId('log-filter-apply').click();
      await expect.poll(messages).toEqual(['2 DHCPNAK(br-lan) 192.168.11.7 02:00:00:00:00:02 wrong network']);
      // Level filter on its own.
      await page.getByTestId('log-filter-reset').click();
      await expect.poll(messages).toHaveLength(3);
      await page.getByTestId('log-filter-level').click();
      await page.getByRole('option', { name: 'Warning and worse' }).click();
      await page.getByTestId('log-filter-apply').click();
      await expect.poll(messages).toHaveLength(1);
      await page.getByTestId('log-filter-reset').click();
      await expect.poll(messages).toHaveLength(3);

      // Downloads: the browser saves what the daemon streams.
      const [text] = await Promise.all([page.waitForEvent('download'), page.getByTestId('log-download-txt').click()]);
      expect(text.suggestedFilename()).toMatch(/^dhcp-log-\d{8}T\d{6}\.txt$/);
      const plain = readFileSync((await text.path())!, 'utf8');
      expect(plain.trimEnd().split('\n')).toHaveLength(3);
      expect(plain).toContain(`dnsmasq-dhcp: 1 DHCPACK(br-lan) 192.168.11.100 02:00:00:00:00:01 ${HOSTILE}\n`);
      const [zipped] = await Promise.all([page.waitForEvent('download'), page.getByTestId('log-download-gz').click()]);
      expect(zipped.suggestedFilename()).toMatch(/\.txt\.gz$/);
      expect(gunzipSync(readFileSync((await zipped.path())!)).toString('utf8')).toBe(plain);

      // Clean, after the confirmation.
      await page.getByTestId('log-clean').click();
      await expect.poll(messages).toEqual([]);
      expect(dialogs).toHaveLength(1);
      expect(dialogs[0]).toMatch(/^confirm: Delete every entry of the Security/i);
      expect(readFileSync(join(daemon.stateDir, 'rendered/var/log/portico/dhcp.log'), 'utf8')).toBe('');
    } finally {
      await context.close();
    }
  });
});
