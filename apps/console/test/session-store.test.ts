import { beforeEach, describe, expect, test } from 'vitest';
import { parseCapabilities, parseSession, useSessionStore } from '../src/state/session-store.js';

describe('parseSession', () => {
  test('reads the daemon session reply', () => {
    expect(
      parseSession({
        username: 'admin',
        privilege: 0,
        role: 'manager',
        mustChangePassword: true,
        csrf: 'c1',
        lang: 'zh-CN',
        capabilities: ['vlan', 'hidden_language'],
      }),
    ).toEqual({
      username: 'admin',
      privilege: 0,
      role: 'manager',
      mustChangePassword: true,
      csrf: 'c1',
      lang: 'zh-CN',
      capabilities: ['vlan', 'hidden_language'],
    });
  });

  test('missing fields take the safe values: least privilege, role from privilege', () => {
    expect(parseSession({ username: 'v', privilege: 1 })).toMatchObject({ role: 'voucherAdmin', mustChangePassword: false, lang: null });
    expect(parseSession({ username: 'x' })).toMatchObject({ privilege: 2, role: 'guest', csrf: '' });
    expect(parseSession(null)).toMatchObject({ username: '', role: 'guest' });
    expect(parseSession({ mustChangePassword: 'yes' }).mustChangePassword).toBe(false);
  });

  test('the capability string is accepted as the device writes it', () => {
    expect(parseCapabilities('gateway nas  vlan qrcode')).toEqual(['gateway', 'nas', 'vlan', 'qrcode']);
    expect(parseCapabilities(['vlan', 3, ''])).toEqual(['vlan']);
    expect(parseCapabilities(undefined)).toEqual([]);
  });
});

describe('session store', () => {
  beforeEach(() => useSessionStore.setState({ status: 'unknown' }));

  test('sign in, update the token, sign out clears everything', () => {
    const store = useSessionStore.getState();
    store.signIn(parseSession({ username: 'admin', privilege: 0, csrf: 'a', mustChangePassword: true }));
    expect(useSessionStore.getState()).toMatchObject({ status: 'signedIn', username: 'admin', csrf: 'a' });
    useSessionStore.getState().update({ csrf: 'b', mustChangePassword: false });
    expect(useSessionStore.getState()).toMatchObject({ csrf: 'b', mustChangePassword: false, username: 'admin' });
    useSessionStore.getState().signOut();
    expect(useSessionStore.getState()).toMatchObject({ status: 'signedOut', username: '', csrf: '', capabilities: [] });
  });
});
