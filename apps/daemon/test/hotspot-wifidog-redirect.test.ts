import { describe, expect, it } from 'vitest';
import {
  parseWifidogSection,
  wifidogLoginUrl,
  wifidogPortalUrl,
  WifidogConfigError,
  WIFIDOG_ORIGINAL_URL_MAX,
} from '../src/domains/hotspot/wifidog/wifidog-redirect.js';

const GATEWAY = { id: 'portico-gw1', address: '192.168.1.1', port: 2060 };
const CLIENT = { ip: '192.168.1.23', mac: 'AA:BB:CC:DD:EE:01', url: 'http://example.com/' };

function refusedField(section: Record<string, unknown>): string | null {
  try {
    parseWifidogSection({ server: 'auth.example.com', port: 80, ...section });
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(WifidogConfigError);
    return (error as WifidogConfigError).field;
  }
}

describe('wifidog section', () => {
  it('takes the defaults of the protocol for empty paths', () => {
    const config = parseWifidogSection({ server: 'auth.example.com', port: '8080', auth_uri: '', keepalive_uri: '' });
    expect(config).toEqual({
      server: 'auth.example.com',
      port: 8080,
      https: false,
      authPath: '/wifidog/',
      keepalivePath: '/wifidog/ping/',
      redirectUrl: '',
      merchantId: '',
    });
    expect(parseWifidogSection({ server: '10.0.0.5', port: 443, https: true, auth_uri: '/portal/wd' }).authPath).toBe('/portal/wd/');
  });

  it('refuses server names, ports and paths that could change where requests go', () => {
    expect(refusedField({ server: 'evil.com/x' })).toBe('server');
    expect(refusedField({ server: 'a b' })).toBe('server');
    expect(refusedField({ server: 'user@host' })).toBe('server');
    expect(refusedField({ server: '' })).toBe('server');
    expect(refusedField({ server: 42 })).toBe('server');
    expect(refusedField({ port: 0 })).toBe('port');
    expect(refusedField({ port: 70000 })).toBe('port');
    expect(refusedField({ port: '80; rm' })).toBe('port');
    for (const path of ['wifidog/', '/x?gw_id=evil', '/x#y', '/a/../b/', '/a\nb/', '/a b/', '/%zz/', '/a&b/', '/a\\b/']) {
      expect(refusedField({ auth_uri: path }), path).toBe('auth_uri');
      expect(refusedField({ keepalive_uri: path }), path).toBe('keepalive_uri');
    }
    for (const url of ['javascript:alert(1)', 'http://user:pw@example.com/', 'ftp://example.com/', 'http://example.com/\u0007', 'not a url']) {
      expect(refusedField({ redirect_url: url }), url).toBe('redirect_url');
    }
    expect(refusedField({ merchant_id: 'm\r\nX-Injected: 1' })).toBe('merchant_id');
    expect(refusedField({ merchant_id: 'x'.repeat(65) })).toBe('merchant_id');
    expect(refusedField({ redirect_url: 'https://example.com/welcome?a=1&b=2', merchant_id: 'shop&id=7' })).toBeNull();
  });
});

describe('wifidog login redirect', () => {
  it('carries the gateway and the client to the server login page, in order', () => {
    const config = parseWifidogSection({ server: 'auth.example.com', port: 8080 });
    const url = new URL(wifidogLoginUrl(config, GATEWAY, CLIENT));
    expect(url.origin).toBe('http://auth.example.com:8080');
    expect(url.pathname).toBe('/wifidog/login/');
    expect([...url.searchParams.keys()]).toEqual(['gw_address', 'gw_port', 'gw_id', 'ip', 'mac', 'url']);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      gw_address: '192.168.1.1',
      gw_port: '2060',
      gw_id: 'portico-gw1',
      ip: '192.168.1.23',
      mac: 'aa:bb:cc:dd:ee:01',
      url: 'http://example.com/',
    });
  });

  it('encodes hostile values so they stay one parameter each', () => {
    const config = parseWifidogSection({ server: '2001:db8::1', port: 443, https: true, merchant_id: 'shop&gw_id=evil' });
    const hostile = 'http://x/?a=1&gw_id=evil&mac=00:00:00:00:00:00#frag\r\nSet-Cookie: x=1 <script>"\'';
    const text = wifidogLoginUrl(config, GATEWAY, { ...CLIENT, url: hostile });
    // Nothing of the hostile text appears unencoded where it could end the URL or a header.
    expect(text).not.toMatch(/[\s"'<>#]/);
    expect(text.startsWith('https://[2001:db8::1]:443/wifidog/login/?')).toBe(true);
    const url = new URL(text);
    expect(url.hash).toBe('');
    expect(url.searchParams.getAll('gw_id')).toEqual(['portico-gw1']);
    expect(url.searchParams.getAll('mac')).toEqual(['aa:bb:cc:dd:ee:01']);
    expect(url.searchParams.get('url')).toBe(hostile);
    expect(url.searchParams.get('merchant_id')).toBe('shop&gw_id=evil');
    expect(text).toContain('url=http%3A%2F%2Fx%2F%3Fa%3D1%26gw_id%3Devil');
    expect(text).not.toContain('+');
  });

  it('drops an overlong original URL and refuses a malformed client or gateway', () => {
    const config = parseWifidogSection({ server: 'auth.example.com', port: 80 });
    const long = `http://x/${'a'.repeat(WIFIDOG_ORIGINAL_URL_MAX)}`;
    expect(new URL(wifidogLoginUrl(config, GATEWAY, { ...CLIENT, url: long })).searchParams.get('url')).toBe('');
    expect(() => wifidogLoginUrl(config, GATEWAY, { ...CLIENT, mac: 'aa:bb:cc:dd:ee:01&x=1' })).toThrow(/mac/);
    expect(() => wifidogLoginUrl(config, GATEWAY, { ...CLIENT, ip: '192.168.1.300' })).toThrow(/ip/);
    expect(() => wifidogLoginUrl(config, { ...GATEWAY, id: 'gw&evil=1' }, CLIENT)).toThrow(WifidogConfigError);
  });

  it('sends an admitted client to the configured page, else to the server portal', () => {
    const plain = parseWifidogSection({ server: 'auth.example.com', port: 80 });
    expect(wifidogPortalUrl(plain, 'gw 1')).toBe('http://auth.example.com:80/wifidog/portal/?gw_id=gw%201');
    const redirected = parseWifidogSection({ server: 'auth.example.com', port: 80, redirect_url: 'https://shop.example.com/hello' });
    expect(wifidogPortalUrl(redirected, 'gw1')).toBe('https://shop.example.com/hello');
  });
});
