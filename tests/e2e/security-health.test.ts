import { join } from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { consoleFixture, loginInBrowser, newPage } from './e2e-harness.js';

/*
 * The Security section's health monitoring and health check pages on the simulated device, in
 * a real browser. The simulator sends no packets, so the page says the LAN probes do not run;
 * the report's disk, memory and links are real readings. An event whose stored text holds
 * markup (as a tampered database could) shows as text and runs nothing.
 */

const PASSWORD = 'HealthPassw0rd';
const fixture = consoleFixture(PASSWORD);
// The daemon's own SQLite binding, to put a hostile row where the page reads events.
const Database = createRequire(join(import.meta.dirname, '../../apps/daemon/package.json'))('better-sqlite3') as typeof import('better-sqlite3');

describe('Security pages', () => {
  test('health: report, probes not running on sim, an event shown as text, an event switch saved on the device', async () => {
    const { daemon, browser, api } = fixture;
    const db = new Database(join(daemon.stateDir, 'portico.db'));
    db.prepare('INSERT INTO health_events (time, kind, interface, port, ip, mac) VALUES (?, ?, ?, ?, ?, ?)').run(
      Date.now(),
      'dhcpServer',
      '<img src=x onerror=alert(1)>',
      '',
      '10.0.0.9',
      '02:66:66:66:66:66',
    );
    // A conflict between two clients names both MACs; the second one tampered with too.
    db.prepare('INSERT INTO health_events (time, kind, interface, port, ip, mac, other_mac) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      Date.now(),
      'ipConflict',
      'lan',
      '',
      '192.168.11.77',
      '02:aa:00:00:00:01',
      '<img src=y onerror=alert(2)>',
    );
    db.close();
    const { context, page } = await newPage(browser);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
      await page.waitForURL('**/dashboard');
      await page.goto(`${daemon.url}/security/health`);
      await expect.poll(() => page.getByTestId('health-page').textContent()).toContain('Monitored every 10 s');
      await expect.poll(() => page.getByTestId('health-probes-unsupported').count()).toBe(1);
      await expect.poll(() => page.getByTestId('health-disk').locator('tbody tr').first().textContent()).toMatch(/%/);
      await expect.poll(() => page.getByTestId('health-memory').textContent()).toMatch(/%/);

      const events = page.getByTestId('health-events');
      await expect.poll(() => events.textContent()).toContain('Another DHCP service on <img src=x onerror=alert(1)>: address 10.0.0.9, MAC 02:66:66:66:66:66');
      await expect.poll(() => events.textContent()).toContain('IP address conflict on lan: 192.168.11.77 is claimed by MAC 02:aa:00:00:00:01 and MAC <img src=y onerror=alert(2)>');
      expect(await page.locator('img[src="x"], img[src="y"]').count()).toBe(0);

      const loopSwitch = page.getByTestId('health-event-settings').getByLabel('Record a network loop');
      await expect.poll(() => loopSwitch.isChecked()).toBe(true);
      await loopSwitch.click({ force: true });
      await expect.poll(async () => ((await api.get('sysconf/events')).data as Record<string, boolean>).loop).toBe(false);
      await page.reload();
      await expect.poll(() => page.getByTestId('health-event-settings').getByLabel('Record a network loop').isChecked()).toBe(false);
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('examination: a quick check, then a full one, each item with its result', async () => {
    const { daemon, browser } = fixture;
    const { context, page } = await newPage(browser);
    try {
      await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
      await page.waitForURL('**/dashboard');
      await page.goto(`${daemon.url}/security/examination`);
      await expect.poll(() => page.getByTestId('check-status').textContent()).toBe('No check has run yet.');
      await page.getByTestId('check-quick').click();
      await expect.poll(() => page.getByTestId('check-status').textContent()).toMatch(/^Checked at /);
      const items = page.getByTestId('check-items');
      await expect.poll(() => items.textContent()).toContain('Disk in use');
      // The simulator does not probe its LANs: those items are unknown, never "none found".
      await expect.poll(() => items.locator('tr', { hasText: 'Network loops' }).textContent()).toContain('Not probed on this device');
      expect(await items.textContent()).not.toContain('SD-LAN');

      await page.getByTestId('check-full').click();
      await expect.poll(() => items.textContent()).toContain('SD-LAN not enabled');
      await expect.poll(() => page.getByTestId('check-status').textContent()).toMatch(/^Checked at /);
      await expect.poll(() => items.locator('tr', { hasText: 'DNS' }).first().textContent()).toContain('No upstream DNS server');
      expect(await items.locator('[data-result="ok"]').count()).toBeGreaterThan(0);
      await expect.poll(() => page.getByTestId('check-full').textContent()).toBe('Check again');
      // The check's speed test is the WAN speed test page.
      await page.getByTestId('check-speedtest').click();
      await page.waitForURL('**/security/speedtest');
    } finally {
      await context.close();
    }
  });
});
