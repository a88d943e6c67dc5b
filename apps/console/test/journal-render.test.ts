import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, test } from 'vitest';
import { i18n } from '../src/i18n/console-i18n.js';
import { CurrentRouteContext } from '../src/routes/current-route.js';
import type { RouteEntry } from '../src/routes/route-table.js';
import { JournalChangesView } from '../src/pages/system-maintain/journal-changes-view.js';
import { REDACTED_VALUE, type JournalChange, type JournalEntry } from '../src/pages/system-maintain/journal-model.js';
import { JournalTable } from '../src/pages/system-maintain/journal-table.js';
import SystemMaintainPage from '../src/pages/system-maintain/system-maintain-page.js';

/**
 * First render on the server renderer (no DOM, effects do not run): the markup hooks the
 * browser suites use and the text in the current language. Data-driven parts get their
 * data as props.
 */
function render(element: ReactElement): string {
  return renderToString(
    createElement(
      I18nextProvider,
      { i18n },
      createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: ['/system/systemmaintain'] }, element)),
    ),
  );
}

/** The attributes of the element carrying a data-testid. */
function tagWith(html: string, testId: string): string {
  const match = new RegExp(`<[a-z]+[^>]*data-testid="${testId}"[^>]*>`).exec(html);
  if (!match) throw new Error(`no element with data-testid="${testId}"`);
  return match[0];
}

const noop = () => undefined;
const entries: JournalEntry[] = [
  { id: 12, at: Date.UTC(2024, 4, 2, 9, 0, 0), user: 'admin', sourceIp: '192.168.1.10', summary: { key: 'changes', groups: [{ entity: 'adminUser', module: 'usermanagement', action: 'update', labels: ['<i>ops</i>'] }] } },
  { id: 11, at: Date.UTC(2024, 4, 1, 9, 0, 0), user: '<b>ops</b>', sourceIp: '10.0.0.2', summary: { key: 'notConfirmed' } },
];

function routeEntry(permission: RouteEntry['permission']): RouteEntry {
  return { path: '/system/systemmaintain', module: 'systemmaintain', label: 'menu.systemmaintain', permission, menuPath: '/system/systemmaintain', subRoutes: [], page: { kind: 'custom' } };
}

beforeEach(async () => {
  await i18n.changeLanguage('en-US');
});

describe('journal table', () => {
  const tableProps = { loading: false, selected: [entries[1]!], onOpen: noop, onSelect: noop, onRevert: noop };

  test('one row per revision with view, revert and selection; values escaped', () => {
    const html = render(createElement(JournalTable, { ...tableProps, items: entries, canRevert: true }));
    expect(tagWith(html, 'journal-table')).toMatch(/^<table/);
    for (const id of ['journal-row-12', 'journal-row-11']) expect(tagWith(html, id)).toMatch(/^<tr/);
    for (const id of ['journal-view-12', 'journal-revert-12', 'journal-view-11', 'journal-revert-11']) {
      expect(tagWith(html, id)).toMatch(/^<button/);
    }
    expect(tagWith(html, 'journal-select-11')).toMatch(/checked=""/);
    expect(tagWith(html, 'journal-select-12')).not.toMatch(/checked=""/);
    expect(html).toContain('Revert to this revision');
    expect(html).toContain('192.168.1.10');
    expect(html).toContain('Administrators: changed &lt;i&gt;ops&lt;/i&gt;');
    expect(html).not.toContain('adminUser');
    expect(html).toContain('Reverted automatically: the change was not confirmed in time');
    expect(html).toContain('&lt;b&gt;ops&lt;/b&gt;');
    expect(html).not.toContain('<b>ops</b>');
  });

  test('a read-only account sees no revert buttons', () => {
    const html = render(createElement(JournalTable, { ...tableProps, items: entries, canRevert: false }));
    expect(html).toContain('data-testid="journal-view-12"');
    expect(html).not.toContain('journal-revert-');
  });

  test('empty journal', () => {
    const html = render(createElement(JournalTable, { ...tableProps, items: [], canRevert: true }));
    expect(html).toContain('data-testid="journal-empty"');
    expect(html).toContain('No configuration change has been recorded yet');
  });
});

describe('changes view', () => {
  const changes: JournalChange[] = [
    {
      entity: 'adminUser',
      id: '3',
      action: 'update',
      before: { id: '3', username: 'bob', privilege: 2, password: REDACTED_VALUE, note: 'x' },
      after: { id: '3', username: 'bob', privilege: 0, password: REDACTED_VALUE, comment: '<script>alert(1)</script>' },
    },
    { entity: 'mysteryThing', id: null, action: 'delete', before: { level: 4 }, after: null },
  ];

  test('entity title from its namespace, else the raw name; field labels; action', () => {
    const html = render(createElement(JournalChangesView, { changes }));
    expect(html).toContain('data-testid="journal-changes"');
    expect(html).toContain(i18n.t('adminUser.title'));
    expect(html).toContain(`>${i18n.t('adminUser.field.privilege')}<`);
    expect(i18n.t('adminUser.field.privilege')).not.toBe('adminUser.field.privilege');
    // A field the entity does not declare shows its raw name.
    expect(html).toContain('>note<');
    expect(html).toContain('mysteryThing');
    expect(html).toContain('Changed');
    expect(html).toContain('Deleted');
    expect(html).toContain('Entry 3');
  });

  test('before → after for changed fields, unchanged ones hidden, secrets shown as hidden', () => {
    const html = render(createElement(JournalChangesView, { changes }));
    expect(html).toContain('data-status="changed"');
    expect(html).toContain('data-status="secret"');
    expect(html).toContain('data-status="removed"');
    expect(html).toContain('data-status="added"');
    expect(html).not.toContain('data-status="unchanged"');
    expect(html).toContain('Hidden (secret)');
    // Option values read as their labels: privilege 2 → 0.
    expect(html).toContain('Guest (visitor)');
    expect(html).toContain('System administrator');
    expect(html).not.toContain(REDACTED_VALUE);
    expect(html).toContain('Unchanged fields not shown: 2');
  });

  test('values are text, never markup', () => {
    const html = render(createElement(JournalChangesView, { changes }));
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
  });

  test('no changes', () => {
    const html = render(createElement(JournalChangesView, { changes: [] }));
    expect(tagWith(html, 'journal-changes')).toBeTruthy();
    expect(html).toContain('No configuration changes.');
  });

  test('in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    const html = render(createElement(JournalChangesView, { changes }));
    expect(html).toContain('修改前');
    expect(html).toContain('已隐藏（密钥）');
  });
});

describe('maintenance page', () => {
  test('history, backup, restore, device and firmware sections, none labelled missing', () => {
    const html = render(createElement(CurrentRouteContext.Provider, { value: routeEntry('modify') }, createElement(SystemMaintainPage)));
    expect(html).toContain('data-testid="system-maintain"');
    expect(html).toContain('Configuration history');
    expect(tagWith(html, 'journal-table')).toMatch(/^<table/);
    expect(tagWith(html, 'journal-diff')).toMatch(/disabled/);
    for (const section of ['maintain-backup', 'maintain-restore', 'maintain-device', 'maintain-firmware']) expect(html).toContain(`data-testid="${section}"`);
    expect(html).toContain('Firmware upgrade');
    expect(html).not.toContain('Not available in this build');
  });
});
