import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { consoleFixture, loginInBrowser, newPage } from './e2e-harness.js';
import { decodeWords, parseMail, startSmtpServer, testCertificate, type SmtpServer } from '../../apps/daemon/test/email-smtp-fixture.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Security → E-mail notice in a real browser against the built daemon: a recipient added (a bad
 * address refused on its field first) and edited through the generated forms, the SMTP server
 * saved, and the test button sending through the daemon's curl to an SMTP server on loopback
 * (STARTTLS, AUTH PLAIN, a certificate made here, verification off since the daemon trusts only
 * the system's authorities), then the server's refusal of an unknown recipient shown on the page.
 */

const PASSWORD = 'MailPassw0rd';
const SMTP_USER = 'notices';
const SMTP_PASSWORD = 'smtp-Secret-9';
const fixture = consoleFixture(PASSWORD);
let certDir: string;
let smtp: SmtpServer;

beforeAll(async () => {
  certDir = mkdtempSync(join(tmpdir(), 'portico-e2e-smtp-'));
  const cert = testCertificate(certDir);
  smtp = await startSmtpServer({ mode: 'starttls', tls: cert, auth: { mechanisms: ['PLAIN'], user: SMTP_USER, password: SMTP_PASSWORD } });
});
afterAll(async () => {
  await smtp?.close();
  rmSync(certDir, { recursive: true, force: true });
});

describe('E-mail notice page', () => {
  test('add and edit a recipient, save the server, send a test message and see the refusal of a bad one', async () => {
    const { daemon, browser, api } = fixture;
    const { context, page } = await newPage(browser);
    try {
      await loginInBrowser(page, daemon.url, 'admin', PASSWORD);
      await page.waitForURL('**/dashboard');
      await page.goto(`${daemon.url}/security/emailnotice`);
      await expect.poll(() => page.getByTestId('entity-empty').count()).toBe(1);

      // Add: a bad address is refused on its own field, then the right one is saved.
      await page.getByTestId('entity-add').click();
      await page.waitForURL('**/security/emailnotice/add');
      const form = page.getByTestId('entity-form');
      await form.getByTestId('field-name').fill('Duty desk');
      await form.getByTestId('field-address').fill('duty desk@example');
      await form.getByTestId('field-events').click();
      await page.getByRole('option', { name: 'Network loop', exact: true }).click();
      // The multiselect stays open for more choices.
      await page.keyboard.press('Escape');
      await form.getByTestId('entity-save').click();
      await expect.poll(() => form.getByTestId('field-error-address').textContent()).toBe('Enter an e-mail address such as admin@example.com.');
      await form.getByTestId('field-address').fill('duty@example.org');
      await form.getByTestId('entity-save').click();
      await page.waitForURL(/\/security\/emailnotice$/);
      const rows = page.getByTestId('entity-list').locator('tbody tr');
      await expect.poll(() => rows.first().textContent()).toContain('duty@example.org');
      expect(await rows.first().textContent()).toContain('Network loop');

      // Edit: one more event, and the recipient's own language.
      const [recipient] = ((await api.get('sysconf/emailinfo/recipients')).data as { items: Array<{ id: string }> }).items;
      await page.getByTestId(`entity-edit-${recipient!.id}`).click();
      await page.waitForURL('**/security/emailnotice/edit?id=*');
      await expect.poll(() => form.getByTestId('field-name').inputValue()).toBe('Duty desk');
      await form.getByTestId('field-events').click();
      await page.getByRole('option', { name: 'IP address conflict', exact: true }).click();
      // The multiselect stays open for more choices.
      await page.keyboard.press('Escape');
      await form.getByTestId('field-language').click();
      await page.getByRole('option', { name: '繁體中文', exact: true }).click();
      await form.getByTestId('entity-save').click();
      await page.waitForURL(/\/security\/emailnotice$/);
      await expect.poll(() => rows.first().textContent()).toContain('IP address conflict');
      expect(((await api.get('sysconf/emailinfo/recipients')).data as { items: unknown[] }).items[0]).toMatchObject({ events: ['loop', 'ipConflict'], language: 'zh-TW' });

      // The SMTP server.
      const server = page.getByTestId('email-server');
      await server.getByTestId('field-enabled').check();
      await server.getByTestId('field-server').fill('127.0.0.1');
      await server.getByTestId('field-port').fill(String(smtp.port));
      await server.getByTestId('field-verify').uncheck();
      await server.getByTestId('field-user').fill(SMTP_USER);
      await server.getByTestId('field-password').fill(SMTP_PASSWORD);
      await server.getByTestId('field-sender').fill('gateway@example.com');
      await server.getByTestId('entity-save').click();
      await expect.poll(async () => (await api.get('sysconf/emailinfo')).data).toMatchObject({ enabled: true, server: '127.0.0.1', port: smtp.port, security: 'starttls', verify: false, user: SMTP_USER });

      // The test button: delivered, and the message is on the server.
      const panel = page.getByTestId('email-test');
      await panel.getByTestId('email-test-address').fill('admin@example.org');
      await panel.getByTestId('email-test-run').click();
      await expect.poll(() => panel.getByTestId('email-test-result').textContent()).toBe('The server accepted the test message for admin@example.org.');
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0]).toMatchObject({ to: ['admin@example.org'], tls: true, mechanism: 'PLAIN', user: SMTP_USER });
      expect(decodeWords(parseMail(smtp.mails[0]!.data).headers.get('subject')!)).toMatch(/\] Test message$/);

      // The server's refusal reaches the page as its error.
      await panel.getByTestId('email-test-address').fill('nobody@example.org');
      await panel.getByTestId('email-test-run').click();
      await expect.poll(() => panel.getByTestId('email-test-result').textContent()).toMatch(/^The test message was not delivered: .*550/);
      expect(smtp.mails).toHaveLength(1);

      // The result is in the latest results of the queue panel after a reload.
      await page.reload();
      await expect.poll(() => page.getByTestId('email-results').textContent()).toContain('E-mail notice "Test message" sent to admin@example.org');
    } finally {
      await context.close();
    }
  });
});
