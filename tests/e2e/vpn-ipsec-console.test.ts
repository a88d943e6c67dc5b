import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
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

describe('IPsec server in the console', () => {
  test('a peer added from the generated form: §5 rules shown on their fields, saved, listed; the server status reads STOPPED on sim', async () => {
    const { context, page } = await newPage(browser);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/vpnserver/ipsecservice`);
    await page.getByTestId('entity-list').waitFor();
    await expect.poll(() => page.getByTestId('ipsec-running').textContent()).toBe('STOPPED');

    await page.getByTestId('entity-add').click();
    await page.getByTestId('field-name').fill('branch1');
    await page.getByTestId('field-remote_addr').fill('198.51.100.2');
    await page.getByTestId('field-ike').click();
    await page.getByRole('option', { name: 'IKEv1', exact: true }).click();
    await page.getByTestId('field-local_subnets').fill('192.168.11.0/24');
    await page.getByTestId('field-peer_subnets').fill('10.1.0.0/24 10.2.0.0/24');
    await page.getByTestId('field-local_id').fill('gw.example');
    await page.getByTestId('field-remote_id').fill('gw.example');
    await page.getByTestId('field-psk').fill('Shared-key-1');
    await page.getByTestId('entity-save').click();
    // Each rule's message lands on its own field.
    await expect.poll(() => page.getByTestId('field-error-peer_subnets').textContent()).toBe('IKEv1 allows only one peer subnet.');
    expect(await page.getByTestId('field-error-remote_id').textContent()).toBe('The local and remote IDs must differ.');

    await page.getByTestId('field-peer_subnets').fill('10.1.0.0/24');
    await page.getByTestId('field-remote_id').fill('branch1.example');
    await page.getByTestId('entity-save').click();
    await expect.poll(async () => ((await api.get('auth/ipsec')).data as { items: Array<{ name: string; ike: string; psk?: string }> }).items, { timeout: 15_000 }).toEqual([
      expect.objectContaining({ name: 'branch1', ike: 'ikev1', peer_subnets: '10.1.0.0/24', remote_id: 'branch1.example' }),
    ]);
    await page.goto(`${daemon.url}/vpnserver/ipsecservice`);
    await page.getByText('branch1', { exact: true }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
