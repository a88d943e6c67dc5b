import { describe, expect, test } from 'vitest';
import { freshDaemonFixture, loginInBrowser, newPage } from './e2e-harness.js';

const fx = freshDaemonFixture();

describe('first login', () => {
  test('the printed password is written once and no fixed default exists', () => {
    expect(fx.daemon.initialPassword).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(fx.daemon.output()).toContain(fx.daemon.initialPassword);
  });

  test('first login goes to /modpwd, the new password leads to the dashboard', async () => {
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'admin', fx.daemon.initialPassword);
    await page.waitForURL('**/modpwd');
    // The forced change cannot be skipped.
    await page.goto(`${fx.daemon.url}/dashboard`);
    await page.waitForURL('**/modpwd');

    await page.getByTestId('modpwd-old').fill(fx.daemon.initialPassword);
    await page.getByTestId('modpwd-new').fill('short1');
    await page.getByTestId('modpwd-confirm').fill('short1');
    await page.getByTestId('modpwd-submit').click();
    await expect.poll(() => page.url()).toContain('/modpwd');

    await page.getByTestId('modpwd-new').fill('NewPassw0rd');
    await page.getByTestId('modpwd-confirm').fill('NewPassw0rd');
    await page.getByTestId('modpwd-submit').click();
    await page.waitForURL('**/dashboard');
    await page.getByTestId('dashboard').waitFor();
    await expect.poll(() => page.getByTestId('dash-board-sn').textContent()).not.toBe('');
    await context.close();
  });

  test('wrong and empty credentials show the spec messages', async () => {
    const { context, page } = await newPage(fx.browser);
    await page.goto(`${fx.daemon.url}/login`);
    await page.getByTestId('login-submit').click();
    await page.getByText('Username/Password is required').first().waitFor();
    await page.getByTestId('login-username').fill('admin');
    await page.getByTestId('login-password').fill('wrongpass1');
    await page.getByTestId('login-submit').click();
    await page.getByText('Username or Password is Error').first().waitFor();
    await context.close();
  });
});

describe('routing', () => {
  test('a request without a session goes to /login with no notice', async () => {
    const { context, page } = await newPage(fx.browser);
    await page.goto(`${fx.daemon.url}/system/usermanagement`);
    await page.waitForURL('**/login');
    expect(await page.getByTestId('notice-error').count()).toBe(0);
    await context.close();
  });

  test('a session revoked while in use sends the console to /login', async () => {
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'admin', 'NewPassw0rd');
    await page.waitForURL('**/dashboard');
    await context.clearCookies();
    await page.goto(`${fx.daemon.url}/system/usermanagement`);
    await page.waitForURL('**/login');
    await context.close();
  });

  test('unknown paths show the not-found page; unbuilt screens say so', async () => {
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'admin', 'NewPassw0rd');
    await page.waitForURL('**/dashboard');
    await page.goto(`${fx.daemon.url}/no/such/page`);
    await page.getByTestId('not-found').waitFor();
    await page.goto(`${fx.daemon.url}/cloud/sdlan`);
    await page.getByTestId('not-available').waitFor();
    await context.close();
  });

  test('the language switch translates the console and is remembered', async () => {
    const { context, page } = await newPage(fx.browser);
    await page.goto(`${fx.daemon.url}/login`);
    const before = await page.getByTestId('login-submit').textContent();
    await chooseLanguage(page, 'zh-CN');
    await expect.poll(() => page.getByTestId('login-submit').textContent()).not.toBe(before);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await chooseLanguage(page, 'zh-TW');
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('zh-TW');
    await context.close();
  });
});

async function chooseLanguage(page: import('playwright-core').Page, lang: string) {
  const control = page.getByTestId('lang-switch');
  await control.click();
  await page.locator(`[data-lang="${lang}"]`).first().click();
}
