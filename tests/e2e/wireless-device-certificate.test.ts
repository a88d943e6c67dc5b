import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type RunningDaemon } from './e2e-harness.js';

const PASSWORD = 'AdminPassw0rd';
const SERIAL = '02aabbccdd42';
const OWN_KEY_SERIAL = '02aabbccdd43';

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

  test('a device that made its own key pastes its request: a wrong subject is shown on the field, the right one gives the certificate and the CA, no key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-csr-'));
    const request = (subject: string) =>
      execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'key.pem'), '-subj', subject], { encoding: 'utf8' });
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
    await page.waitForURL('**/dashboard');
    await page.goto(`${daemon.url}/wirelessmanage/aplist`);
    await page.getByTestId('device-certificate').click();
    await page.getByTestId('certificate-serial').fill(OWN_KEY_SERIAL);
    await page.getByTestId('certificate-csr').fill(request('/CN=02aabbccdd99'));
    await page.getByTestId('certificate-issue').click();
    await expect.poll(() => page.getByTestId('certificate-csr').getAttribute('aria-invalid')).toBe('true');
    await page.getByTestId('certificate-csr').fill(request(`/CN=${OWN_KEY_SERIAL}`));
    await page.getByTestId('certificate-issue').click();
    await page.getByTestId('certificate-files').waitFor();
    await expect(page.getByTestId('certificate-key').count()).resolves.toBe(0);
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('certificate-cert').click()]);
    const device = new X509Certificate(await readFile((await file.path())!, 'utf8'));
    expect(device.subject).toBe(`CN=${OWN_KEY_SERIAL}`);
    expect(device.checkPrivateKey(createPrivateKey(readFileSync(join(dir, 'key.pem'), 'utf8')))).toBe(true);
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
