import { describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { consoleFixture, loginInBrowser, newPage } from './e2e-harness.js';

const fx = consoleFixture();

async function rowIdOf(username: string): Promise<string | undefined> {
  const reply = await fx.api.get('admin');
  const items = (reply.data as { items: Array<{ id: string; username: string }> }).items;
  return items.find((u) => u.username === username)?.id;
}

async function fillForm(page: Page, values: Record<string, string>) {
  for (const [field, value] of Object.entries(values)) await page.getByTestId(`field-${field}`).fill(value);
}

describe('admin users end to end', () => {
  test('add, edit and delete an admin user through the console', async () => {
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'admin', 'AdminPassw0rd');
    await page.waitForURL('**/dashboard');
    await page.goto(`${fx.daemon.url}/system/usermanagement`);
    await page.getByTestId('entity-list').waitFor();
    await page.getByTestId('entity-add').click();
    await page.waitForURL('**/system/usermanagement/add');

    // A bad password shows the rule on its field and nothing is saved.
    await fillForm(page, { username: 'operator1', password: 'abc', confirm: 'abc' });
    await page.getByTestId('entity-save').click();
    await page.getByTestId('field-error-password').waitFor();
    expect(await rowIdOf('operator1')).toBeUndefined();

    await fillForm(page, { password: 'Operator123', confirm: 'Operator123' });
    await page.getByTestId('entity-save').click();
    await page.waitForURL('**/system/usermanagement');
    await expect.poll(() => rowIdOf('operator1')).toBeDefined();
    const id = (await rowIdOf('operator1'))!;
    await page.getByTestId(`entity-row-${id}`).waitFor();

    await page.getByTestId(`entity-edit-${id}`).click();
    await page.waitForURL(`**/system/usermanagement/edit?id=${id}`);
    await fillForm(page, { allowd_ips: '10.0.0.0/8' });
    await page.keyboard.press('Enter');
    await page.getByTestId('entity-save').click();
    await page.waitForURL('**/system/usermanagement');
    await expect
      .poll(async () => {
        const reply = await fx.api.get('admin');
        return (reply.data as { items: Array<{ id: string; allowd_ips: string[] }> }).items.find((u) => u.id === id)?.allowd_ips;
      })
      .toEqual(['10.0.0.0/8']);

    await page.getByTestId(`entity-delete-${id}`).click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => rowIdOf('operator1')).toBeUndefined();
    await context.close();
  });

  test('a visitor account may read but a write shows the visitor notice', async () => {
    const added = await fx.api.post('admin', {
      action: 'add',
      username: 'visitor1',
      password: 'Visitor123',
      confirm: 'Visitor123',
      privilege: 2,
      disabled: false,
      allowd_ips: [],
    });
    expect(added.success).toBe(true);
    const { context, page } = await newPage(fx.browser);
    await loginInBrowser(page, fx.daemon.url, 'visitor1', 'Visitor123');
    await page.waitForURL('**/dashboard');
    await page.goto(`${fx.daemon.url}/system/usermanagement/add`);
    await page.getByTestId('entity-form').waitFor();
    await fillForm(page, { username: 'sneaky1', password: 'Sneaky1234', confirm: 'Sneaky1234' });
    await page.getByTestId('entity-save').click();
    await page.getByText('Visitor Permissions, No Writing').first().waitFor();
    expect(await rowIdOf('sneaky1')).toBeUndefined();
    await context.close();
  });
});
