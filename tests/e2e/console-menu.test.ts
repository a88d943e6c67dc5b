import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  adminWithPassword,
  launchBrowser,
  loginInBrowser,
  newPage,
  startDaemon,
  type RunningDaemon,
} from './e2e-harness.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function menuModules(daemon: RunningDaemon): Promise<{ sections: string[]; items: string[] }> {
  await adminWithPassword(daemon, 'MenuPassw0rd');
  const { context, page } = await newPage(browser);
  await loginInBrowser(page, daemon.url, 'admin', 'MenuPassw0rd');
  await page.waitForURL('**/dashboard');
  // The menu arrives with its own request after the page: read it once it is drawn.
  await page.locator('[data-testid^="nav-section-"]').first().waitFor();
  const sections = await page
    .locator('[data-testid^="nav-section-"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('nav-section-'.length)));
  const items = await page
    .locator('[data-testid^="nav-item-"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('nav-item-'.length)));
  await context.close();
  return { sections, items };
}

describe('menu by capability string', () => {
  test('default capabilities: full Network list, storage, wireless; no iptv; hidden entries not listed', async () => {
    const daemon = await startDaemon();
    try {
      const { sections, items } = await menuModules(daemon);
      expect(sections).toEqual(expect.arrayContaining(['netconf', 'enterprisestorage', 'wirelessmanage', 'cpemanage']));
      expect(items).toEqual(expect.arrayContaining(['multiwan', 'vlan', 'phtunnel', 'cmccweb', 'wifidog', 'stainfo']));
      expect(items).not.toContain('iptv');
      expect(items).not.toContain('dashboard');
      expect(items).not.toContain('vendor999');
    } finally {
      await daemon.stop();
    }
  });

  test('without vlan and nas, with iptv and wifi_cpe, and a disabled module', async () => {
    const daemon = await startDaemon({
      PORTICO_CAPABILITIES: 'gateway iptv wifi_cpe',
      PORTICO_DISABLED_MODULES: 'ddns',
    });
    try {
      const { sections, items } = await menuModules(daemon);
      expect(items).not.toContain('multiwan');
      expect(items).not.toContain('vlan');
      expect(items).toContain('interface');
      expect(sections).not.toContain('enterprisestorage');
      expect(sections).not.toContain('wirelessmanage');
      expect(sections).not.toContain('cpemanage');
      expect(items).not.toContain('stainfo');
      expect(items).toContain('iptv');
      expect(items).not.toContain('ddns');
      expect(items).not.toContain('cmccweb');
      expect(items).not.toContain('phtunnel');
    } finally {
      await daemon.stop();
    }
  });
});
