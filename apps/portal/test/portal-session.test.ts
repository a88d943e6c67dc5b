import { afterEach, describe, expect, test, vi } from 'vitest';
import enUS from '../../../packages/i18n/src/locales/en-US/portal.json';
import { fail, mountPortal, ok, stateOf, ZONE, type MountedPortal } from './portal-test-harness.js';

let portal: MountedPortal | undefined;
afterEach(() => {
  portal?.unmount();
  portal = undefined;
  vi.useRealTimers();
});

const online = (session: Record<string, unknown>) => stateOf(ZONE, { authorized: true, session });

describe('/auth/success', () => {
  test('shows account, plan, time and bytes remaining', async () => {
    portal = await mountPortal('/auth/success', {
      routes: { 'GET state': online({ secondsRemaining: 93784, bytesRemaining: 1610612736, username: 'alice', plan: 'Day pass' }) },
    });
    expect(portal.byTestId('session-username').textContent).toBe('alice');
    expect(portal.byTestId('session-plan').textContent).toBe('Day pass');
    expect(portal.byTestId('session-time').textContent).toBe('1 d 2 h 3 min 4 s');
    expect(portal.byTestId('session-bytes').textContent).toBe('1.5 GB');
  });

  test('null is unlimited', async () => {
    portal = await mountPortal('/auth/success', { routes: { 'GET state': online({ secondsRemaining: null, bytesRemaining: null }) } });
    expect(portal.byTestId('session-time').textContent).toBe(enUS.unlimited);
    expect(portal.byTestId('session-bytes').textContent).toBe(enUS.unlimited);
  });

  test('the time counts down and, at zero, the expiry notice follows', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    portal = await mountPortal('/auth/success', {
      routes: {
        'GET state': online({ secondsRemaining: 3, bytesRemaining: null }),
        'GET notice/expired': ok({ content: 'Buy more time at the desk.' }),
      },
    });
    expect(portal.byTestId('session-time').textContent).toBe('3 s');
    vi.advanceTimersByTime(1000);
    await portal.settle();
    expect(portal.byTestId('session-time').textContent).toBe('2 s');
    vi.advanceTimersByTime(2000);
    await portal.settle();
    expect(portal.path()).toBe('/notice/expired');
    expect(portal.byTestId('notice-content').textContent).toBe('Buy more time at the desk.');
  });

  test('the session is read again every minute (bytes change on the gateway)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    portal = await mountPortal('/auth/success', { routes: { 'GET state': online({ secondsRemaining: null, bytesRemaining: 2048 }) } });
    portal.routes['GET state'] = online({ secondsRemaining: null, bytesRemaining: 1024 });
    vi.advanceTimersByTime(60_000);
    await portal.settle();
    expect(portal.requests.filter((r) => r.path === 'state')).toHaveLength(2);
    expect(portal.byTestId('session-bytes').textContent).toBe('1.0 KB');
    // A refresh that fails keeps the figures on screen.
    portal.routes['GET state'] = { status: 502, raw: 'bad gateway' };
    vi.advanceTimersByTime(60_000);
    await portal.settle();
    expect(portal.requests.filter((r) => r.path === 'state')).toHaveLength(3);
    expect(portal.byTestId('session-bytes').textContent).toBe('1.0 KB');
  });

  test('logout posts and says the device is disconnected', async () => {
    portal = await mountPortal('/auth/success', {
      routes: { 'GET state': online({ secondsRemaining: 60, bytesRemaining: null }), 'POST logout': ok({}) },
    });
    await portal.click('session-logout');
    expect(portal.requests.at(-1)).toMatchObject({ method: 'POST', path: 'logout' });
    expect(portal.byTestId('auth-logged-out').textContent).toContain(enUS.success.loggedOut);
  });

  test('a failed logout shows its message', async () => {
    portal = await mountPortal('/auth/success', {
      routes: { 'GET state': online({ secondsRemaining: 60, bytesRemaining: null }), 'POST logout': fail('portal.error.system') },
    });
    await portal.click('session-logout');
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.system);
  });

  test('a device that is not connected is sent to sign in', async () => {
    portal = await mountPortal('/auth/success', { routes: { 'GET state': stateOf() } });
    expect(portal.byTestId('auth-not-connected').textContent).toContain(enUS.success.notConnected);
  });

  test('the continue link takes only http(s) addresses', async () => {
    portal = await mountPortal('/auth/success?url=https%3A%2F%2Fexample.com%2F', {
      routes: { 'GET state': online({ secondsRemaining: null, bytesRemaining: null }) },
    });
    expect(portal.byTestId('session-continue').getAttribute('href')).toBe('https://example.com/');
    portal.unmount();
    portal = await mountPortal('/auth/success?url=javascript%3Aalert(1)', {
      routes: { 'GET state': online({ secondsRemaining: null, bytesRemaining: null }) },
    });
    expect(portal.maybe('session-continue')).toBeUndefined();
  });

  test('a malformed quota reads as a system error', async () => {
    portal = await mountPortal('/auth/success', { routes: { 'GET state': online({ secondsRemaining: '99', bytesRemaining: null }) } });
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.system);
  });
});

describe('/notice', () => {
  test('/notice/expired shows the operator text and a safe renew link', async () => {
    portal = await mountPortal('/notice/expired', {
      routes: { 'GET notice/expired': ok({ content: '<b>Renew</b> at the desk', renewUrl: 'http://shop.example/renew' }) },
    });
    expect(portal.byTestId('notice-content').textContent).toBe('<b>Renew</b> at the desk');
    expect(portal.byTestId('notice-renew').getAttribute('href')).toBe('http://shop.example/renew');
  });

  test('/notice/expired without text shows the default and drops an unsafe renew link', async () => {
    portal = await mountPortal('/notice/expired', { routes: { 'GET notice/expired': ok({ renewUrl: 'data:text/html,x' }) } });
    expect(portal.byTestId('notice-content').textContent).toBe(enUS.notice.expiredDefault);
    expect(portal.maybe('notice-renew')).toBeUndefined();
  });

  test('/notice/local shows the notice as text, or says there is none', async () => {
    portal = await mountPortal('/notice/local', { routes: { 'GET notice/local': ok({ content: 'Closed on Monday.\nThanks!' }) } });
    expect(portal.byTestId('notice-content').textContent).toBe('Closed on Monday.\nThanks!');
    portal.unmount();
    portal = await mountPortal('/notice', { routes: { 'GET notice/local': ok({ content: '' }) } });
    expect(portal.byTestId('notice-empty').textContent).toBe(enUS.notice.localEmpty);
  });

  test('a notice that fails to load shows the request error', async () => {
    portal = await mountPortal('/notice/local', { routes: { 'GET notice/local': fail('portal.error.system') } });
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.system);
  });
});
