import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, test } from 'vitest';
import { i18n } from '../src/i18n/console-i18n.js';
import { LocalUserPasswordNotice } from '../src/pages/hotspot/local-user-page.js';
import { CUSTOM_PAGES, PAGE_CATALOGUE } from '../src/routes/page-registry.js';
import { pageFor } from '../src/routes/route-table.js';

/** The local users page's notice of accounts whose password must be set again, in each language. */
function render(page: ReactElement, lang = 'en-US'): string {
  void i18n.changeLanguage(lang);
  return renderToString(createElement(I18nextProvider, { i18n }, createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: ['/hotspot/localuser'] }, page))));
}

describe('local users page', () => {
  test('the list is a page of its own; its add and edit forms stay the generated ones', () => {
    expect(CUSTOM_PAGES['/hotspot/localuser']).toBeDefined();
    expect(pageFor('/hotspot/localuser', PAGE_CATALOGUE)).toEqual({ kind: 'custom' });
    expect(pageFor('/hotspot/localuser/edit', PAGE_CATALOGUE)).toMatchObject({ kind: 'entityForm', entityRoute: '/hotspot/localuser', mode: 'edit' });
    expect(pageFor('/hotspot/localuser/batch', PAGE_CATALOGUE)).toMatchObject({ kind: 'entityList' });
  });

  test('the accounts without a sealed password are named as text, in each language; no notice when there are none', () => {
    expect(render(createElement(LocalUserPasswordNotice, { names: [] }))).not.toContain('local-user-need-password');
    const en = render(createElement(LocalUserPasswordNotice, { names: ['alice', '<b>x</b>'] }));
    expect(en).toContain('set their password again before they sign in by CHAP');
    expect(en).toContain('alice, &lt;b&gt;x&lt;/b&gt;');
    expect(en).not.toContain('<b>x</b>');
    expect(render(createElement(LocalUserPasswordNotice, { names: ['alice'] }), 'zh-CN')).toContain('须重新设置密码后才能以 CHAP 方式登录');
    expect(render(createElement(LocalUserPasswordNotice, { names: ['alice'] }), 'zh-TW')).toContain('須重新設定密碼後才能以 CHAP 方式登入');
  });
});
