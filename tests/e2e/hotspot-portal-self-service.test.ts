import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { adminWithPassword, launchBrowser, newPage, startDaemon, type ApiSession, type RunningDaemon } from './e2e-harness.js';

/**
 * The local users' self-service pages in Chromium against the built daemon's portal listener
 * (the engine on its sim data plane): register, sign in, see the account, change the password.
 */
let daemon: RunningDaemon;
let browser: Browser;
let api: ApiSession;
let portal: string;


beforeAll(async () => {
  [daemon, browser] = await Promise.all([startDaemon({ PORTICO_LAN_PORTS: 'eth1' }), launchBrowser()]);
  portal = daemon.portalUrl;
  api = await adminWithPassword(daemon, 'AdminPassw0rd');
  const zone = await api.post('auth/zone', { action: 'add', name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' });
  expect(zone.success, JSON.stringify(zone)).toBe(true);
  const current = (await api.get('portal')).data as Record<string, unknown>;
  expect((await api.post('portal', { ...current, methods: ['voucher', 'local'] })).success).toBe(true);
});
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

describe('portal self-service', () => {
  test('register, sign in, account page, password change, sign out', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(`${portal}/terminal/user/register`);
    await page.getByTestId('user-register-form').waitFor();
    await page.locator('input[name="username"]').fill('walker');
    await page.locator('input[name="password"]').fill('Walker2025');
    await page.locator('input[name="confirm"]').fill('Walker2025');
    await page.getByTestId('user-register-submit').click();
    await page.waitForURL(/\/terminal\/user\/mgrsuc/);

    // The account exists for the administrator too, as a portal user.
    const users = (await api.get('auth/userauth')).data as { items: Array<{ username: string; type: string }> };
    expect(users.items.find((u) => u.username === 'walker')).toMatchObject({ type: 'portal' });

    await page.goto(`${portal}/terminal/user/login`);
    await page.locator('input[name="username"]').fill('walker');
    await page.locator('input[name="password"]').fill('Walker2025');
    await page.getByTestId('user-login-submit').click();
    await page.getByTestId('user-mgr').waitFor();
    expect(await page.getByTestId('account-username').textContent()).toContain('walker');
    // The sign-in cookie is not readable by scripts.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const cookie = (await context.cookies()).find((c) => c.name === 'portico_portal_user');
    expect(cookie?.httpOnly).toBe(true);

    await page.getByTestId('account-cpwd').click();
    await page.getByTestId('user-cpwd-form').waitFor();
    const fields = page.locator('[data-testid="user-cpwd-form"] input[type="password"]');
    const count = await fields.count();
    await fields.nth(0).fill('Walker2025');
    for (let i = 1; i < count; i++) await fields.nth(i).fill('Walker2026');
    await page.getByTestId('user-cpwd-submit').click();
    await page.waitForURL(/\/terminal\/user\/mgrsuc/);

    await page.goto(`${portal}/terminal/user/mgr`);
    await page.getByTestId('account-logout').click();
    await page.getByTestId('user-login').waitFor();

    // The new password works, the old one does not.
    const signIn = async (password: string) =>
      (await (await fetch(`${portal}/portal-api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'walker', password }) })).json()) as { success: boolean };
    expect((await signIn('Walker2025')).success).toBe(false);
    expect((await signIn('Walker2026')).success).toBe(true);
    await context.close();
  });
});
