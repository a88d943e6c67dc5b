import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type RunningDaemon } from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';
const SERIAL = '02aabbccdd42';

let daemon: RunningDaemon;
let browser: Browser;

beforeAll(async () => {
  [daemon, browser] = await Promise.all([startDaemon(), launchBrowser()]);
  await adminWithPassword(daemon, PASSWORD);
});
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

describe('a device certificate from the AP list', () => {
  test('the administrator issues one for a serial and downloads the key, the certificate and the device CA', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/wirelessmanage/aplist`);
    await page.getByTestId('device-certificate').click();
    await page.getByTestId('certificate-serial').fill('not-a-serial');
    await expect(page.getByTestId('certificate-issue').isDisabled()).resolves.toBe(true);
    await page.getByTestId('certificate-serial').fill(SERIAL);
    await page.getByTestId('certificate-issue').click();
    await page.getByTestId('certificate-files').waitFor();

    const download = async (testId: string) => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
      return { name: file.suggestedFilename(), text: await readFile((await file.path())!, 'utf8') };
    };
    const key = await download('certificate-key');
    const cert = await download('certificate-cert');
    const ca = await download('certificate-ca');
    expect([key.name, cert.name, ca.name]).toEqual(['key.pem', 'cert.pem', 'ca.pem']);
    expect(key.text).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const device = new X509Certificate(cert.text);
    const authority = new X509Certificate(ca.text);
    expect(device.subject).toBe(`CN=${SERIAL}`);
    expect(device.checkIssued(authority) && device.verify(authority.publicKey)).toBe(true);
    expect(device.checkPrivateKey((await import('node:crypto')).createPrivateKey(key.text))).toBe(true);
    await context.close();
  });
});
