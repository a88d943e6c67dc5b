import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';

vi.mock('../src/shell/notice.js', () => ({ showErrorNotice: vi.fn(), showSuccessNotice: vi.fn() }));
vi.mock('../src/routes/navigation.js', async (original) => ({
  ...(await original<typeof import('../src/routes/navigation.js')>()),
  redirectToLogin: vi.fn(),
}));

const { fetchDiff, fetchJournalPage, fetchRevision, revertToRevision } = await import('../src/pages/system-maintain/journal-api.js');
const { useApplyConfirmStore } = await import('../src/state/apply-confirm-store.js');
const { showErrorNotice } = await import('../src/shell/notice.js');

function reply(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
}

const fetchMock = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();

function lastRequest() {
  const [url, init] = fetchMock.mock.calls.at(-1)!;
  const parsed = new URL(url, 'http://device');
  return {
    path: parsed.pathname,
    query: Object.fromEntries([...parsed.searchParams].filter(([key]) => key !== '_')),
    method: init.method,
    body: init.body ? (JSON.parse(String(init.body)) as unknown) : null,
  };
}

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockReset();
  vi.mocked(showErrorNotice).mockClear();
  useApplyConfirmStore.setState({ pending: null, restoring: false, outcome: null });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('journal calls', () => {
  test('a page: GET sysconf/journal?page=&pageSize=', async () => {
    fetchMock.mockResolvedValueOnce(
      reply({ success: true, data: { items: [{ id: 5, at: 1000, user: 'admin', source_ip: '::1', summary: { key: 'factoryReset' } }], total: 31 } }),
    );
    const page = await fetchJournalPage(2, 10);
    expect(lastRequest()).toEqual({ path: '/api/sysconf/journal', query: { page: '2', pageSize: '10' }, method: 'GET', body: null });
    expect(page).toEqual({ items: [{ id: 5, at: 1000, user: 'admin', sourceIp: '::1', summary: { key: 'factoryReset' } }], total: 31 });
  });

  test('a revision: POST action get with the id as the daemon gave it', async () => {
    fetchMock.mockResolvedValueOnce(
      reply({
        success: true,
        data: {
          id: 5,
          at: 1000,
          user: 'admin',
          source_ip: '::1',
          summary: 's',
          changes: [{ entity: 'vlan', id: '7', action: 'delete', before: { vid: 7 }, after: null }],
        },
      }),
    );
    const revision = await fetchRevision(5);
    expect(lastRequest()).toMatchObject({ path: '/api/sysconf/journal', method: 'POST', body: { action: 'get', id: 5 } });
    expect(revision?.changes).toEqual([{ entity: 'vlan', id: '7', action: 'delete', before: { vid: 7 }, after: null }]);
  });

  test('a refused revision read is null (the client has said why)', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: false, msg: 'msg.notFound' }));
    await expect(fetchRevision('x')).resolves.toBeNull();
    expect(showErrorNotice).toHaveBeenCalledOnce();
  });

  test('a diff: POST action diff from the older to the newer', async () => {
    fetchMock.mockResolvedValueOnce(
      reply({ success: true, data: { changes: [{ entity: 'adminUser', id: '2', action: 'add', before: null, after: { username: 'x' } }] } }),
    );
    const changes = await fetchDiff(3, 9);
    expect(lastRequest().body).toEqual({ action: 'diff', from: 3, to: 9 });
    expect(changes).toHaveLength(1);
    fetchMock.mockResolvedValueOnce(reply({ success: true, data: {} }));
    await expect(fetchDiff(3, 9)).resolves.toEqual([]);
  });

  test('revert: POST action revert; a confirmation deadline goes to the bar', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: true, data: { confirm: { token: 'rv-1', deadline: 1, seconds: 90 } } }));
    const result = await revertToRevision(4);
    expect(lastRequest().body).toEqual({ action: 'revert', id: 4 });
    expect(result.success).toBe(true);
    expect(useApplyConfirmStore.getState().pending?.token).toBe('rv-1');
  });

  test('revert without a deadline leaves the bar alone', async () => {
    fetchMock.mockResolvedValueOnce(reply({ success: true }));
    await revertToRevision(4);
    expect(useApplyConfirmStore.getState().pending).toBeNull();
  });
});
