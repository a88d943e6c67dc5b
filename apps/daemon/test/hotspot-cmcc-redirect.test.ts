import { describe, expect, test } from 'vitest';
import { cmccRedirectUrl, type CmccRedirectInput } from '../src/domains/hotspot/cmcc/cmcc-redirect.js';

/** The captive redirect to the China Mobile portal server's page (cmccurl). */

const base: CmccRedirectInput = {
  portalUrl: 'http://portal.example.net/login.do',
  userIp: '10.1.0.20',
  acName: '0001.0010.100.00',
  acIp: '192.0.2.10',
};

describe('CMCC captive redirect', () => {
  test('carries wlanuserip, wlanacname and wlanacip', () => {
    const result = cmccRedirectUrl(base);
    expect(result).toEqual({
      ok: true,
      url: 'http://portal.example.net/login.do?wlanuserip=10.1.0.20&wlanacname=0001.0010.100.00&wlanacip=192.0.2.10',
    });
  });

  test('optional SSID, MAC and first page are encoded; cmccurl parameters are kept or replaced', () => {
    const result = cmccRedirectUrl({
      ...base,
      portalUrl: 'https://portal.example.net/p?area=gd&wlanuserip=1.1.1.1',
      ssid: 'CMCC 咖啡&Co',
      userMac: 'AA:BB:CC:00:11:22',
      firstUrl: 'http://news.example.com/a?b=c&d=e',
    });
    if (!result.ok) throw new Error(result.code);
    const url = new URL(result.url);
    expect(url.origin + url.pathname).toBe('https://portal.example.net/p');
    expect(url.searchParams.getAll('wlanuserip')).toEqual(['10.1.0.20']);
    expect(url.searchParams.get('area')).toBe('gd');
    expect(url.searchParams.get('ssid')).toBe('CMCC 咖啡&Co');
    expect(url.searchParams.get('wlanusermac')).toBe('aa-bb-cc-00-11-22');
    expect(url.searchParams.get('wlanuserfirsturl')).toBe('http://news.example.com/a?b=c&d=e');
    expect(result.url).not.toContain(' ');
    expect(result.url).not.toContain('咖');
  });

  test.each([
    [{ portalUrl: 'javascript:alert(1)' }, 'portal-url'],
    [{ portalUrl: 'ftp://portal.example.net/' }, 'portal-url'],
    [{ portalUrl: 'http://user:pw@portal.example.net/' }, 'portal-url'],
    [{ portalUrl: 'not a url' }, 'portal-url'],
    [{ userIp: '10.1.0.256' }, 'user-ip'],
    [{ userIp: '10.1.0.2&x=1' }, 'user-ip'],
    [{ acName: 'ac name' }, 'ac-name'],
    [{ acName: '' }, 'ac-name'],
    [{ acName: 'a'.repeat(65) }, 'ac-name'],
    [{ acIp: 'fe80::1' }, 'ac-ip'],
    [{ ssid: '' }, 'ssid'],
    [{ ssid: 'a'.repeat(33) }, 'ssid'],
    [{ ssid: '咖啡咖啡咖啡咖啡咖啡咖' }, 'ssid'],
    [{ ssid: 'bad\nssid' }, 'ssid'],
    [{ userMac: '00:11:22:33:44' }, 'user-mac'],
    [{ firstUrl: 'data:text/html,hi' }, 'first-url'],
  ] as const)('refuses %o', (change, code) => {
    expect(cmccRedirectUrl({ ...base, ...change })).toEqual({ ok: false, code });
  });
});
