import { describe, expect, test } from 'vitest';
import { consoleFixture, loginInBrowser, newPage } from './e2e-harness.js';

/**
 * The browser terminal (/rtty) in Chromium against the built daemon and its PTY helper. The
 * program is /bin/sh instead of the device's /bin/login (PORTICO_RTTY_COMMAND).
 */
const fx = consoleFixture('AdminPassw0rd', { PORTICO_RTTY_COMMAND: '/bin/sh -i' });

describe('/rtty', () => {
  test('without a session the page says so and links to sign-in', async () => {
    const { context, page } = await newPage(fx.browser);
    await page.goto(`${fx.daemon.url}/rtty`);
    await page.getByTestId('rtty-signed-out').getByText('Sign in to the console as an administrator to open the terminal.').waitFor();
    await page.getByTestId('rtty-login-link').click();
    await page.waitForURL('**/login');
    await context.close();
  });

  test('a visitor (read-only) account is told it may not open the terminal', async () => {
    const added = await fx.api.post('admin', { action: 'add', username: 'rttyvisitor', password: 'Visitor2025pass', confirm: 'Visitor2025pass', privilege: 2 });
    expect(added.success).toBe(true);
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'rttyvisitor', 'Visitor2025pass');
    await page.waitForURL('**/dashboard');
    await page.goto(`${fx.daemon.url}/rtty`);
    await page.getByTestId('rtty-refused').getByText('Your account may not open the device terminal.').waitFor();
    expect(await page.locator('.xterm').count()).toBe(0);
    await context.close();
  });

  test('signed in, a command typed into the terminal runs on the device and its output shows; the session is journalled', async () => {
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'admin', 'AdminPassw0rd');
    await page.waitForURL('**/dashboard');
    await page.goto(`${fx.daemon.url}/rtty`);
    await page.getByTestId('rtty-state').getByText(/^Connected\./).waitFor();
    const rows = page.locator('[data-testid="rtty-terminal"] .xterm-rows');
    await page.getByTestId('rtty-terminal').click();
    // The sum is printed by the shell, so the text can only appear as the command's output.
    await page.keyboard.type('echo rtty-$((40+2))-ok');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await rows.textContent()) ?? '', { timeout: 30_000 }).toContain('rtty-42-ok');
    // The PTY has the size xterm.js fitted to its box, not the helper's 24x80 start.
    await page.keyboard.type('stty size');
    await page.keyboard.press('Enter');
    const size = await page.evaluate(() => {
      const box = document.querySelector('[data-testid="rtty-terminal"] .xterm-rows');
      return box ? box.children.length : 0;
    });
    await expect.poll(async () => (await rows.locator(':scope > div').allTextContents()).map((row) => row.trim()), { timeout: 30_000 }).toContainEqual(expect.stringMatching(new RegExp(`^${size} \\d+$`)));
    await page.keyboard.type('exit 5');
    await page.keyboard.press('Enter');
    await page.getByTestId('rtty-ended').getByText('The session ended (exit status 5).').waitFor();

    await page.goto(`${fx.daemon.url}/logging/authlogs`);
    await page.getByText(/Terminal \w+ opened by admin from 127\.0\.0\.1/).first().waitFor();
    await page.getByText(/ended after \d+ s: the program ended \(exit status 5\)/).first().waitFor();
    await context.close();
  });
});
