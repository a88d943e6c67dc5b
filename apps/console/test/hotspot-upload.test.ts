import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { MantineProvider } from '@mantine/core';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';

vi.mock('../src/shell/notice.js', () => ({ showErrorNotice: vi.fn(), showSuccessNotice: vi.fn() }));
vi.mock('../src/routes/navigation.js', async (original) => ({
  ...(await original<typeof import('../src/routes/navigation.js')>()),
  redirectToLogin: vi.fn(),
}));

const { checkPortalFile, imageHeader, PORTAL_FILE_LIMITS } = await import('../src/pages/hotspot/portal-upload-rules.js');
const { uploadPortalFile, deletePortalFile } = await import('../src/pages/hotspot/portal-upload-api.js');
const { PortalUploadsView } = await import('../src/pages/hotspot/portal-uploads-panel.js');
const { default: PortalPage } = await import('../src/pages/hotspot/portal-page.js');
const { showErrorNotice } = await import('../src/shell/notice.js');
const { redirectToLogin } = await import('../src/routes/navigation.js');
const { i18n } = await import('../src/i18n/console-i18n.js');
const { useSessionStore } = await import('../src/state/session-store.js');
const { useLoadingStore } = await import('../src/state/loading-store.js');

const HOSTILE = '<img src=x onerror=alert(1)>';

function png(width: number, height: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(b.buffer).setUint32(16, width);
  new DataView(b.buffer).setUint32(20, height);
  return b;
}

function gif(width: number, height: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(13);
  b.set([...'GIF89a'].map((c) => c.charCodeAt(0)));
  new DataView(b.buffer).setUint16(6, width, true);
  new DataView(b.buffer).setUint16(8, height, true);
  return b;
}

/** SOI, an APP0 segment, then SOF0 with the size. */
function jpeg(width: number, height: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, height >> 8, height & 255, width >> 8, width & 255, 3]);
}

const ZIP_HEAD = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]);

describe('image headers', () => {
  test('PNG, GIF and JPEG sizes are read from their headers', () => {
    expect(imageHeader(png(960, 640))).toEqual({ type: 'png', width: 960, height: 640 });
    expect(imageHeader(gif(120, 80))).toEqual({ type: 'gif', width: 120, height: 80 });
    expect(imageHeader(jpeg(1024, 768))).toEqual({ type: 'jpeg', width: 1024, height: 768 });
  });

  test('anything else is not an image', () => {
    expect(imageHeader(new TextEncoder().encode('<svg onload=alert(1)></svg>'))).toBeNull();
    expect(imageHeader(ZIP_HEAD)).toBeNull();
    expect(imageHeader(new Uint8Array())).toBeNull();
  });
});

describe('checks before upload', () => {
  test('a picture within 200 KB with a plain name goes', () => {
    expect(checkPortalFile('picture', { name: 'beach_2.jpg', size: 150 * 1024 }, jpeg(1200, 800))).toBeNull();
  });

  test('size limits: picture 200 KB, logo 30 KB', () => {
    expect(PORTAL_FILE_LIMITS.picture).toBe(200 * 1024);
    expect(PORTAL_FILE_LIMITS.logo).toBe(30 * 1024);
    expect(checkPortalFile('picture', { name: 'big.png', size: 200 * 1024 + 1 }, png(10, 10))).toEqual({
      key: 'hotspotUpload.check.tooLarge',
      values: { limit: 200, size: 201 },
    });
    expect(checkPortalFile('logo', { name: 'logo.png', size: 31 * 1024 }, png(960, 640))?.key).toBe('hotspotUpload.check.tooLarge');
  });

  test('the logo must be 960×640', () => {
    expect(checkPortalFile('logo', { name: 'logo.png', size: 20 * 1024 }, png(960, 640))).toBeNull();
    expect(checkPortalFile('logo', { name: 'logo.gif', size: 2048 }, gif(640, 960))).toEqual({
      key: 'hotspotUpload.check.logoSize',
      values: { width: 640, height: 960, wantWidth: 960, wantHeight: 640 },
    });
  });

  test('names with special characters are refused, markup included', () => {
    for (const name of [HOSTILE, 'my logo.png', '../logo.png', '.hidden.png', 'логотип.png', 'a;b.png']) {
      expect(checkPortalFile('logo', { name, size: 1024 }, png(960, 640))?.key, name).toBe('hotspotUpload.check.name');
    }
  });

  test('the type comes from the bytes, not the name', () => {
    expect(checkPortalFile('picture', { name: 'fake.png', size: 100 }, new TextEncoder().encode('<html></html>'))?.key).toBe(
      'hotspotUpload.check.imageType',
    );
    expect(checkPortalFile('picture', { name: 'zero.png', size: 100 }, png(0, 10))?.key).toBe('hotspotUpload.check.imageType');
  });

  test('the custom page is a zip only', () => {
    expect(checkPortalFile('custom', { name: 'portal.zip', size: 4096 }, ZIP_HEAD)).toBeNull();
    expect(checkPortalFile('custom', { name: 'portal.tar.gz', size: 4096 }, ZIP_HEAD)?.key).toBe('hotspotUpload.check.zipOnly');
    expect(checkPortalFile('custom', { name: 'portal.zip', size: 4096 }, png(1, 1))?.key).toBe('hotspotUpload.check.zipDamaged');
    expect(checkPortalFile('custom', { name: 'portal.zip', size: 6 * 1024 * 1024 }, ZIP_HEAD)?.key).toBe('hotspotUpload.check.tooLarge');
  });

  test('an empty file is refused', () => {
    expect(checkPortalFile('picture', { name: 'a.png', size: 0 }, new Uint8Array())?.key).toBe('hotspotUpload.check.empty');
  });

  test('every refusal has a text in every language, with its values filled in', () => {
    const refusals = [
      checkPortalFile('picture', { name: 'a.png', size: 0 }, new Uint8Array()),
      checkPortalFile('logo', { name: HOSTILE, size: 1 }, png(1, 1)),
      checkPortalFile('picture', { name: 'a.png', size: 300 * 1024 }, png(1, 1)),
      checkPortalFile('custom', { name: 'a.rar', size: 10 }, ZIP_HEAD),
      checkPortalFile('custom', { name: 'a.zip', size: 10 }, png(1, 1)),
      checkPortalFile('picture', { name: 'a.png', size: 10 }, ZIP_HEAD),
      checkPortalFile('logo', { name: 'a.png', size: 10 }, png(100, 50)),
    ];
    for (const lng of ['en-US', 'zh-CN', 'zh-TW']) {
      for (const refusal of refusals) {
        expect(refusal).not.toBeNull();
        expect(i18n.exists(refusal!.key, { lng }), `${lng} ${refusal!.key}`).toBe(true);
        expect(i18n.t(refusal!.key, { lng, ...refusal!.values })).not.toContain('{{');
      }
    }
    expect(i18n.t('hotspotUpload.check.logoSize', { lng: 'en-US', width: 100, height: 50, wantWidth: 960, wantHeight: 640 })).toBe(
      'The logo is 100×50 pixels; it must be exactly 960×640.',
    );
  });
});

function reply(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('upload call', () => {
  const fetchMock = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock);
    fetchMock.mockReset();
    vi.mocked(showErrorNotice).mockClear();
    vi.mocked(redirectToLogin).mockClear();
    useSessionStore.setState({ csrf: 'token-1' });
    useLoadingStore.setState({ pending: 0 });
  });
  afterEach(() => vi.unstubAllGlobals());

  test('sends one multipart file with the CSRF header to the kind’s route', async () => {
    fetchMock.mockResolvedValue(reply({ success: true, data: { logo: { name: 'logo.png', type: 'png', size: 10, width: 960, height: 640 } } }));
    const sent = await uploadPortalFile('logo', new Blob([png(960, 640)]), 'logo.png');
    expect(sent.success).toBe(true);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toMatch(/^\/api\/portal\/upload\/logo\?_=\d+$/);
    expect(init.method).toBe('POST');
    expect((init.headers as Record<string, string>)['x-csrf-token']).toBe('token-1');
    // The browser sets the multipart boundary itself.
    expect((init.headers as Record<string, string>)['content-type']).toBeUndefined();
    const form = init.body as FormData;
    expect((form.get('file') as File).name).toBe('logo.png');
    expect(useLoadingStore.getState().pending).toBe(0);
    expect(showErrorNotice).not.toHaveBeenCalled();
  });

  test('a visitor gets the "no writing" notice and the refusal comes back to the panel', async () => {
    fetchMock.mockResolvedValue(reply({ success: false, msg: 'forbidden' }));
    const answer = await uploadPortalFile('picture', new Blob([png(1, 1)]), 'a.png');
    expect(answer).toEqual({ success: false, msg: 'forbidden' });
    expect(showErrorNotice).toHaveBeenCalledWith(i18n.t('common.visitorNoWriting'));
  });

  test('a daemon refusal is shown with its translated message', async () => {
    fetchMock.mockResolvedValue(reply({ success: false, msg: 'hotspot.msg.zipIndex' }));
    const answer = await uploadPortalFile('custom', new Blob([ZIP_HEAD]), 'portal.zip');
    expect(answer.success).toBe(false);
    expect(showErrorNotice).toHaveBeenCalledWith(i18n.t('hotspot.msg.zipIndex'));
  });

  test('401 goes back to sign-in without a notice', async () => {
    fetchMock.mockResolvedValue(new Response('', { status: 401 }));
    await expect(uploadPortalFile('logo', new Blob([png(960, 640)]), 'logo.png')).rejects.toThrow();
    expect(redirectToLogin).toHaveBeenCalled();
    expect(showErrorNotice).not.toHaveBeenCalled();
  });

  test('a body over the server cap (413) reads as too large', async () => {
    fetchMock.mockResolvedValue(new Response('', { status: 413 }));
    const answer = await uploadPortalFile('custom', new Blob([ZIP_HEAD]), 'portal.zip');
    expect(answer).toEqual({ success: false, msg: 'hotspot.msg.uploadTooLarge' });
  });

  test('delete posts the kind with action delete', async () => {
    fetchMock.mockResolvedValue(reply({ success: true, data: {} }));
    await deletePortalFile('picture');
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toMatch(/^\/api\/portal\/files\?/);
    expect(JSON.parse(String(init.body))).toEqual({ action: 'delete', kind: 'picture' });
  });
});

function renderView(props: Parameters<typeof PortalUploadsView>[0], lng = 'en-US'): string {
  void i18n.changeLanguage(lng);
  return renderToString(createElement(I18nextProvider, { i18n }, createElement(MantineProvider, null, createElement(PortalUploadsView, props))));
}

describe('portal files panel', () => {
  const noop = { onUpload: () => undefined, onDelete: () => undefined };

  test('nothing uploaded: each kind says so, with upload enabled and remove disabled', () => {
    const html = renderView({ files: {}, errors: {}, busy: null, ...noop });
    expect(html).toContain('Portal files');
    for (const kind of ['picture', 'logo', 'custom']) {
      expect(html).toMatch(new RegExp(`data-testid="portal-file-${kind}-current"[^>]*>None uploaded<`));
      expect(html).toMatch(new RegExp(`<button[^>]*disabled[^>]*data-testid="portal-file-${kind}-delete"|<button[^>]*data-testid="portal-file-${kind}-delete"[^>]*disabled`));
    }
    expect(html).toContain('at most 200 KB');
    expect(html).toContain('at most 30 KB');
  });

  test('uploaded files are described, hostile names shown as text', () => {
    const html = renderView({
      files: {
        picture: { name: HOSTILE, type: 'jpeg', size: 150 * 1024, width: 1200, height: 800 },
        logo: { name: 'logo.png', type: 'png', size: 20 * 1024, width: 960, height: 640 },
        custom: { name: `${HOSTILE}.zip`, size: 4096, files: 3 },
      },
      errors: {},
      busy: null,
      ...noop,
    });
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; (JPEG, 1200×800 pixels, 150 KB)');
    expect(html).toContain('logo.png (PNG, 960×640 pixels, 20 KB)');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;.zip (3 files, 4 KB)');
    expect(html).toContain('>Replace<');
  });

  test('a refusal is shown beside its control, as text', () => {
    const html = renderView({ files: {}, errors: { logo: `${HOSTILE} refused` }, busy: null, ...noop });
    expect(html).toMatch(/data-testid="portal-file-logo-error"[^>]*>&lt;img src=x onerror=alert\(1\)&gt; refused</);
    expect(html).not.toContain('portal-file-picture-error');
  });

  test('the local portal page is its settings form with the files panel under it', () => {
    void i18n.changeLanguage('en-US');
    const html = renderToString(
      createElement(
        I18nextProvider,
        { i18n },
        createElement(MantineProvider, null, createElement(MemoryRouter, { initialEntries: ['/hotspot/localportal'] }, createElement(PortalPage))),
      ),
    );
    expect(html.indexOf('data-testid="entity-form-loading"')).toBeGreaterThan(-1);
    expect(html.indexOf('data-testid="portal-uploads"')).toBeGreaterThan(html.indexOf('data-testid="entity-form-loading"'));
  });

  test('Chinese screens are translated', () => {
    expect(renderView({ files: {}, errors: {}, busy: null, ...noop }, 'zh-CN')).toContain('认证页面文件');
    expect(renderView({ files: {}, errors: {}, busy: null, ...noop }, 'zh-TW')).toContain('認證頁面檔案');
    void i18n.changeLanguage('en-US');
  });
});
