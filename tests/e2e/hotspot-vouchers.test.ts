import { describe, expect, test } from 'vitest';
import { VOUCHER_ALPHABET } from '@portico/schema';
import { consoleFixture, loginInBrowser, newPage } from './e2e-harness.js';

const fx = consoleFixture();

async function planNames(): Promise<string[]> {
  const reply = await fx.api.get('auth/tariff');
  return (reply.data as { items: Array<{ name: string }> }).items.map((p) => p.name);
}

describe('hotspot billing plans and vouchers end to end', () => {
  test('create a billing plan, generate a voucher batch on it and see the printable sheet', async () => {
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'admin', 'AdminPassw0rd');
    await page.waitForURL('**/dashboard');

    await page.goto(`${fx.daemon.url}/hotspot/billingplan/add`);
    await page.getByTestId('entity-form').waitFor();
    await page.getByTestId('field-name').fill('day');
    await page.getByTestId('field-effecttime').fill('24');
    await page.getByTestId('entity-save').click();
    await page.waitForURL('**/hotspot/billingplan');
    await expect.poll(planNames).toContain('day');

    await page.goto(`${fx.daemon.url}/hotspot/voucherbatch`);
    await page.getByTestId('voucher-batch-form').waitFor();
    await page.getByTestId('voucher-name').fill('lobby');
    await page.getByTestId('voucher-amount').fill('3');
    // The plan is chosen among the billing plans, not typed.
    await page.getByTestId('voucher-plan').click();
    await page.getByRole('option', { name: 'day' }).click();
    await page.getByTestId('voucher-create').click();

    await page.getByTestId('voucher-sheet').waitFor();
    await expect.poll(() => page.getByTestId('voucher-card').count()).toBe(3);
    const codes = (await page.getByTestId('voucher-code').allTextContents()).map((c) => c.replace(/-/g, ''));
    expect(new Set(codes).size).toBe(3);
    for (const code of codes) {
      expect(code).toHaveLength(8);
      expect([...code].every((c) => VOUCHER_ALPHABET.includes(c))).toBe(true);
    }
    // The default capability string has `qrcode`: every card carries its QR image.
    await expect.poll(() => page.getByTestId('voucher-qr').count()).toBe(3);

    // Back on the list, the batch counts three unused vouchers; no code is listed anywhere.
    await page.getByTestId('voucher-sheet-close').click();
    await page.getByTestId('voucher-batch-row').first().waitFor();
    expect(await page.getByTestId('voucher-batches').textContent()).toContain('3 / 0 / 0');
    const batches = (await fx.api.get('auth/voucherbatch')).data as { items: Array<{ name: string; plan: string }> };
    expect(batches.items.find((b) => b.name === 'lobby')?.plan).toBe('day');
    const listed = JSON.stringify(await fx.api.get('auth/voucher'));
    for (const code of codes) expect(listed).not.toContain(code);
    await context.close();
  });
});
