import { afterEach, describe, expect, test } from 'vitest';
import enUS from '../../../packages/i18n/src/locales/en-US/portal.json';
import zhCN from '../../../packages/i18n/src/locales/zh-CN/portal.json';
import zhTW from '../../../packages/i18n/src/locales/zh-TW/portal.json';
import { formatBytes, formatDueTime, formatDuration } from '../src/portal-format.js';
import { createTranslate, pickLanguage } from '../src/portal-i18n.js';
import { resolvePage } from '../src/portal-routes.js';
import { mountPortal, ok, stateOf, type MountedPortal } from './portal-test-harness.js';

let portal: MountedPortal | undefined;
afterEach(() => {
  portal?.unmount();
  portal = undefined;
});

describe('routes', () => {
  test.each([
    ['/', 'authPortal'],
    ['/auth', 'authPortal'],
    ['/auth/portal', 'authPortal'],
    ['/auth/success/', 'authSuccess'],
    ['/notice', 'noticeLocal'],
    ['/notice/expired', 'noticeExpired'],
    ['/notice/local', 'noticeLocal'],
    ['/terminal', 'userLogin'],
    ['/terminal/user', 'userLogin'],
    ['/terminal/user/login', 'userLogin'],
    ['/terminal/user/register', 'userRegister'],
    ['/terminal/user/cpwd', 'userCpwd'],
    ['/terminal/user/mgrsuc', 'userMgrsuc'],
    ['/terminal/user/mgr', 'userMgr'],
    ['/user', 'userLogin'],
    ['/user/login', 'userLogin'],
    ['/user/register', 'userRegister'],
    ['/user/cpwd', 'userCpwd'],
    ['/user/mgr', 'userMgr'],
    ['/user/mgrsuc', 'userMgrsuc'],
    ['/rtty', null],
    ['/users', null],
    ['/user/admin', null],
    ['/api/login', null],
  ])('%s -> %s', (path, page) => {
    expect(resolvePage(path)).toBe(page);
  });

  test('an unknown path says not found; a page of another feature says not available', async () => {
    portal = await mountPortal('/nowhere');
    expect(portal.byTestId('portal-not-found').textContent).toBe(enUS.notFound);
    portal.unmount();
    portal = await mountPortal('/auth/social/callback');
    expect(portal.byTestId('portal-not-available').textContent).toBe(enUS.notAvailable);
  });

  test('links navigate in place and the back button follows', async () => {
    portal = await mountPortal('/user/login', { routes: { 'GET state': stateOf() } });
    const link = portal.all((e) => e.localName === 'a' && e.getAttribute('href') === '/user/register')[0]!;
    const event = link.dispatch('click');
    await portal.settle();
    expect(event.defaultPrevented).toBe(true);
    expect(portal.window.pushed).toEqual(['/user/register']);
    expect(portal.maybe('user-register')).toBeDefined();
    portal.window.location.assign('/user/login');
    for (const listener of portal.window.popstate) listener();
    await portal.settle();
    expect(portal.maybe('user-login')).toBeDefined();
  });
});

describe('language', () => {
  test.each([
    [['zh-CN', 'en'], 'zh-CN', zhCN],
    [['zh-Hant-TW'], 'zh-TW', zhTW],
    [['zh-HK', 'en'], 'zh-TW', zhTW],
    [['fr-FR', 'zh'], 'zh-CN', zhCN],
    [['de-DE'], 'en-US', enUS],
  ])('browser languages %j -> %s', async (languages, lang, strings) => {
    portal = await mountPortal('/notice/local', { languages, routes: { 'GET notice/local': ok({ content: '' }) } });
    expect((portal.window.document.documentElement as unknown as { lang: string }).lang).toBe(lang);
    expect(portal.byTestId('notice-empty').textContent).toBe(strings.notice.localEmpty);
  });

  test('the switch changes every string, is remembered and wins over the browser', async () => {
    portal = await mountPortal('/auth/portal', { languages: ['en-US'], routes: { 'GET state': stateOf() } });
    await portal.select('portal-lang', 'zh-TW');
    expect(portal.byTestId('auth-tab-voucher').textContent).toBe(zhTW.auth.method.voucher);
    expect(portal.window.document.title).toBe(zhTW.title);
    const stored = [...portal.window.storage.items.values()];
    expect(stored).toEqual(['zh-TW']);
    portal.unmount();
    portal = await mountPortal('/auth/portal', { languages: ['en-US'], routes: { 'GET state': stateOf() } });
    expect(portal.byTestId('auth-tab-voucher').textContent).toBe(enUS.auth.method.voucher);
  });

  test('the portal works when storage is blocked', async () => {
    const blocked = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('SecurityError');
      },
    };
    portal = await mountPortal('/auth/portal', { languages: ['zh-CN'], routes: { 'GET state': stateOf() }, globals: { localStorage: blocked } });
    expect(portal.byTestId('auth-tab-voucher').textContent).toBe(zhCN.auth.method.voucher);
    await portal.select('portal-lang', 'en-US');
    expect(portal.byTestId('auth-tab-voucher').textContent).toBe(enUS.auth.method.voucher);
  });

  test('a stored choice that is not a language is ignored', () => {
    expect(pickLanguage('xx', ['zh-TW'])).toBe('zh-TW');
    expect(pickLanguage('zh-CN', ['zh-TW'])).toBe('zh-CN');
  });
});

describe('formatters', () => {
  test('bytes match the product helpers (base 1024, one decimal above bytes)', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(1048575)).toBe('1.0 MB');
    expect(formatBytes(5 * 1024 ** 4)).toBe('5.0 TB');
    expect(formatBytes(Number.NaN)).toBe('-');
  });

  test('due times: epoch seconds, epoch milliseconds, date text, none', () => {
    const t = createTranslate('en-US');
    const expected = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(1767225600000));
    expect(formatDueTime(1767225600, t, 'en-US')).toBe(expected);
    expect(formatDueTime(1767225600000, t, 'en-US')).toBe(expected);
    expect(formatDueTime('2026-01-01T00:00:00Z', t, 'en-US')).toBe(expected);
    expect(formatDueTime('end of season', t, 'en-US')).toBe('end of season');
    expect(formatDueTime(0, t, 'en-US')).toBe(t('portal.user.noExpiry'));
  });

  test('durations read naturally in each language', () => {
    expect(formatDuration(90061, createTranslate('en-US'), 'en-US')).toBe('1 d 1 h 1 min 1 s');
    expect(formatDuration(90061, createTranslate('zh-CN'), 'zh-CN')).toBe('1天1小时1分钟1秒');
    expect(formatDuration(3600, createTranslate('zh-TW'), 'zh-TW')).toBe('1小時');
    expect(formatDuration(0, createTranslate('en-US'), 'en-US')).toBe('0 s');
    expect(formatDuration(-5, createTranslate('en-US'), 'en-US')).toBe('0 s');
  });
});
