import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { signLicense } from '../../apps/daemon/src/domains/license/license-file.js';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';
const vendor = generateKeyPairSync('ed25519');

/** The licence server on loopback; an answer waits until the test releases it. */
let release: (() => void) | null = null;
const licenses: Server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const ask = JSON.parse(Buffer.concat(chunks).toString()) as { device: string; code: string };
    release = () => {
      res.setHeader('content-type', 'application/json');
      if (ask.code === 'PIRATE-CODE-01') return res.end(JSON.stringify({ result: 'locked' }));
      const license = signLicense({ format: 1, id: 'LIC-500', device: ask.device, edition: 'Enterprise', issued: Date.UTC(2026, 0, 1), expires: null }, vendor.privateKey);
      res.end(JSON.stringify({ result: 'ok', license }));
    };
  });
});

let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;
let files: string;

beforeAll(async () => {
  files = mkdtempSync(join(tmpdir(), 'portico-e2e-lic-'));
  const keyFile = join(files, 'license.pem');
  writeFileSync(keyFile, vendor.publicKey.export({ type: 'spki', format: 'pem' }));
  await new Promise<void>((resolve) => licenses.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(licenses.address() as AddressInfo).port}/activate`;
  [daemon, browser] = await Promise.all([startDaemon({ PORTICO_LICENSE_URL: url, PORTICO_LICENSE_KEY: keyFile }), launchBrowser()]);
  api = await adminWithPassword(daemon, PASSWORD);
});
afterAll(async () => {
  release?.();
  await browser?.close();
  await daemon?.stop();
  await new Promise((resolve) => licenses.close(resolve));
  if (files) rmSync(files, { recursive: true, force: true });
});

describe('licence page', () => {
  test('unlicensed, activating with its counter across a reload, activation success; a copied licence is refused', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/sysstatus/license`);
    const state = page.getByTestId('license-state');
    await state.filter({ hasText: 'Unlicensed' }).waitFor();
    expect(await page.getByTestId('license-activated').textContent()).toBe('Unactivated');

    await page.getByTestId('license-code').fill('GOOD-CODE-0001');
    await page.getByTestId('license-activate').click();
    await expect.poll(() => release !== null).toBe(true);
    await state.filter({ hasText: 'Activating' }).waitFor();
    await page.reload();
    await page.waitForFunction(() => /Activating with the licence server… [1-9]\d* s/.test(document.querySelector('[data-testid="license-progress-text"]')?.textContent ?? ''));
    release!();
    release = null;
    await state.filter({ hasText: 'Activation success' }).waitFor();
    await page.getByTestId('license-id').filter({ hasText: 'LIC-500' }).waitFor();
    expect(await page.getByTestId('license-activated').textContent()).toBe('Activated');

    const copied = join(files, 'copied.lic');
    writeFileSync(copied, signLicense({ format: 1, id: 'LIC-1', device: 'ANOTHER-BOX', edition: 'Standard', issued: 0, expires: null }, vendor.privateKey));
    await page.locator('input[type="file"]').setInputFiles(copied);
    await page.getByTestId('license-import').click();
    await page.getByTestId('notice-error').filter({ hasText: 'The licence file was refused: it belongs to another device.' }).waitFor();
    expect((await api.get('registration')).data).toMatchObject({ isRegister: true, locked: false });
    await context.close();
  });

  test('a code the licence server reports as pirated locks the device with the piracy warning', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/sysstatus/license`);
    await page.getByTestId('license-code').fill('PIRATE-CODE-01');
    await page.getByTestId('license-activate').click();
    await expect.poll(() => release !== null).toBe(true);
    release!();
    release = null;
    await page.getByTestId('license-state').filter({ hasText: 'Locked' }).waitFor();
    await page.getByTestId('license-piracy').filter({ hasText: 'pirated or copied licence' }).waitFor();
    // The dashboard says it too.
    await page.goto(`${daemon.url}/dashboard`);
    await page.getByTestId('dashboard-piracy').filter({ hasText: 'pirated or copied licence' }).waitFor();
    await context.close();
  });
});
