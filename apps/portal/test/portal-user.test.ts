import { afterEach, describe, expect, test } from 'vitest';
import enUS from '../../../packages/i18n/src/locales/en-US/portal.json';
import { fail, mountPortal, ok, type MountedPortal } from './portal-test-harness.js';

let portal: MountedPortal | undefined;
afterEach(() => {
  portal?.unmount();
  portal = undefined;
});

const ACCOUNT = { username: 'alice', plan: 'Monthly', duetime: '', totalflow: 10737418240, usedflow: 2147483648, usernum: 2 };

describe('self-service pages', () => {
  test('/user/login signs in and opens the account page', async () => {
    portal = await mountPortal('/user/login', { routes: { 'POST user/login': ok(ACCOUNT), 'GET user/me': ok(ACCOUNT) } });
    expect(portal.text()).toContain(enUS.user.cookieNote);
    await portal.type('field-username', ' alice ');
    await portal.type('field-password', 'secret99');
    await portal.submit('user-login-form');
    expect(portal.requests[0]).toEqual({ method: 'POST', path: 'user/login', body: { username: 'alice', password: 'secret99' } });
    expect(portal.path()).toBe('/user/mgr');
    expect(portal.byTestId('account-username').textContent).toBe('alice');
  });

  test('/user/login requires both fields', async () => {
    portal = await mountPortal('/user/login');
    await portal.submit('user-login-form');
    expect(portal.byTestId('field-username-error').textContent).toBe(enUS.validation.required);
    expect(portal.byTestId('field-password-error').textContent).toBe(enUS.validation.required);
    expect(portal.requests).toHaveLength(0);
  });

  test.each([
    ['portal.error.userOrPassword', enUS.error.userOrPassword],
    ['portal.error.expired', enUS.error.expired],
    ['portal.error.onlineLimit', enUS.error.onlineLimit],
    ['portal.error.tooMany', enUS.error.tooMany],
    ['portal.error.system', enUS.error.system],
  ])('/user/login failing with %s shows "%s"', async (msg, shown) => {
    portal = await mountPortal('/user/login', { routes: { 'POST user/login': fail(msg) } });
    await portal.type('field-username', 'alice');
    await portal.type('field-password', 'wrong');
    await portal.submit('user-login-form');
    expect(portal.byTestId('form-error').textContent).toBe(shown);
    expect(portal.path()).toBe('/user/login');
  });

  test('/user/register checks the name, the password rules and the repeat', async () => {
    portal = await mountPortal('/user/register');
    await portal.type('field-username', 'al ice');
    await portal.type('field-password', 'short');
    await portal.type('field-confirm', 'other');
    await portal.type('field-tel', 'call me');
    await portal.submit('user-register-form');
    expect(portal.byTestId('field-username-error').textContent).toBe(enUS.validation.usernameFormat);
    expect(portal.byTestId('field-password-error').textContent).toBe(enUS.validation.passwordFormat);
    expect(portal.byTestId('field-confirm-error').textContent).toBe(enUS.validation.passwordMismatch);
    expect(portal.byTestId('field-tel-error').textContent).toBe(enUS.validation.invalid);
    expect(portal.requests).toHaveLength(0);
  });

  test('/user/register sends and shows the success page', async () => {
    portal = await mountPortal('/user/register', { routes: { 'POST user/register': ok({}) } });
    await portal.type('field-username', 'bob2');
    await portal.type('field-password', 'abcd1234');
    await portal.type('field-confirm', 'abcd1234');
    await portal.type('field-tel', '+86 138 0000 0000');
    await portal.submit('user-register-form');
    expect(portal.requests[0]?.body).toEqual({ username: 'bob2', password: 'abcd1234', tel: '+86 138 0000 0000' });
    expect(portal.path()).toBe('/user/mgrsuc?done=register');
    expect(portal.byTestId('user-mgrsuc').textContent).toContain(enUS.user.registered);
  });

  test('/user/register: an existing user or prefix is reported', async () => {
    portal = await mountPortal('/user/register', {
      routes: { 'POST user/register': fail('portal.error.userExists', { username: 'validation.required' }) },
    });
    await portal.type('field-username', 'bob2');
    await portal.type('field-password', 'abcd1234');
    await portal.type('field-confirm', 'abcd1234');
    await portal.submit('user-register-form');
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.userExists);
    expect(portal.byTestId('field-username-error').textContent).toBe(enUS.validation.required);
    expect(portal.requests[0]?.body).toEqual({ username: 'bob2', password: 'abcd1234' });
  });

  test('/user/cpwd changes the password and keeps the /terminal prefix', async () => {
    portal = await mountPortal('/terminal/user/cpwd', { routes: { 'POST user/cpwd': ok({}) } });
    await portal.type('field-oldPassword', 'abcd1234');
    await portal.type('field-newPassword', 'efgh5678');
    await portal.type('field-confirm', 'efgh5678');
    await portal.submit('user-cpwd-form');
    expect(portal.requests[0]?.body).toEqual({ oldPassword: 'abcd1234', newPassword: 'efgh5678' });
    expect(portal.path()).toBe('/terminal/user/mgrsuc?done=cpwd');
    expect(portal.text()).toContain(enUS.user.passwordChanged);
  });

  test('/user/cpwd: a wrong current password is reported', async () => {
    portal = await mountPortal('/user/cpwd', { routes: { 'POST user/cpwd': fail('portal.error.password') } });
    await portal.type('field-oldPassword', 'nothis11');
    await portal.type('field-newPassword', 'efgh5678');
    await portal.type('field-confirm', 'efgh5678');
    await portal.submit('user-cpwd-form');
    expect(portal.byTestId('form-error').textContent).toBe(enUS.error.password);
  });

  test('/user/mgr shows plan, due time and data; 0 is unlimited', async () => {
    portal = await mountPortal('/user/mgr', { routes: { 'GET user/me': ok(ACCOUNT) } });
    expect(portal.byTestId('account-plan').textContent).toBe('Monthly');
    expect(portal.byTestId('account-duetime').textContent).toBe(enUS.user.noExpiry);
    expect(portal.byTestId('account-totalflow').textContent).toBe('10.0 GB');
    expect(portal.byTestId('account-usedflow').textContent).toBe('2.0 GB');
    expect(portal.byTestId('account-remainingflow').textContent).toBe('8.0 GB');
    expect(portal.byTestId('account-usernum').textContent).toBe('2');
    portal.unmount();
    portal = await mountPortal('/user/mgr', {
      routes: { 'GET user/me': ok({ ...ACCOUNT, totalflow: 0, usernum: 0, duetime: 1767225600 }) },
    });
    expect(portal.byTestId('account-totalflow').textContent).toBe(enUS.unlimited);
    expect(portal.byTestId('account-usernum').textContent).toBe(enUS.unlimited);
    expect(portal.byTestId('account-duetime').textContent).toMatch(/2025|2026/);
  });

  test('/user/mgr without a session asks to sign in', async () => {
    portal = await mountPortal('/user/mgr', { routes: { 'GET user/me': fail('portal.error.userOrPassword') } });
    expect(portal.byTestId('user-mgr-signin').textContent).toContain(enUS.user.signInFirst);
  });

  test('/user/mgr logout returns to the sign-in page', async () => {
    portal = await mountPortal('/user/mgr', { routes: { 'GET user/me': ok(ACCOUNT), 'POST user/logout': ok({}) } });
    await portal.click('account-logout');
    expect(portal.path()).toBe('/user/login');
    expect(portal.maybe('user-login')).toBeDefined();
  });

  test('/user/mgrsuc without an outcome links back to the account', async () => {
    portal = await mountPortal('/user/mgrsuc');
    expect(portal.byTestId('user-mgrsuc').textContent).toContain(enUS.user.toManage);
  });
});
