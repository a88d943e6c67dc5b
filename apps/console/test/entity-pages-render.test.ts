import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, test } from 'vitest';
import { adminUser, type AnyEntity } from '@portico/schema';
import { i18n } from '../src/i18n/console-i18n.js';
import EntityListPage from '../src/pages/entity/entity-list-page.js';
import EntityFormPage from '../src/pages/entity/entity-form-page.js';

/**
 * First render of the generic pages, on the server renderer (no DOM here): the derived
 * markup carries the labels, help and test ids the browser suites rely on. Effects (data
 * loading) do not run in this renderer.
 */
const admin = adminUser as unknown as AnyEntity;

function render(page: ReactElement, url: string): string {
  void i18n.changeLanguage('en-US');
  return renderToString(
    createElement(
      I18nextProvider,
      { i18n },
      createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: [url] }, page)),
    ),
  );
}

describe('entity list page', () => {
  const html = render(createElement(EntityListPage, { entity: admin }), '/system/usermanagement');

  test('title, toolbar and headers come from the declaration', () => {
    for (const id of ['entity-list', 'entity-add', 'entity-search', 'entity-sort-username', 'entity-sort-privilege']) {
      expect(html).toContain(`data-testid="${id}"`);
    }
    expect(html).toContain('Administrators');
    expect(html).toContain('Username');
    expect(html).toContain('Privilege');
    expect(html).toContain('>Status<');
    expect(html).toContain('Allowed IPs');
    // Only sortable columns sort.
    expect(html).not.toContain('entity-sort-allowd_ips');
  });
});

describe('entity form page', () => {
  test('add: every field with its label, help and test id, one tab so no tab strip', () => {
    const html = render(createElement(EntityFormPage, { entity: admin, mode: 'add' }), '/system/usermanagement/add');
    expect(html).toContain('data-testid="entity-form"');
    for (const field of ['username', 'password', 'confirm', 'privilege', 'disabled', 'allowd_ips']) {
      expect(html).toMatch(new RegExp(`<input[^>]*data-testid="field-${field}"`));
    }
    expect(html).toContain('data-testid="entity-save"');
    expect(html).toContain('data-testid="entity-cancel"');
    expect(html).toContain('Add: Administrators');
    expect(html).toContain('Confirm password');
    expect(html).toContain('CIDR');
    expect(html).not.toContain('role="tablist"');
    expect(html).not.toContain('Leave empty to keep the current value.');
  });

  test('edit starts by loading the record', () => {
    const html = render(createElement(EntityFormPage, { entity: admin, mode: 'edit' }), '/system/usermanagement/edit?id=1');
    expect(html).toContain('data-testid="entity-form-loading"');
    expect(html).not.toContain('data-testid="entity-form"');
  });
});
