import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';

let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;
let files: string;

beforeAll(async () => {
  [daemon, browser] = await Promise.all([startDaemon(), launchBrowser()]);
  api = await adminWithPassword(daemon, PASSWORD);
  files = mkdtempSync(join(tmpdir(), 'portico-e2e-ovpn-'));
});
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

describe('OpenVPN server in the console', () => {
  test('configure the server, add a client (hyphen refused, duplicate refused), download its profile, revoke it', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/vpnserver/openvpnservice`);
    await page.getByTestId('entity-form').waitFor();
    // §9 defaults shown as saved.
    expect(await page.getByTestId('field-port').inputValue()).toBe('1194');
    await page.getByTestId('field-enabled').check();
    await page.getByTestId('field-host').fill('vpn.example.org');
    await page.getByTestId('field-push_routes').fill('192.168.11.0/24');
    await page.getByTestId('entity-save').click();
    await expect.poll(async () => ((await api.get('auth/openvpn')).data as { enabled?: boolean; host?: string }).host, { timeout: 15_000 }).toBe('vpn.example.org');
    expect(((await api.get('auth/openvpn')).data as { enabled: boolean }).enabled).toBe(true);

    await page.getByTestId('openvpn-client-name').fill('road-warrior');
    await page.getByTestId('openvpn-client-add').click();
    await page.getByText('A client name cannot contain a hyphen.').waitFor();
    await page.getByTestId('openvpn-client-name').fill('laptop');
    await page.getByTestId('openvpn-client-remark').fill('sales');
    await page.getByTestId('openvpn-client-add').click();
    await page.getByTestId('openvpn-client-laptop').waitFor();
    await page.getByTestId('openvpn-client-name').fill('laptop');
    await page.getByTestId('openvpn-client-add').click();
    await page.getByText('Client name exists.').waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('openvpn-export-laptop').click()]);
    expect(download.suggestedFilename()).toBe('laptop.ovpn');
    const file = join(files, 'laptop.ovpn');
    await download.saveAs(file);
    const profile = readFileSync(file, 'utf8');
    expect(profile).toContain('remote vpn.example.org 1194\n');
    expect(profile).toMatch(/<cert>\n-----BEGIN CERTIFICATE-----[\s\S]+<key>\n-----BEGIN PRIVATE KEY-----/);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByTestId('openvpn-revoke-laptop').click();
    await page.getByText('Certificate revoked.').waitFor();
    await expect.poll(async () => ((await api.get('auth/openvpn/clients')).data as { items: Array<{ status: string }> }).items[0]?.status).toBe('revoked');
    expect(await page.getByTestId('openvpn-export-laptop').isDisabled()).toBe(true);
    await context.close();
  }, 120_000);
});
