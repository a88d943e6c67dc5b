import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, test } from 'vitest';
import { i18n } from '../src/i18n/console-i18n.js';
import { ReminderListView } from '../src/pages/hotspot/reminder-list-panel.js';
import ReminderPage from '../src/pages/hotspot/reminder-page.js';
import { REMINDER_LIST_PATH, reminderStateKey, type ReminderList } from '../src/pages/hotspot/reminder-list-api.js';
import { CUSTOM_PAGES, PAGE_CATALOGUE } from '../src/routes/page-registry.js';
import { pageFor } from '../src/routes/route-table.js';

/**
 * The reminder list under the remote reminder's settings, drawn on the server renderer for
 * known data: user names from the device show as text, states are translated.
 */
const HOSTILE = '<img src=x onerror=alert(1)>';
const REMINDED_AT = Date.UTC(2026, 10, 22, 8, 30, 0);

const reminders: ReminderList = {
  items: [
    { ipaddr: '192.168.11.20', username: HOSTILE, remindedAt: REMINDED_AT, state: 'awaiting' },
    { ipaddr: '192.168.11.21', username: 'carol', remindedAt: REMINDED_AT - 60_000, state: 'shown' },
    { ipaddr: '192.168.11.22', username: '', remindedAt: REMINDED_AT - 120_000, state: 'withdrawn' },
  ],
  total: 3,
};

const noop = () => undefined;

function render(page: ReactElement, lang = 'en-US'): string {
  void i18n.changeLanguage(lang);
  return renderToString(
    createElement(I18nextProvider, { i18n }, createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: ['/hotspot/expirationnotice'] }, page))),
  );
}

const view = (data: ReminderList | null, failed = false) => createElement(ReminderListView, { data, failed, onRefresh: noop });

describe('expiry reminder list', () => {
  test('each reminded client with its address, name, time and translated state', () => {
    const html = render(view(reminders));
    expect(html).toContain('Reminded clients');
    expect(html).toContain('3 clients reminded');
    for (const header of ['IP address', 'User name', 'Reminded at', 'State']) expect(html).toContain(header);
    for (const ip of ['192.168.11.20', '192.168.11.21', '192.168.11.22']) expect(html).toContain(ip);
    expect(html).toMatch(/data-testid="reminder-username"[^>]*>carol</);
    // A reminder without an account name shows a dash, not an empty cell.
    expect(html).toMatch(/data-testid="reminder-username"[^>]*>-</);
    expect(html).toContain(new Date(REMINDED_AT).toLocaleString('en-US', { hour12: false }));
    const states = [...html.matchAll(/data-testid="reminder-state"[^>]*>(?:<[^>]+>)*([^<]+)</g)].map((m) => m[1]);
    expect(states).toEqual(['Awaiting', 'Shown', 'Withdrawn']);
    expect(html).toContain('data-testid="reminder-refresh"');
    expect(html).not.toContain('data-testid="reminder-empty"');
  });

  test('a hostile user name is text, never markup', () => {
    const html = render(view(reminders));
    expect(html).not.toContain('<img src=x');
    expect(html).toMatch(/data-testid="reminder-username"[^>]*>&lt;img src=x onerror=alert\(1\)&gt;</);
  });

  test('empty list, loading, and the notice when the list cannot be read', () => {
    const empty = render(view({ items: [], total: 0 }));
    expect(empty).toContain('data-testid="reminder-empty"');
    expect(empty).toContain('No client has been reminded in this interval.');
    expect(empty).not.toContain('data-testid="reminder-table"');

    const loading = render(view(null));
    expect(loading).toContain('aria-label="Loading the reminder list"');
    expect(loading).not.toContain('data-testid="reminder-empty"');

    // A failed read keeps the last list on screen under the notice.
    const failed = render(view(reminders, true));
    expect(failed).toContain('data-testid="reminder-unavailable"');
    expect(failed).toContain('The reminder list could not be read');
    expect(failed).toContain('192.168.11.20');
    expect(render(view(reminders))).not.toContain('data-testid="reminder-unavailable"');
  });

  test('Chinese screens are translated', () => {
    const simplified = render(view(reminders), 'zh-CN');
    for (const text of ['已提醒的客户端', '用户名', '待显示', '已显示', '已撤回', '已提醒 3 个客户端']) expect(simplified).toContain(text);
    const traditional = render(view({ items: [], total: 0 }), 'zh-TW');
    for (const text of ['已提醒的用戶端', '重新整理', '本間隔內尚未提醒任何用戶端。']) expect(traditional).toContain(text);
    void i18n.changeLanguage('en-US');
  });

  test('a state this console does not know reads as unknown, not as a raw key', () => {
    expect(reminderStateKey('shown')).toBe('hotspotReminderList.state.shown');
    const html = render(view({ items: [{ ipaddr: '192.168.11.30', username: 'x', remindedAt: REMINDED_AT, state: 'later' as never }], total: 1 }));
    expect(html).toMatch(/data-testid="reminder-state"[^>]*>(?:<[^>]+>)*Unknown</);
  });

  test('the page is the settings form with the list under it, registered at its route', () => {
    const html = render(createElement(ReminderPage));
    expect(html.indexOf('data-testid="entity-form-loading"')).toBeGreaterThan(-1);
    expect(html.indexOf('data-testid="reminder-list"')).toBeGreaterThan(html.indexOf('data-testid="entity-form-loading"'));
    expect(CUSTOM_PAGES['/hotspot/expirationnotice']).toBeDefined();
    expect(pageFor('/hotspot/expirationnotice', PAGE_CATALOGUE)).toEqual({ kind: 'custom' });
    expect(REMINDER_LIST_PATH).toBe('hotspot/reminders');
  });
});
