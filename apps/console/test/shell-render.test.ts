import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, test } from 'vitest';
import { buildMenu, pagePermission, type Capability } from '@portico/schema';
import { i18n } from '../src/i18n/console-i18n.js';
import LoginPage from '../src/pages/login/login-page.js';
import { PasswordChangeForm } from '../src/pages/modpwd/password-change-form.js';
import { NotAvailablePage } from '../src/pages/not-available/not-available-page.js';
import { NotFoundPage } from '../src/pages/not-found/not-found-page.js';
import { LanguageMenu, languageSwitchHidden } from '../src/shell/language-switch.js';
import { LoadingBar } from '../src/shell/loading-indicator.js';
import { NavMenu } from '../src/shell/nav-menu.js';

/**
 * First render of the shell's pieces on the server renderer (no DOM here): the markup hooks
 * the browser suites rely on, and the text in the current language. Effects do not run, and
 * stores render with their initial state, so parts that read a store are given props here.
 */
function render(element: ReactElement, url = '/'): string {
  return renderToString(
    createElement(
      I18nextProvider,
      { i18n },
      createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: [url] }, element)),
    ),
  );
}

/** The attributes of the element carrying a data-testid. */
function tagWith(html: string, testId: string): string {
  const match = new RegExp(`<[a-z]+[^>]*data-testid="${testId}"[^>]*>`).exec(html);
  if (!match) throw new Error(`no element with data-testid="${testId}"`);
  return match[0];
}

const menu = buildMenu({
  capabilities: new Set<Capability>(['gateway', 'vlan', 'nas']),
  disabledModules: new Set(),
  permissionOf: (module) => pagePermission('manager', module),
});

beforeEach(async () => {
  await i18n.changeLanguage('en-US');
});

const noop = () => undefined;
const formProps = { username: 'admin', onSubmit: async () => ({}), onCancel: noop, onLogout: noop };

describe('login page', () => {
  test('inputs and button carry their test ids; the language switch is there', () => {
    const html = render(createElement(LoginPage), '/login');
    expect(tagWith(html, 'login-username')).toMatch(/^<input/);
    expect(tagWith(html, 'login-password')).toMatch(/^<input[^>]*type="password"/);
    expect(tagWith(html, 'login-submit')).toMatch(/^<button[^>]*type="submit"/);
    expect(html).toContain('data-testid="lang-switch"');
    expect(html).toContain('Sign in');
  });

  test('in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    const html = render(createElement(LoginPage), '/login');
    expect(html).toContain('用户名');
    expect(html).toContain('登录');
  });
});

describe('password change form', () => {
  test('forced: the three fields, the notice, and log out as the only other way', () => {
    const html = render(createElement(PasswordChangeForm, { ...formProps, forced: true }), '/modpwd');
    for (const id of ['modpwd-old', 'modpwd-new', 'modpwd-confirm']) expect(tagWith(html, id)).toMatch(/^<input[^>]*type="password"/);
    expect(tagWith(html, 'modpwd-submit')).toMatch(/^<button[^>]*type="submit"/);
    expect(html).toContain('Please change the password');
    expect(html).toContain('data-testid="logout"');
    expect(html).not.toContain('data-testid="modpwd-cancel"');
  });

  test('by choice: no notice, and a way back', () => {
    const html = render(createElement(PasswordChangeForm, { ...formProps, forced: false }), '/modpwd');
    expect(html).not.toContain('data-testid="modpwd-forced"');
    expect(html).toContain('data-testid="modpwd-cancel"');
    expect(html).toContain('8 to 32 characters, letters and digits only.');
  });
});

describe('language switch', () => {
  test('the button shows the current language in its own name', async () => {
    await i18n.changeLanguage('zh-TW');
    const html = render(createElement(LanguageMenu, { current: 'zh-TW', onChoose: noop }));
    expect(tagWith(html, 'lang-switch')).toMatch(/^<button/);
    expect(html).toContain('繁體中文');
  });

  test('hidden by the device setting or the hidden_language capability', () => {
    expect(languageSwitchHidden([], false)).toBe(false);
    expect(languageSwitchHidden(['vlan'], true)).toBe(true);
    expect(languageSwitchHidden(['vlan', 'hidden_language'], false)).toBe(true);
  });
});

describe('navigation menu', () => {
  const html = render(createElement(NavMenu, { menu }), '/netconf/dhcpserver/edit');

  test('sections and listed pages have their test ids; hidden pages are not listed', () => {
    expect(html).toContain('data-testid="nav-section-netconf"');
    expect(html).toContain('data-testid="nav-item-dhcpserver"');
    expect(html).toContain('data-testid="nav-item-usermanagement"');
    expect(html).not.toContain('data-testid="nav-item-dashboard"');
    expect(html).not.toContain('data-testid="nav-item-vendor999"');
    expect(html).toContain('href="/netconf/dhcpserver"');
  });

  test('the page of the current sub-route is highlighted', () => {
    expect(tagWith(html, 'nav-item-dhcpserver')).toContain('aria-current="page"');
    expect(tagWith(html, 'nav-item-interface')).not.toContain('aria-current');
  });
});

describe('status pages', () => {
  test('not found', () => {
    const html = render(createElement(NotFoundPage), '/nowhere');
    expect(html).toContain('data-testid="not-found"');
    expect(html).toContain('Page not found');
  });

  test('not available: the menu title and a plain statement', () => {
    const html = render(createElement(NotAvailablePage, { title: 'DHCP server' }));
    expect(html).toContain('data-testid="not-available"');
    expect(html).toContain('DHCP server');
    expect(html).toContain('This page is not available in this build.');
  });

  test('the loading bar is there only while active', () => {
    expect(render(createElement(LoadingBar, { active: false }))).not.toContain('loading-indicator');
    expect(tagWith(render(createElement(LoadingBar, { active: true })), 'loading-indicator')).toContain('role="progressbar"');
  });
});
