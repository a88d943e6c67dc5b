import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { adminClient, json, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { buildPortalServer, type PortalZone } from '../src/domains/hotspot/hotspot-portal.js';
import { CUSTOM_PORTAL_CSP, customContentType, resolveCustomFile } from '../src/domains/hotspot/hotspot-portal-files.js';
import { simNeighbours } from '../src/domains/hotspot/hotspot-neighbours.js';
import { customPortalDir } from '../src/domains/hotspot-config/portal-uploads.js';
import type { HotspotZone } from '../src/domains/hotspot/hotspot-types.js';
import { png, zipOf } from '../../../tests/support/upload-fixtures.js';

/**
 * The uploaded portal files as a hotspot client gets them from the portal listener: the
 * picture and logo (uploaded through the admin API), their versioned addresses in the zone
 * data, and the custom page in place of the built-in one while the switch is on.
 */

const PORTAL_HOST = '192.168.11.1:2050';
const GUEST = '192.168.11.50';
const ZONE: HotspotZone = {
  name: 'guests',
  interfaces: ['lan'],
  welcome: 'Welcome',
  contact: '',
  copyright: '',
  logintext: '',
  chargetext: '',
  tos: '',
  methods: ['voucher'],
  password: '',
  redirectUrl: '',
  sessionSeconds: 3600,
  idleSeconds: 600,
  plan: '',
};

let h: Harness;
let admin: Client;
let portal: FastifyInstance;
let customOn = false;
let resolverDir = '';
const BUILT_IN_PAGE = '<!doctype html><title>Built-in portal</title>';
const dirs: string[] = [];


async function upload(kind: string, filename: string, data: Buffer) {
  const boundary = '----portico-files-boundary';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const reply = await h.app.inject({
    method: 'POST',
    url: `/api/portal/upload/${kind}`,
    payload,
    headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf, 'content-type': `multipart/form-data; boundary=${boundary}` },
    remoteAddress: admin.ip,
  });
  const body = json(reply);
  expect(body.success, JSON.stringify(body)).toBe(true);
}

async function remove(kind: string) {
  const reply = await h.app.inject({
    method: 'POST',
    url: '/api/portal/files',
    payload: { action: 'delete', kind },
    headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
    remoteAddress: admin.ip,
  });
  expect(json(reply).success).toBe(true);
}

const get = (url: string, headers: Record<string, string> = {}, ip = GUEST) =>
  portal.inject({ method: 'GET', url, remoteAddress: ip, headers: { host: PORTAL_HOST, ...headers } });

const CUSTOM_PAGE = {
  'index.html': '<!doctype html><title>Harbour</title><link rel="stylesheet" href="css/site.css"><script src="app.js"></script>',
  'app.js': 'document.title = "Harbour";',
  'css/site.css': 'body { color: navy; }',
  'img/wave.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  'fonts/brand.woff2': 'wOF2',
  'notes.bin': 'raw',
};

beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
  const zone: PortalZone = { zone: ZONE, gateway: '192.168.11.1' };
  const builtIn = mkdtempSync(join(tmpdir(), 'portico-portal-dist-'));
  writeFileSync(join(builtIn, 'index.html'), BUILT_IN_PAGE);
  dirs.push(builtIn);
  portal = await buildPortalServer({
    engine: h.app.hotspot.engine,
    zoneFor: (ip) => (ip.startsWith('192.168.11.') ? zone : null),
    neighbours: simNeighbours,
    portalPort: 2050,
    portalDir: builtIn,
    notices: () => ({ local: '', expired: '', renewUrl: '' }),
    files: { stateDir: h.stateDir, customPortal: () => customOn },
  });
  resolverDir = mkdtempSync(join(tmpdir(), 'portico-custom-resolve-'));
  dirs.push(resolverDir);
});
afterAll(async () => {
  await portal?.close();
  await h?.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
beforeEach(() => {
  customOn = false;
});

describe('portal picture and logo', () => {
  test('nothing uploaded: 404 and no addresses in the zone data', async () => {
    expect((await get('/portal-files/logo')).statusCode).toBe(404);
    expect((await get('/portal-files/picture')).statusCode).toBe(404);
    const state = json(await get('/portal-api/state'));
    expect(state.success).toBe(true);
    expect(state.data.zone).not.toHaveProperty('logo');
    expect(state.data.zone).not.toHaveProperty('picture');
  });

  test('uploaded images are served with their type, nosniff and validators; the zone data links them with a version', async () => {
    const logo = png(960, 640, 1024, 1);
    await upload('logo', 'logo.png', logo);
    await upload('picture', 'lobby.png', png(800, 600, 4096, 2));

    const state = json(await get('/portal-api/state'));
    expect(state.data.zone.logo).toMatch(/^\/portal-files\/logo\?v=[0-9a-z-]+$/);
    expect(state.data.zone.picture).toMatch(/^\/portal-files\/picture\?v=[0-9a-z-]+$/);

    const bare = await get('/portal-files/logo');
    expect(bare.statusCode).toBe(200);
    expect(bare.headers['content-type']).toBe('image/png');
    expect(bare.headers['x-content-type-options']).toBe('nosniff');
    expect(bare.headers['cache-control']).toBe('no-cache');
    expect(bare.headers['last-modified']).toBeTruthy();
    expect(bare.rawPayload.equals(logo)).toBe(true);
    const etag = String(bare.headers.etag);
    expect(etag).toMatch(/^"[0-9a-z-]+"$/);

    const versioned = await get(state.data.zone.logo);
    expect(versioned.statusCode).toBe(200);
    expect(versioned.headers['cache-control']).toContain('immutable');

    const again = await get('/portal-files/logo', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);

    // A replaced file gets a new version and validator.
    await upload('logo', 'logo.png', png(960, 640, 2048, 3));
    const next = json(await get('/portal-api/state'));
    expect(next.data.zone.logo).not.toBe(state.data.zone.logo);
    const replaced = await get('/portal-files/logo', { 'if-none-match': etag });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.rawPayload.length).toBe(2048);

    await remove('logo');
    expect((await get('/portal-files/logo')).statusCode).toBe(404);
    expect(json(await get('/portal-api/state')).data.zone).not.toHaveProperty('logo');
  });

  test('an unauthenticated client loads them; only the two names are reachable', async () => {
    await upload('picture', 'lobby.png', png(800, 600, 512, 4));
    // No session for this client: the file is still served on the portal's own address.
    expect(h.app.hotspot.engine.session('192.168.11.77')).toBeUndefined();
    expect((await get('/portal-files/picture', {}, '192.168.11.77')).statusCode).toBe(200);
    for (const url of [
      '/portal-files',
      '/portal-files/',
      '/portal-files/files.json',
      '/portal-files/custom',
      '/portal-files/custom/index.html',
      '/portal-files/picture/x',
      '/portal-files/..%2ffiles.json',
      '/portal-files/picture.tmp',
    ]) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(404);
      expect(reply.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  test('asked of another host the request is redirected to the portal like any other', async () => {
    const reply = await get('/portal-files/picture', { host: 'example.com' });
    expect(reply.statusCode).toBe(302);
    expect(reply.headers.location).toContain('/auth/portal?url=');
  });
});

describe('custom portal page', () => {
  test('switch on without an uploaded page: the built-in portal is served', async () => {
    customOn = true;
    const landing = await get('/auth/portal');
    expect(landing.statusCode).toBe(200);
    expect(landing.body).toBe(BUILT_IN_PAGE);
    expect((await get('/portal-custom/index.html')).statusCode).toBe(404);
  });

  test('with the switch on, the landing pages lead to the uploaded page, served with types, nosniff and CSP', async () => {
    await upload('custom', 'page.zip', zipOf(CUSTOM_PAGE));
    customOn = true;
    for (const path of ['/', '/auth/portal', '/auth']) {
      const landing = await get(`${path}?url=http%3A%2F%2Fexample.com%2F`);
      expect(landing.statusCode, path).toBe(302);
      expect(landing.headers.location, path).toBe('/portal-custom/index.html?url=http%3A%2F%2Fexample.com%2F');
    }
    expect((await get('/portal-custom')).headers.location).toBe('/portal-custom/index.html');

    const index = await get('/portal-custom/index.html');
    expect(index.statusCode).toBe(200);
    expect(index.body).toBe(CUSTOM_PAGE['index.html']);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.headers['content-security-policy']).toBe(CUSTOM_PORTAL_CSP);
    expect(index.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(index.headers['content-security-policy']).toContain("frame-src 'none'");
    expect(index.headers['x-frame-options']).toBe('DENY');
    expect(index.headers.etag).toBeTruthy();
    expect((await get('/portal-custom/index.html', { 'if-none-match': String(index.headers.etag) })).statusCode).toBe(304);

    const types: Record<string, string> = {
      '/portal-custom/app.js': 'text/javascript; charset=utf-8',
      '/portal-custom/css/site.css': 'text/css; charset=utf-8',
      '/portal-custom/img/wave.svg': 'image/svg+xml',
      '/portal-custom/fonts/brand.woff2': 'font/woff2',
      '/portal-custom/notes.bin': 'application/octet-stream',
    };
    for (const [url, type] of Object.entries(types)) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(200);
      expect(reply.headers['content-type'], url).toBe(type);
      expect(reply.headers['x-content-type-options'], url).toBe('nosniff');
    }
    // The built-in portal's API and other pages stay as they are.
    expect(json(await get('/portal-api/state')).success).toBe(true);
  });

  test('traversal, encoded NUL, absolute paths and folders are not served', async () => {
    await upload('custom', 'page.zip', zipOf(CUSTOM_PAGE));
    customOn = true;
    for (const url of [
      '/portal-custom/..%2ffiles.json',
      '/portal-custom/..%2F..%2Fportal-files%2Ffiles.json',
      '/portal-custom/css/..%2f..%2ffiles.json',
      '/portal-custom/css/%2e%2e%2fapp.js',
      '/portal-custom/css%2f..%2f..%2ffiles.json',
      '/portal-custom/index.html%00.png',
      '/portal-custom/index.html%00',
      '/portal-custom/%2fetc%2fpasswd',
      '/portal-custom//etc/passwd',
      '/portal-custom/%5c..%5cfiles.json',
      '/portal-custom/css',
      '/portal-custom/css/',
      '/portal-custom/missing.html',
    ]) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(404);
      expect(reply.body, url).not.toContain('Harbour');
    }
  });

  test('switch off again: the landing page is the built-in portal and the custom files are gone from the listener', async () => {
    await upload('custom', 'page.zip', zipOf(CUSTOM_PAGE));
    customOn = false;
    expect((await get('/auth/portal')).body).toBe(BUILT_IN_PAGE);
    expect((await get('/portal-custom/index.html')).statusCode).toBe(404);
    customOn = true;
    await remove('custom');
    expect((await get('/auth/portal')).body).toBe(BUILT_IN_PAGE);
    expect((await get('/portal-custom/index.html')).statusCode).toBe(404);
  });
});

describe('custom page resolver', () => {
  test('resolves plain files only, never through a link or out of the folder', async () => {
    const root = join(resolverDir, 'custom');
    mkdirSync(join(root, 'css'), { recursive: true });
    writeFileSync(join(root, 'index.html'), 'page');
    writeFileSync(join(root, 'css', 'site.css'), 'css');
    writeFileSync(join(resolverDir, 'secret.txt'), 'secret');
    symlinkSync(join(resolverDir, 'secret.txt'), join(root, 'linked.txt'));
    symlinkSync(resolverDir, join(root, 'up'));
    symlinkSync(join(root, 'css'), join(root, 'styles'));

    expect((await resolveCustomFile(root, 'index.html'))?.path).toBe(join(root, 'index.html'));
    expect((await resolveCustomFile(root, 'css/site.css'))?.path).toBe(join(root, 'css', 'site.css'));
    for (const path of [
      'linked.txt',
      'up/secret.txt',
      'styles/site.css',
      '../secret.txt',
      '..%2fsecret.txt',
      '%2e%2e/secret.txt',
      'css/%2E%2E/../secret.txt',
      `${encodeURIComponent(join(resolverDir, 'secret.txt'))}`,
      join(resolverDir, 'secret.txt'),
      'index.html%00',
      'index.html\0',
      'css',
      'css/',
      '',
      'css//site.css',
      'css\\site.css',
      '%zz',
      './index.html',
      'css/./site.css',
    ]) {
      expect(await resolveCustomFile(root, path), path).toBeNull();
    }
  });

  test('content types of a page', () => {
    expect(customContentType('a/index.HTML')).toBe('text/html; charset=utf-8');
    expect(customContentType('x.mjs')).toBe('text/javascript; charset=utf-8');
    expect(customContentType('x.jpeg')).toBe('image/jpeg');
    expect(customContentType('x.ttf')).toBe('font/ttf');
    expect(customContentType('x.exe')).toBe('application/octet-stream');
  });

  test('the extracted folder the upload route leaves holds the page', async () => {
    await upload('custom', 'page.zip', zipOf(CUSTOM_PAGE));
    const root = customPortalDir(h.stateDir)!;
    expect(await resolveCustomFile(root, 'css/site.css')).not.toBeNull();
  });
});
