import { afterEach, describe, expect, test } from 'vitest';
import enUS from '../../../packages/i18n/src/locales/en-US/portal.json';
import { fail, mountPortal, ok, stateOf, ZONE, type MountedPortal } from './portal-test-harness.js';

let portal: MountedPortal | undefined;
afterEach(() => {
  portal?.unmount();
  portal = undefined;
});

/** The element with this id attribute. */
const byId = (id: string) => portal!.all((e) => e.getAttribute('id') === id)[0]!;

const GRANT = ok({ secondsRemaining: 3600, bytesRemaining: 1048576 });

describe('/auth/portal', () => {
  test('shows the zone texts, one tab per allowed method and the terms of service', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf() } });
    await portal.click('auth-terms-link');
    expect(portal.byTestId('zone-welcome').textContent).toBe(ZONE.welcome);
    expect(portal.byTestId('zone-logintext').textContent).toBe(ZONE.logintext);
    expect(portal.byTestId('zone-chargetext').textContent).toBe(ZONE.chargetext);
    expect(portal.byTestId('zone-contact').textContent).toBe(`Contact: ${ZONE.contact}`);
    expect(portal.byTestId('zone-copyright').textContent).toBe(ZONE.copyright);
    expect(portal.byTestId('zone-tos').textContent).toBe(ZONE.tos);
    const tabs = portal.all((e) => e.getAttribute('role') === 'tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual(['Voucher', 'Account', 'Access password', 'One-key']);
    expect(tabs[0]!.getAttribute('aria-selected')).toBe('true');
    // Each field has its label.
    const label = portal.all((e) => e.localName === 'label' && e.getAttribute('for') === 'field-code')[0];
    expect(label?.textContent).toBe('Voucher code');
  });

  test('only the methods the zone allows get a tab; a single method has no tab list', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf({ ...ZONE, methods: ['password', 'weixin', 7] }) } });
    expect(portal.all((e) => e.getAttribute('role') === 'tab')).toHaveLength(0);
    expect(portal.maybe('field-password')).toBeDefined();
    expect(portal.maybe('field-code')).toBeUndefined();
  });

  test('a zone without methods says sign-in is not offered', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf({ ...ZONE, methods: [] }) } });
    expect(portal.text()).toContain(enUS.auth.noMethods);
    expect(portal.maybe('auth-form')).toBeUndefined();
  });

  test('a known error key the gateway sent the browser back with is shown translated', async () => {
    portal = await mountPortal('/auth/portal?error=portal.error.authFailed', { routes: { 'GET state': stateOf({ ...ZONE, methods: [] }) } });
    expect(portal.byTestId('auth-returned-error').textContent).toBe(enUS.error.authFailed);
    expect(portal.byTestId('auth-returned-error').getAttribute('role')).toBe('alert');
  });

  test('an unknown or foreign error value in the address is not shown', async () => {
    for (const value of ['portal.error.noSuchKey', 'portal.auth.title', encodeURIComponent('<b>Call 555 for help</b>')]) {
      portal = await mountPortal(`/auth/portal?error=${value}`, { routes: { 'GET state': stateOf() } });
      expect(portal.maybe('auth-form')).toBeDefined();
      expect(portal.maybe('auth-returned-error')).toBeUndefined();
      expect(portal.text()).not.toContain('555');
      expect(portal.text()).not.toContain('noSuchKey');
      portal.unmount();
      portal = undefined;
    }
  });

  test('an authorised device is told so and pointed at its status', async () => {
    portal = await mountPortal('/auth/portal', {
      routes: { 'GET state': stateOf(ZONE, { authorized: true, session: { secondsRemaining: 5, bytesRemaining: null } }) },
    });
    expect(portal.byTestId('auth-already-online').textContent).toContain(enUS.auth.alreadyOnline);
  });

  test('API text is rendered as text and unsafe addresses are dropped', async () => {
    const hostile = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    portal = await mountPortal('/auth/portal', {
      routes: {
        'GET state': stateOf({
          ...ZONE,
          welcome: hostile,
          tos: hostile,
          logo: 'javascript:alert(1)',
          picture: '/portal-assets/../uploads/picture.png',
        }),
      },
    });
    expect(portal.byTestId('zone-welcome').textContent).toBe(hostile);
    await portal.click('auth-terms-link');
    expect(portal.byTestId('zone-tos').textContent).toBe(hostile);
    expect(portal.all((e) => e.localName === 'script')).toHaveLength(0);
    expect(portal.maybe('zone-logo')).toBeUndefined();
    expect(portal.byTestId('zone-picture').getAttribute('src')).toBe('http://10.0.0.1:2050/uploads/picture.png');
    const images = portal.all((e) => e.localName === 'img');
    expect(images.map((img) => img.getAttribute('src'))).toEqual(['http://10.0.0.1:2050/uploads/picture.png']);
  });

  test('the terms must be accepted: client-side error on the field, nothing sent', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf(), 'POST login': GRANT } });
    await portal.type('field-code', 'ABCD1234');
    await portal.submit('auth-form');
    expect(portal.requests.filter((r) => r.path === 'login')).toHaveLength(0);
    expect(portal.byTestId('field-acceptTerms-error').textContent).toBe(enUS.validation.terms);
    expect(portal.byTestId('field-acceptTerms').getAttribute('aria-invalid')).toBe('true');
    expect(portal.byTestId('field-acceptTerms').getAttribute('aria-describedby')).toBe('field-acceptTerms-error');
  });

  test('a server-side terms error is shown on the same field, without a general message', async () => {
    portal = await mountPortal('/auth/portal', {
      routes: { 'GET state': stateOf(), 'POST login': fail('msg.invalid', { acceptTerms: 'validation.required' }) },
    });
    await portal.type('field-code', 'ABCD1234');
    await portal.check('field-acceptTerms', true);
    await portal.submit('auth-form');
    expect(portal.byTestId('field-acceptTerms-error').textContent).toBe(enUS.validation.terms);
    expect(portal.maybe('form-error')).toBeUndefined();
  });

  test('empty required fields are flagged before anything is sent', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf() } });
    await portal.click('auth-tab-local');
    await portal.check('field-acceptTerms', true);
    await portal.submit('auth-form');
    expect(portal.byTestId('field-username-error').textContent).toBe(enUS.validation.required);
    expect(portal.byTestId('field-password-error').textContent).toBe(enUS.validation.required);
    expect(portal.requests.map((r) => r.path)).toEqual(['state']);
  });

  test.each([
    ['voucher', [['field-code', ' ABCD1234 ']], { method: 'voucher', code: 'ABCD1234', acceptTerms: true }],
    ['local', [['field-username', 'alice'], ['field-password', 'secret99']], { method: 'local', username: 'alice', password: 'secret99', acceptTerms: true }],
    ['password', [['field-password', 'cafe2024']], { method: 'password', password: 'cafe2024', acceptTerms: true }],
    ['onekey', [], { method: 'onekey', acceptTerms: true }],
  ] as const)('%s login sends its fields and lands on /auth/success', async (method, fields, body) => {
    portal = await mountPortal('/auth/portal?url=http%3A%2F%2Fexample.com%2Fnews', {
      routes: { 'GET state': stateOf(), 'POST login': GRANT },
    });
    await portal.click(`auth-tab-${method}`);
    for (const [id, value] of fields) await portal.type(id, value);
    await portal.check('field-acceptTerms', true);
    portal.routes['GET state'] = stateOf(ZONE, { authorized: true, session: { secondsRemaining: 3600, bytesRemaining: 1048576 } });
    await portal.submit('auth-form');
    expect(portal.requests.find((r) => r.path === 'login')?.body).toEqual(body);
    expect(portal.path()).toBe('/auth/success?url=http%3A%2F%2Fexample.com%2Fnews');
    expect(portal.byTestId('session-time').textContent).toBe('1 h');
  });

  test('a zone signing in by LDAP asks for the directory account', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf({ ...ZONE, methods: ['ldap'] }), 'POST login': GRANT } });
    expect(portal.all((e) => e.getAttribute('role') === 'tab')).toHaveLength(0);
    await portal.type('field-username', ' alice ');
    await portal.type('field-password', 'Alice-pass1');
    await portal.check('field-acceptTerms', true);
    await portal.submit('auth-form');
    expect(portal.requests.find((r) => r.path === 'login')?.body).toEqual({ method: 'ldap', username: 'alice', password: 'Alice-pass1', acceptTerms: true });
  });

  test('a zone signing in by SMS sends a code to the phone, counts down, then signs in with the code', async () => {
    portal = await mountPortal('/auth/portal', {
      routes: { 'GET state': stateOf({ ...ZONE, methods: ['sms'] }), 'POST sms/code': ok({ expiresAt: 1, resendSeconds: 60 }), 'POST login': GRANT },
    });
    await portal.click('auth-sms-send');
    expect(portal.byTestId('field-phone-error').textContent).toBe(enUS.validation.required);
    expect(portal.requests.filter((r) => r.path === 'sms/code')).toHaveLength(0);
    await portal.type('field-phone', ' +86 138 0013 8000 ');
    await portal.click('auth-sms-send');
    expect(portal.requests.find((r) => r.path === 'sms/code')?.body).toEqual({ phone: '+86 138 0013 8000' });
    expect(portal.byTestId('auth-sms-sent').textContent).toBe(enUS.auth.codeSent);
    expect(portal.byTestId('auth-sms-send').textContent).toBe('Send again in 60 s');
    expect(portal.byTestId('auth-sms-send').disabled).toBe(true);
    await portal.type('field-smsCode', '123456');
    await portal.check('field-acceptTerms', true);
    await portal.submit('auth-form');
    expect(portal.requests.find((r) => r.path === 'login')?.body).toEqual({ method: 'sms', phone: '+86 138 0013 8000', code: '123456', acceptTerms: true });
  });

  test.each([
    ['portal.error.smsCooldown', enUS.error.smsCooldown],
    ['portal.error.smsSend', enUS.error.smsSend],
    ['portal.error.phone', enUS.error.phone],
  ])('a code that was not sent says why: %s', async (msg, shown) => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf({ ...ZONE, methods: ['sms'] }), 'POST sms/code': fail(msg) } });
    await portal.type('field-phone', '+8613800138000');
    await portal.click('auth-sms-send');
    expect(portal.byTestId('form-error').textContent).toBe(shown);
    expect(portal.byTestId('auth-sms-send').disabled).toBe(false);
  });

  // Spec §8 login errors, plus the guessing limit.
  test.each([
    ['portal.error.code', enUS.error.code],
    ['portal.error.password', enUS.error.password],
    ['portal.error.userOrPassword', enUS.error.userOrPassword],
    ['portal.error.expired', enUS.error.expired],
    ['portal.error.quota', enUS.error.quota],
    ['portal.error.onlineLimit', enUS.error.onlineLimit],
    ['portal.error.blocked', enUS.error.blocked],
    ['portal.error.notConfigured', enUS.error.notConfigured],
    ['portal.error.system', enUS.error.system],
    ['portal.error.tooMany', enUS.error.tooMany],
    ['portal.error.connectFailed', enUS.error.connectFailed],
    ['portal.error.userExists', enUS.error.userExists],
    ['portal.title', enUS.error.system],
    ['<b>raw server text</b>', enUS.error.system],
  ])('a failed login with msg %s shows "%s"', async (msg, shown) => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf(), 'POST login': fail(msg) } });
    await portal.type('field-code', 'WRONG');
    await portal.check('field-acceptTerms', true);
    await portal.submit('auth-form');
    expect(portal.byTestId('form-error').textContent).toBe(shown);
    expect(portal.byTestId('form-error').getAttribute('role')).toBe('alert');
    expect(portal.path()).toBe('/auth/portal');
  });

  test('a reply that is not the API (proxy error, 429 page) reads as request failed / too many', async () => {
    portal = await mountPortal('/auth/portal', {
      routes: { 'GET state': stateOf(), 'POST login': { status: 502, raw: '<html>Bad gateway</html>' } },
    });
    await portal.type('field-code', 'X1');
    await portal.check('field-acceptTerms', true);
    await portal.submit('auth-form');
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.network);
    portal.routes['POST login'] = { status: 429, raw: 'slow down' };
    await portal.submit('auth-form');
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.tooMany);
  });

  test('field errors only on fields the form does not show still give a message', async () => {
    portal = await mountPortal('/auth/portal', {
      routes: { 'GET state': stateOf(), 'POST login': fail('msg.invalid', { method: 'validation.required' }) },
    });
    await portal.type('field-code', 'X1');
    await portal.check('field-acceptTerms', true);
    await portal.submit('auth-form');
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.system);
  });

  test('a field error from the server lands on its field', async () => {
    portal = await mountPortal('/auth/portal', {
      routes: { 'GET state': stateOf(), 'POST login': fail('portal.error.code', { code: 'validation.required', other: 'validation.x' }) },
    });
    await portal.type('field-code', 'X1');
    await portal.check('field-acceptTerms', true);
    await portal.submit('auth-form');
    expect(portal.byTestId('field-code-error').textContent).toBe(enUS.validation.required);
  });

  test('the state failing to load offers a retry', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': { status: 500, raw: 'oops' } } });
    expect(byId('portal-unavailable-title').textContent).toBe(enUS.auth.failedTitle);
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.network);
    portal.routes['GET state'] = stateOf();
    await portal.click('portal-retry');
    expect(portal.byTestId('zone-welcome').textContent).toBe(ZONE.welcome);
  });

  test('a malformed state reads as a system error', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': ok({ authorized: 'yes', zone: ZONE }) } });
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.system);
  });

  test('the local tab links to the self-service pages', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf(), 'GET user/me': fail('portal.error.system') } });
    await portal.click('auth-tab-local');
    const links = portal.all((e) => e.localName === 'a' && e.getAttribute('href') !== '#terms').map((a) => a.getAttribute('href'));
    expect(links).toEqual(['/user/register', '/user/login']);
  });

  test('a device no service zone covers is told sign-in is not set up here, not "system error"', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': fail('portal.error.notConfigured') } });
    expect(portal.byTestId('portal-unavailable').textContent).toContain(enUS.auth.notConfiguredTitle);
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.notConfigured);
    expect(portal.maybe('auth-form')).toBeUndefined();
  });

  test('the terms open as a sheet with their own title; accepting there ticks the box', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf({ ...ZONE, tosTitle: 'Cafe Wi-Fi rules' }), 'POST login': GRANT } });
    expect(portal.maybe('zone-tos')).toBeUndefined();
    await portal.type('field-code', 'ABCD1234');
    expect(portal.byTestId('auth-terms-link').textContent).toBe('Cafe Wi-Fi rules');
    await portal.click('auth-terms-link');
    const sheet = portal.all((e) => e.getAttribute('role') === 'dialog')[0]!;
    expect(sheet.getAttribute('aria-modal')).toBe('true');
    expect(byId('auth-terms-title').textContent).toBe('Cafe Wi-Fi rules');
    await portal.click('auth-terms-close');
    expect(portal.maybe('zone-tos')).toBeUndefined();
    expect(portal.byTestId('field-acceptTerms').checked).toBe(false);
    await portal.click('auth-terms-link');
    await portal.click('auth-terms-accept');
    expect(portal.maybe('zone-tos')).toBeUndefined();
    // What was typed before is still there, and the login goes out with the terms accepted.
    await portal.submit('auth-form');
    expect(portal.requests.find((r) => r.path === 'login')?.body).toEqual({ method: 'voucher', code: 'ABCD1234', acceptTerms: true });
  });

  test('without terms text the box has its plain sentence and no link', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf({ ...ZONE, tos: '  ' }) } });
    expect(portal.maybe('auth-terms-link')).toBeUndefined();
    expect(portal.text()).toContain(enUS.auth.acceptTerms);
  });

  test('no welcome text and no logo: a generic welcome and the Wi-Fi mark, no broken image', async () => {
    portal = await mountPortal('/auth/portal', { routes: { 'GET state': stateOf({ ...ZONE, welcome: '' }) } });
    expect(portal.byTestId('zone-welcome').textContent).toBe(enUS.auth.welcome);
    expect(portal.all((e) => e.localName === 'img')).toHaveLength(0);
  });
});
