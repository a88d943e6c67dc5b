import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, launchBrowser, loginInBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';
import { ensureSlapd, PEOPLE, SERVICE, startSlapd, SUFFIX, type Slapd } from '../../apps/daemon/test/hotspot-ldap-fixture.js';

/**
 * The portal in Chromium against the built daemon: a guest of an `sms` zone gets a code through
 * a loopback stand-in for Twilio and signs in with it; a guest of an `ldap` zone signs in with a
 * directory account held by slapd on loopback, after a wrong password shows its message.
 */
let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;
let slapd: Slapd;
const texts: string[] = [];
const twilio = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    texts.push(new URLSearchParams(body).get('Body') ?? '');
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ sid: `SM${texts.length}`, status: 'queued' }));
  });
});

beforeAll(async () => {
  const missing = await ensureSlapd();
  expect(missing).toBeNull();
  await new Promise<void>((resolve) => twilio.listen(0, '127.0.0.1', resolve));
  [daemon, browser, slapd] = await Promise.all([startDaemon({ PORTICO_LAN_PORTS: 'eth1' }), launchBrowser(), startSlapd()]);
  api = await adminWithPassword(daemon, 'AdminPassw0rd');
  const endpoint = `http://127.0.0.1:${(twilio.address() as AddressInfo).port}`;
  const sms = await api.post('auth/sms', { enabled: true, platform: 'twilio', accountSid: 'AC0123456789abcdef0123456789abcdef', authToken: 'token-1', from: '+15005550006', endpoint, codeTemplate: 'Your code is ##code##' });
  expect(sms.success, JSON.stringify(sms)).toBe(true);
  const ldap = await api.post('auth/ldap', { enabled: true, server: '127.0.0.1', port: slapd.ldapsPort, security: 'ldaps', ca: slapd.caLines, bindtype: 'search', basedn: `ou=people,${SUFFIX}`, account: SERVICE.dn, passwd: SERVICE.password, attribute: 'uid' });
  expect(ldap.success, JSON.stringify(ldap)).toBe(true);
}, 900_000);
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await slapd?.stop();
  await new Promise((resolve) => twilio.close(resolve));
});

/** Makes the one LAN's zone sign in by `authmodel` (the browser, on loopback, stands in it on sim). */
async function zoneSigningInBy(authmodel: 'sms' | 'ldap'): Promise<void> {
  const zones = (await api.get('auth/zone')).data as { items: Array<{ id: string }> };
  for (const zone of zones.items) expect((await api.post('auth/zone', { action: 'delete', id: zone.id })).success).toBe(true);
  const added = await api.post('auth/zone', { action: 'add', name: `by-${authmodel}`, ifname: 'lan', authmodel, authtime: 1, authtime_unit: 'hours' });
  expect(added.success, JSON.stringify(added)).toBe(true);
  await fetch(`${daemon.portalUrl}/portal-api/logout`, { method: 'POST' });
}

describe('portal sign-in through the outside world', () => {
  test('by SMS code', async () => {
    await zoneSigningInBy('sms');
    const { context, page } = await newPage(browser);
    await page.goto(`${daemon.portalUrl}/auth/portal`);
    await page.getByTestId('auth-sms-send').click();
    await page.locator('input[name="phone"]').fill('+8613800138000');
    await page.getByTestId('auth-sms-send').click();
    await page.getByTestId('auth-sms-sent').waitFor();
    await expect.poll(() => texts.length).toBe(1);
    const code = /(\d{6})$/.exec(texts[0]!)![1]!;
    await page.locator('input[name="smsCode"]').fill(code);
    await page.getByTestId('field-acceptTerms').check();
    await page.getByTestId('auth-submit').click();
    await page.waitForURL(/\/auth\/success/);
    const online = (await api.get('hotspot/online')).data as { items: Array<{ kind: string; username: string }> };
    expect(online.items).toContainEqual(expect.objectContaining({ kind: 'sms', username: '+8613800138000' }));
    await context.close();
  });

  test('by LDAP account over LDAPS', async () => {
    await zoneSigningInBy('ldap');
    const { context, page } = await newPage(browser);
    await page.goto(`${daemon.portalUrl}/auth/portal`);
    const [alice] = PEOPLE;
    await page.locator('input[name="username"]').fill(alice.uid);
    await page.locator('input[name="password"]').fill('not-her-password');
    await page.getByTestId('field-acceptTerms').check();
    await page.getByTestId('auth-submit').click();
    await expect.poll(() => page.getByTestId('form-error').textContent()).toBe('The password is wrong.');
    await page.locator('input[name="password"]').fill(alice.password);
    await page.getByTestId('auth-submit').click();
    await page.waitForURL(/\/auth\/success/);
    const online = (await api.get('hotspot/online')).data as { items: Array<{ kind: string; username: string }> };
    expect(online.items).toContainEqual(expect.objectContaining({ kind: 'ldap', username: 'alice' }));
    await context.close();
  });

  test('the console: the LDAP page tries a sign-in with the saved settings; the SMS log lists the code sent, masked', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, daemon.url, 'admin', 'AdminPassw0rd');
    await page.waitForURL(/\/dashboard/);
    await page.goto(`${daemon.url}/hotspot/ldap`);
    await page.getByTestId('ldap-test').waitFor();
    // The form shows the saved settings, never the service password.
    await expect.poll(() => page.locator('input[name="account"]').inputValue()).toBe(SERVICE.dn);
    expect(await page.content()).not.toContain(SERVICE.password);
    await page.getByTestId('ldap-test-username').fill(PEOPLE[0].uid);
    await page.getByTestId('ldap-test-password').fill(PEOPLE[0].password);
    await page.getByTestId('ldap-test-run').click();
    await expect.poll(() => page.getByTestId('ldap-test-result').textContent()).toBe(`The directory accepted uid=alice,ou=people,${SUFFIX}.`);

    await page.goto(`${daemon.url}/logging/smslogs`);
    await page.getByTestId('log-table').locator('tbody tr').first().waitFor();
    const row = await page.locator('[data-testid="log-table"] tbody tr').first().textContent();
    expect(row).toContain('+861********00');
    expect(row).toContain('Verification code');
    expect(row).toContain('Sent.');
    expect(await page.content()).not.toContain('13800138000');
    await context.close();
  });
});
