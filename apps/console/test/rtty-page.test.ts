import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { LANGUAGES } from '@portico/i18n/load';

vi.mock('../src/shell/notice.js', () => ({ showErrorNotice: vi.fn(), showSuccessNotice: vi.fn() }));
vi.mock('../src/routes/navigation.js', async (original) => ({
  ...(await original<typeof import('../src/routes/navigation.js')>()),
  redirectToLogin: vi.fn(),
}));

const { checkAccess, RttyBody } = await import('../src/pages/rtty/rtty-page.js');
const { terminalProtocols, terminalUrl } = await import('../src/pages/rtty/rtty-terminal.js');
const { redirectToLogin } = await import('../src/routes/navigation.js');
const { i18n } = await import('../src/i18n/console-i18n.js');

/*
 * The browser terminal's page: what it finds out before opening a terminal (the session and
 * the terminal's status, without leaving for /login), and what it says when it cannot open one.
 */

const fetchMock = vi.fn<(url: string) => Promise<Response>>();
const answers = new Map<string, { status: number; body: unknown }>();
const STATUS = { available: true, open: 0, max: 4, idleSeconds: 900, permitted: true };

beforeEach(async () => {
  answers.clear();
  fetchMock.mockReset();
  fetchMock.mockImplementation(async (url) => {
    const path = /\/api\/([^?]+)/.exec(url)?.[1] ?? '';
    const answer = answers.get(path) ?? { status: 404, body: {} };
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.mocked(redirectToLogin).mockClear();
  await i18n.changeLanguage('en-US');
});

function render(access: Parameters<typeof RttyBody>[0]['access']): string {
  return renderToString(
    createElement(I18nextProvider, { i18n }, createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: ['/rtty'] }, createElement(RttyBody, { access })))),
  );
}

describe('checkAccess', () => {
  test('no session: signed out, and the page stays', async () => {
    answers.set('islogin', { status: 401, body: { success: false, msg: 'unauthorized' } });
    expect(await checkAccess()).toEqual({ kind: 'signedOut' });
    expect(redirectToLogin).not.toHaveBeenCalled();
  });

  test('an administrator: ready, with the session CSRF token for the socket', async () => {
    answers.set('islogin', { status: 200, body: { success: true, data: { username: 'admin', privilege: 0, csrf: 'tok' } } });
    answers.set('sysconf/rtty', { status: 200, body: { success: true, data: STATUS } });
    expect(await checkAccess()).toEqual({ kind: 'ready', csrf: 'tok', status: STATUS });
  });

  test('a visitor, or a device without the helper: refused with the reason', async () => {
    answers.set('islogin', { status: 200, body: { success: true, data: { username: 'visitor', privilege: 2, csrf: 'tok' } } });
    answers.set('sysconf/rtty', { status: 200, body: { success: true, data: { ...STATUS, permitted: false } } });
    expect(await checkAccess()).toEqual({ kind: 'refused', message: 'system.rtty.forbidden' });
    answers.set('sysconf/rtty', { status: 200, body: { success: true, data: { ...STATUS, available: false } } });
    expect(await checkAccess()).toEqual({ kind: 'refused', message: 'system.rtty.unavailable' });
    answers.set('sysconf/rtty', { status: 200, body: { success: false, msg: 'forbidden' } });
    expect(await checkAccess()).toEqual({ kind: 'refused', message: 'system.rtty.forbidden' });
  });
});

describe('the page without a terminal', () => {
  test.each([...LANGUAGES])('signed out, in %s: it says so and links to /login', async (language) => {
    await i18n.changeLanguage(language);
    const html = render({ kind: 'signedOut' });
    expect(html).toContain(i18n.t('system.rtty.signIn'));
    expect(html).toMatch(/<a[^>]*data-testid="rtty-login-link"[^>]*href="\/login"/);
    expect(i18n.t('system.rtty.signIn')).not.toBe('system.rtty.signIn');
  });

  test('refused: the translated reason', () => {
    expect(render({ kind: 'refused', message: 'system.rtty.forbidden' })).toContain('Your account may not open the device terminal.');
  });
});

describe('the socket', () => {
  test('same host, ws or wss after the page; the CSRF token offered as a subprotocol', () => {
    expect(terminalUrl({ protocol: 'http:', host: '192.168.11.1:8080' })).toBe('ws://192.168.11.1:8080/api/sysconf/rtty');
    expect(terminalUrl({ protocol: 'https:', host: 'gw.example' })).toBe('wss://gw.example/api/sysconf/rtty');
    expect(terminalProtocols('abc')).toEqual(['portico-tty', 'csrf.abc']);
  });
});
