import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { signFirmware } from '../../apps/daemon/src/domains/maintain/maintain-firmware-image.js';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';
const NEW_VERSION = '99.0.0';
const keys = generateKeyPairSync('ed25519');
const image = signFirmware(Buffer.alloc(512 * 1024, 0x61), NEW_VERSION, keys.privateKey);

/** The update server on loopback; the image's second half waits until the test releases it. */
let held: { res: ServerResponse; rest: Buffer } | null = null;
const updates: Server = createServer((req, res) => {
  if (req.url === '/fw/latest.json') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ version: NEW_VERSION, url: 'portico-99.img', size: image.length }));
    return;
  }
  if (req.url === '/fw/portico-99.img') {
    res.setHeader('content-length', String(image.length));
    const half = image.length / 2;
    res.write(image.subarray(0, half));
    held = { res, rest: image.subarray(half) };
    return;
  }
  res.statusCode = 404;
  res.end();
});

let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;
let files: string;

beforeAll(async () => {
  files = mkdtempSync(join(tmpdir(), 'portico-e2e-fw-'));
  const keyFile = join(files, 'firmware.pem');
  writeFileSync(keyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }));
  await new Promise<void>((resolve) => updates.listen(0, '127.0.0.1', resolve));
  const updateUrl = `http://127.0.0.1:${(updates.address() as AddressInfo).port}/fw/latest.json`;
  [daemon, browser] = await Promise.all([startDaemon({ PORTICO_UPDATE_URL: updateUrl, PORTICO_FIRMWARE_KEY: keyFile }), launchBrowser()]);
  api = await adminWithPassword(daemon, PASSWORD);
});
afterAll(async () => {
  held?.res.end(held.rest);
  await browser?.close();
  await daemon?.stop();
  await new Promise((resolve) => updates.close(resolve));
  if (files) rmSync(files, { recursive: true, force: true });
});

describe('firmware upgrade in the console', () => {
  test('check, download with its counter across a reload, file check, upgrade and restart into the new version', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/system/systemmaintain`);
    const card = page.getByTestId('maintain-firmware');
    await card.getByTestId('firmware-check').click();
    await card.getByTestId('firmware-available').filter({ hasText: `Version ${NEW_VERSION}` }).waitFor();

    await card.getByTestId('firmware-download').click();
    await expect.poll(() => held !== null).toBe(true);
    const text = card.getByTestId('firmware-progress-text');
    await text.filter({ hasText: /^Downloading the firmware… 50 % · \d+ s$/ }).waitFor();

    // A reload finds the download running on the device, its counter still counting.
    await page.reload();
    await card.getByTestId('firmware-progress').waitFor();
    expect(await card.getByTestId('firmware-progress').getAttribute('data-operation')).toBe('download');
    await page.waitForFunction(() => /Downloading the firmware… 50 % · [1-9]\d* s/.test(document.querySelector('[data-testid="firmware-progress-text"]')?.textContent ?? ''));

    held!.res.end(held!.rest);
    held = null;
    // The console checks the file once it is down, then asks whether to upgrade now.
    await card.getByTestId('firmware-verified').filter({ hasText: `version ${NEW_VERSION} has passed its check` }).waitFor();
    await card.getByTestId('firmware-upgrade').click();
    await page.getByTestId('firmware-keep-config').waitFor();
    expect(await page.getByTestId('firmware-keep-config').isChecked()).toBe(true);
    await page.getByTestId('firmware-upgrade-ok').click();

    // The device restarts into the new slot: the counter, then the page reloads.
    const progress = page.getByTestId('maintain-progress-text');
    await progress.filter({ hasText: /^Upgrading the firmware and rebooting… \d+ s$/ }).waitFor({ timeout: 60_000 });
    await page.getByTestId('maintain-progress-back').waitFor({ timeout: 90_000 });
    await page.getByTestId('maintain-progress').waitFor({ state: 'detached' });
    await card.getByTestId('firmware-current').filter({ hasText: NEW_VERSION }).waitFor();
    expect(await card.getByTestId('firmware-slots').textContent()).toContain('B running');
    const state = (await api.get('sysconf/bgcheck')).data as { current: string; slots: { trial: unknown } };
    expect(state).toMatchObject({ current: NEW_VERSION, slots: { trial: null } });
    await context.close();
  });

  test('an uploaded file that is not signed is refused as possibly corrupt', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/system/systemmaintain`);
    const card = page.getByTestId('maintain-firmware');
    const bogus = join(files, 'bogus.img');
    writeFileSync(bogus, Buffer.alloc(4096, 0x42));
    await card.locator('input[type="file"]').setInputFiles(bogus);
    await card.getByTestId('firmware-upload').click();
    await card.getByTestId('firmware-error').filter({ hasText: 'Firmware file may be corrupt (no signature).' }).waitFor();
    expect(await card.getByTestId('firmware-upgrade').count()).toBe(0);
    await context.close();
  });
});
