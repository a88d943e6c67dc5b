import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';

vi.mock('../src/shell/notice.js', () => ({ showErrorNotice: vi.fn(), showSuccessNotice: vi.fn() }));
vi.mock('../src/routes/navigation.js', async (original) => ({
  ...(await original<typeof import('../src/routes/navigation.js')>()),
  redirectToLogin: vi.fn(),
}));

const { apiPost } = await import('../src/api/api-client.js');
const actions = await import('../src/shell/apply-confirm-actions.js');
const { showErrorNotice, showSuccessNotice } = await import('../src/shell/notice.js');
const { useApplyConfirmStore } = await import('../src/state/apply-confirm-store.js');
const { useSessionStore, parseSession } = await import('../src/state/session-store.js');
const { i18n } = await import('../src/i18n/console-i18n.js');

function reply(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

const fetchMock = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();

function calls(): Array<{ url: string; method: string; body: Record<string, unknown> | null }> {
  return fetchMock.mock.calls.map(([url, init]) => ({
    url: url.split('?')[0]!,
    method: String(init.method),
    body: init.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : null,
  }));
}

beforeEach(async () => {
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockReset();
  vi.mocked(showErrorNotice).mockClear();
  vi.mocked(showSuccessNotice).mockClear();
  useApplyConfirmStore.setState({ pending: null, restoring: false, outcome: null });
  useSessionStore.getState().signOut();
  await i18n.changeLanguage('en-US');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('api-client hand-off of data.confirm', () => {
  test('a successful write whose reply carries data.confirm starts the countdown', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: true, data: { id: 'lan', confirm: { token: 'tok-7', deadline: 5, seconds: 90 } } }));
    const before = Date.now();
    const result = await apiPost('network', { ipaddr: '192.168.8.1' });
    expect(result.success).toBe(true);
    const pending = useApplyConfirmStore.getState().pending;
    expect(pending?.token).toBe('tok-7');
    expect(pending!.deadline).toBeGreaterThanOrEqual(before + 90_000);
    expect(pending!.deadline).toBeLessThanOrEqual(Date.now() + 90_000);
  });

  test('a write without it, or a refused write, leaves the store alone', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: true, data: { id: '1' } }));
    await apiPost('admin', { username: 'bob' });
    fetchMock.mockResolvedValueOnce(reply({ success: true }));
    await apiPost('admin', { username: 'bob' });
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'msg.saveFailed', data: { confirm: { token: 'x', seconds: 9 } } }));
    await apiPost('admin', { username: 'bob' });
    expect(useApplyConfirmStore.getState().pending).toBeNull();
  });
});

describe('the bar actions', () => {
  beforeEach(() => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'tok-1', seconds: 90 } });
  });

  test('Confirm posts the token with action confirm and clears the bar', async () => {
    useSessionStore.getState().signIn(parseSession({ username: 'admin', privilege: 0, csrf: 'c-1' }));
    fetchMock.mockResolvedValueOnce(reply({ success: true }));
    await actions.confirmPending();
    expect(calls()).toEqual([{ url: '/api/sysconf/confirm', method: 'POST', body: { token: 'tok-1', action: 'confirm' } }]);
    expect((fetchMock.mock.calls[0]![1].headers as Record<string, string>)['x-csrf-token']).toBe('c-1');
    expect(useApplyConfirmStore.getState().pending).toBeNull();
    expect(showSuccessNotice).toHaveBeenCalledWith('The change has been confirmed');
  });

  test('a refused confirmation keeps the bar so it can be tried again', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'msg.saveFailed' }));
    await actions.confirmPending();
    expect(useApplyConfirmStore.getState().pending?.token).toBe('tok-1');
    expect(showErrorNotice).toHaveBeenCalledOnce();
  });

  test('a confirmation that cannot be sent keeps the bar (this address may be cut off)', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await actions.confirmPending();
    expect(useApplyConfirmStore.getState().pending?.token).toBe('tok-1');
  });

  test('Revert now posts action revert with the token, then the change is put back', async () => {
    const putBack = vi.fn(() => Promise.resolve());
    fetchMock.mockResolvedValueOnce(reply({ success: true }));
    await actions.revertPending(putBack);
    expect(calls()).toEqual([{ url: '/api/sysconf/confirm', method: 'POST', body: { token: 'tok-1', action: 'revert' } }]);
    expect(putBack).toHaveBeenCalledExactlyOnceWith('reverted');
  });

  test('a token the device no longer knows: the bar ends and the page catches up', async () => {
    const putBack = vi.fn(() => Promise.resolve());
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'msg.confirmInvalid' }));
    await actions.confirmPending(putBack);
    expect(putBack).toHaveBeenCalledExactlyOnceWith('gone');
    expect(showErrorNotice).toHaveBeenCalledWith(i18n.t('msg.confirmInvalid'));
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'msg.confirmExpired' }));
    await actions.revertPending(putBack);
    expect(putBack).toHaveBeenLastCalledWith('gone');
    expect(putBack).toHaveBeenCalledTimes(2);
  });

  test('a refused revert keeps the bar', async () => {
    const putBack = vi.fn(() => Promise.resolve());
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'forbidden' }));
    await actions.revertPending(putBack);
    expect(putBack).not.toHaveBeenCalled();
    expect(useApplyConfirmStore.getState().pending?.token).toBe('tok-1');
  });
});

describe('sync with the device after a reload', () => {
  test('the device still waits: the countdown follows its seconds', async () => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'tok-1', seconds: 90 } });
    fetchMock.mockResolvedValueOnce(reply({ success: true, data: { pending: true, deadline: 1, secondsLeft: 12 } }));
    const before = Date.now();
    await actions.syncPending();
    expect(calls()).toEqual([{ url: '/api/sysconf/confirm', method: 'GET', body: null }]);
    const deadline = useApplyConfirmStore.getState().pending!.deadline;
    expect(deadline).toBeGreaterThanOrEqual(before + 12_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 12_000);
  });

  test('the device no longer waits: the bar goes away', async () => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'tok-1', seconds: 90 } });
    fetchMock.mockResolvedValueOnce(reply({ success: true, data: { pending: false } }));
    await actions.syncPending();
    expect(useApplyConfirmStore.getState().pending).toBeNull();
  });

  test('nothing pending: the device is not asked', async () => {
    await actions.syncPending();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe('putting the change back', () => {
  const noSleep = () => Promise.resolve();

  test('waits until the device says it no longer waits; unreachable answers are asked again', async () => {
    const readStatus = vi
      .fn<() => Promise<{ pending: boolean; secondsLeft: number | null }>>()
      .mockRejectedValueOnce(new Error('offline'))
      .mockResolvedValueOnce({ pending: true, secondsLeft: 1 })
      .mockResolvedValueOnce({ pending: false, secondsLeft: null });
    await expect(actions.waitForDevice({ readStatus, sleep: noSleep, attempts: 10, intervalMs: 3000 })).resolves.toBe(true);
    expect(readStatus).toHaveBeenCalledTimes(3);
  });

  test('gives up after the set number of questions', async () => {
    const readStatus = vi.fn(() => Promise.reject(new Error('offline')));
    const sleep = vi.fn(noSleep);
    await expect(actions.waitForDevice({ readStatus, sleep, attempts: 4, intervalMs: 3000 })).resolves.toBe(false);
    expect(readStatus).toHaveBeenCalledTimes(4);
    expect(sleep).toHaveBeenCalledWith(3000);
  });

  test('expiry: says so, waits for the device, then reloads once even when asked twice', async () => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'tok-1', seconds: 90 } });
    let release: () => void = () => undefined;
    const readStatus = vi.fn(
      () => new Promise<{ pending: boolean; secondsLeft: null }>((resolve) => (release = () => resolve({ pending: false, secondsLeft: null }))),
    );
    const reload = vi.fn();
    const wait = { readStatus, sleep: noSleep, attempts: 3, intervalMs: 1 };
    const first = actions.restoreAndReload('expired', wait, reload);
    const second = actions.restoreAndReload('expired', wait, reload);
    expect(useApplyConfirmStore.getState()).toMatchObject({ pending: null, restoring: true, outcome: 'expired' });
    await vi.waitFor(() => expect(readStatus).toHaveBeenCalledOnce(), { timeout: 30_000 });
    expect(reload).not.toHaveBeenCalled();
    release();
    await Promise.all([first, second]);
    expect(reload).toHaveBeenCalledOnce();
  });
});

describe('confirm page helpers', () => {
  test('the link carries the token in the hash and reads back', () => {
    const link = actions.confirmPageLink('a b/c');
    expect(link).toBe('/confirm#a%20b%2Fc');
    expect(actions.tokenFromHash(link.slice(link.indexOf('#')))).toBe('a b/c');
    expect(actions.tokenFromHash('')).toBe('');
    expect(actions.tokenFromHash('#')).toBe('');
    expect(actions.tokenFromHash('#%E0%A4%A')).toBe('%E0%A4%A');
  });

  test('the device status is read defensively', () => {
    expect(actions.parseConfirmStatus({ pending: true, deadline: 5, secondsLeft: 30 })).toEqual({ pending: true, secondsLeft: 30 });
    expect(actions.parseConfirmStatus({ pending: 'yes', secondsLeft: -3 })).toEqual({ pending: false, secondsLeft: 0 });
    expect(actions.parseConfirmStatus(null)).toEqual({ pending: false, secondsLeft: null });
  });

  test('only an invalid or expired token means the device no longer waits', () => {
    expect(actions.isGoneReply({ success: false, msg: 'msg.confirmInvalid' })).toBe(true);
    expect(actions.isGoneReply({ success: false, msg: 'msg.confirmExpired' })).toBe(true);
    expect(actions.isGoneReply({ success: false, msg: 'msg.applyFailed' })).toBe(false);
    expect(actions.isGoneReply({ success: true })).toBe(false);
  });
});
