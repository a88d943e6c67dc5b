import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';

vi.mock('../src/shell/notice.js', () => ({ showErrorNotice: vi.fn(), showSuccessNotice: vi.fn() }));
vi.mock('../src/routes/navigation.js', async (original) => ({
  ...(await original<typeof import('../src/routes/navigation.js')>()),
  redirectToLogin: vi.fn(),
}));

const { apiGet, apiPost, apiUrl, ApiError } = await import('../src/api/api-client.js');
const { showErrorNotice } = await import('../src/shell/notice.js');
const { redirectToLogin } = await import('../src/routes/navigation.js');
const { i18n } = await import('../src/i18n/console-i18n.js');
const { useLoadingStore } = await import('../src/state/loading-store.js');
const { useSessionStore, parseSession } = await import('../src/state/session-store.js');

type FetchCall = [string, RequestInit];

function reply(body: unknown, status = 200): Response {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

const fetchMock = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();

function lastCall(): FetchCall {
  const call = fetchMock.mock.calls.at(-1);
  if (!call) throw new Error('fetch was not called');
  return call as FetchCall;
}

function sentBody(): Record<string, unknown> {
  return JSON.parse(String(lastCall()[1].body)) as Record<string, unknown>;
}

beforeEach(async () => {
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockReset();
  vi.mocked(showErrorNotice).mockClear();
  vi.mocked(redirectToLogin).mockClear();
  useSessionStore.getState().signOut();
  useLoadingStore.setState({ pending: 0 });
  await i18n.changeLanguage('en-US');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('urls', () => {
  test('paths are under /api and every call carries a timestamp', () => {
    expect(apiUrl('dashboard', undefined, 1700000000000)).toBe('/api/dashboard?_=1700000000000');
    expect(apiUrl('/status/loadavg', { range: 5, q: undefined, name: 'a b' }, 7)).toBe('/api/status/loadavg?range=5&name=a+b&_=7');
    expect(apiUrl('api/admin', undefined, 1)).toBe('/api/admin?_=1');
  });
});

describe('apiGet', () => {
  test('GET /api/<path>?_=<now>, same-origin credentials, resolves with data', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: true, data: { cpu: 3 } }));
    const before = Date.now();
    await expect(apiGet('dashboard')).resolves.toEqual({ cpu: 3 });
    const [url, init] = lastCall();
    expect(init.method).toBe('GET');
    expect(init.credentials).toBe('same-origin');
    const stamp = Number(new URL(url, 'http://x').searchParams.get('_'));
    expect(url.startsWith('/api/dashboard?')).toBe(true);
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(showErrorNotice).not.toHaveBeenCalled();
  });

  test('reads do not raise the write indicator', async () => {
    let seen = -1;
    fetchMock.mockImplementationOnce(async () => {
      seen = useLoadingStore.getState().pending;
      return reply({ success: true, data: [] });
    });
    await apiGet('menu');
    expect(seen).toBe(0);
  });

  test('success:false shows the translated message and rejects', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'msg.saveFailed' }));
    const error = await apiGet('admin').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as InstanceType<typeof ApiError>).kind).toBe('failed');
    expect(showErrorNotice).toHaveBeenCalledWith(i18n.t('msg.saveFailed'));
    expect(i18n.t('msg.saveFailed')).not.toBe('msg.saveFailed');
  });
});

describe('apiPost', () => {
  test('JSON body with action update by default, CSRF header from the session', async () => {
    useSessionStore.getState().signIn(parseSession({ username: 'admin', privilege: 0, csrf: 'tok-123' }));
    fetchMock.mockResolvedValueOnce(reply({ success: true, data: { id: '1' } }));
    const result = await apiPost<{ id: string }>('admin', { username: 'bob' });
    expect(result).toEqual({ success: true, data: { id: '1' } });
    const [url, init] = lastCall();
    expect(url.startsWith('/api/admin?_=')).toBe(true);
    expect(init.method).toBe('POST');
    expect(init.credentials).toBe('same-origin');
    const headers = init.headers as Record<string, string>;
    expect(headers['x-csrf-token']).toBe('tok-123');
    expect(headers['content-type']).toBe('application/json');
    expect(sentBody()).toEqual({ username: 'bob', action: 'update' });
  });

  test('a given action is kept; no session means no CSRF header', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: true }));
    await apiPost('admin', { action: 'delete', ids: ['2'] });
    expect(sentBody()).toEqual({ action: 'delete', ids: ['2'] });
    expect((lastCall()[1].headers as Record<string, string>)['x-csrf-token']).toBeUndefined();
  });

  test('the loading indicator stays up until every write has finished', async () => {
    const releases: Array<() => void> = [];
    fetchMock.mockImplementation(
      () => new Promise<Response>((resolve) => releases.push(() => resolve(reply({ success: true })))),
    );
    const first = apiPost('a');
    const second = apiPost('b');
    expect(useLoadingStore.getState().pending).toBe(2);
    releases[0]!();
    await first;
    expect(useLoadingStore.getState().pending).toBe(1);
    releases[1]!();
    await second;
    expect(useLoadingStore.getState().pending).toBe(0);
  });

  test('the indicator also clears when the write fails', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await expect(apiPost('a')).rejects.toBeInstanceOf(ApiError);
    expect(useLoadingStore.getState().pending).toBe(0);
  });

  test('forbidden: the visitor notice, and the reply is handed back', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'forbidden' }));
    const result = await apiPost('admin', { username: 'x' });
    expect(result).toEqual({ success: false, msg: 'forbidden' });
    expect(showErrorNotice).toHaveBeenCalledExactlyOnceWith('Visitor Permissions, No Writing');
  });

  test('field errors: "Please review fields again", errors handed back for the form', async () => {
    const failure = { success: false, msg: 'msg.reviewFields', errors: { password: 'validation.password.length' } };
    fetchMock.mockResolvedValueOnce(reply(failure));
    await expect(apiPost('admin', {})).resolves.toEqual(failure);
    expect(showErrorNotice).toHaveBeenCalledExactlyOnceWith('Please review fields again');
  });

  test('another refusal shows its message key translated', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'msg.loginWrong' }));
    await apiPost('login', { username: 'a', password: 'b' });
    expect(showErrorNotice).toHaveBeenCalledExactlyOnceWith('Username or Password is Error');
  });

  test('an unknown message key falls back to the generic failure text', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'msg.noSuchKeyAnywhere' }));
    await apiPost('x');
    expect(showErrorNotice).toHaveBeenCalledExactlyOnceWith('Request failed. Please try again later.');
  });
});

describe('transport and HTTP failures', () => {
  test('a request that cannot be sent: notice and rejection', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    const error = await apiGet('dashboard').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as InstanceType<typeof ApiError>).kind).toBe('network');
    expect(showErrorNotice).toHaveBeenCalledExactlyOnceWith('Request failed. Please try again later.');
  });

  test('an HTTP error other than 401: notice and rejection with the status', async () => {
    fetchMock.mockResolvedValueOnce(reply('<html>bad gateway</html>', 502));
    const error = (await apiPost('network').catch((e: unknown) => e)) as InstanceType<typeof ApiError>;
    expect(error.kind).toBe('http');
    expect(error.status).toBe(502);
    expect(showErrorNotice).toHaveBeenCalledExactlyOnceWith('Request failed. Please try again later.');
    expect(redirectToLogin).not.toHaveBeenCalled();
  });

  test('401: back to /login, no notice, rejection', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'unauthorized' }, 401));
    const error = (await apiGet('islogin').catch((e: unknown) => e)) as InstanceType<typeof ApiError>;
    expect(error.kind).toBe('unauthorized');
    expect(redirectToLogin).toHaveBeenCalledOnce();
    expect(showErrorNotice).not.toHaveBeenCalled();
  });

  test('a reply that is not the envelope counts as a failed request', async () => {
    fetchMock.mockResolvedValueOnce(reply('not json at all'));
    await expect(apiGet('dashboard')).rejects.toMatchObject({ kind: 'invalid' });
    fetchMock.mockResolvedValueOnce(reply({ items: [] }));
    await expect(apiGet('dashboard')).rejects.toMatchObject({ kind: 'invalid' });
    expect(showErrorNotice).toHaveBeenCalledTimes(2);
  });

  test('the notice is in the current language', async () => {
    await i18n.changeLanguage('zh-CN');
    fetchMock.mockResolvedValueOnce(reply('', 500));
    await apiGet('dashboard').catch(() => undefined);
    const text = vi.mocked(showErrorNotice).mock.calls[0]?.[0];
    expect(text).toBe(i18n.t('common.requestFailed'));
    expect(text).toMatch(/[\u4e00-\u9fff]/);
  });
});
