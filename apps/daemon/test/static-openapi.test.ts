import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminClient, get, json, startDaemon, tempDir, type Client, type Harness } from './daemon-harness.js';

let h: Harness;
let admin: Client;
const dist = tempDir('portico-dist-');
const consoleDir = join(dist, 'console');
const portalDir = join(dist, 'portal');

function put(path: string, content: string, compressed = false) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  if (compressed) {
    writeFileSync(`${path}.gz`, gzipSync(content));
    writeFileSync(`${path}.br`, brotliCompressSync(content));
  }
}

beforeAll(async () => {
  put(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
  put(join(consoleDir, 'assets', 'app-1a2b3c.js'), 'console.log("console app");'.repeat(20), true);
  put(join(consoleDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  put(join(portalDir, 'index.html'), '<!doctype html><title>portal</title>');
  put(join(portalDir, 'index-Zz9.js'), 'console.log("portal");', true);
  put(join(dist, 'secret.txt'), 'outside the roots');
  h = await startDaemon({ env: { PORTICO_CONSOLE_DIR: consoleDir, PORTICO_PORTAL_DIR: portalDir } });
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

describe('console and portal bundles', () => {
  test('index.html is served for / and for client-side routes, revalidated every time', async () => {
    for (const url of ['/', '/login', '/modpwd', '/rtty', '/netconf/dhcpserver/edit', '/system/usermanagement?x=1']) {
      const res = await get(h.app, null, url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('<title>console</title>');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers['content-type'], url).toMatch(/text\/html/);
    }
  });

  test('hashed assets are immutable and pre-compressed variants are chosen by Accept-Encoding', async () => {
    const plain = await get(h.app, null, '/assets/app-1a2b3c.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('console app');
    const br = await get(h.app, null, '/assets/app-1a2b3c.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    const gz = await get(h.app, null, '/assets/app-1a2b3c.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
  });

  test('a missing asset is a 404, not the index page; other files are served', async () => {
    expect((await get(h.app, null, '/assets/missing-123.js')).statusCode).toBe(404);
    const icon = await get(h.app, null, '/favicon.svg');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  test('portal pages and assets asked of the console go to the portal listener on the same host', async () => {
    const portalPort = h.settings.portalPort;
    for (const url of ['/auth/portal?url=http%3A%2F%2Fexample.com%2F', '/notice/expired', '/terminal/user/login', '/user', '/user/mgr', '/auth', '/portal-assets/index-Zz9.js']) {
      const res = await get(h.app, null, url, { host: `192.168.11.1:${h.settings.port}` });
      expect(res.statusCode, url).toBe(302);
      expect(res.headers.location, url).toBe(`http://192.168.11.1:${portalPort}${url}`);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    // There the portal bundle answers, its API beside it.
    const followed = await h.app.hotspot.portal.inject({ method: 'GET', url: '/terminal/user/login', remoteAddress: '127.0.0.1', headers: { host: `127.0.0.1:${portalPort}` } });
    expect(followed.statusCode).toBe(200);
    expect(followed.body).toContain('<title>portal</title>');
    const asset = await h.app.hotspot.portal.inject({ method: 'GET', url: '/portal-assets/index-Zz9.js', remoteAddress: '127.0.0.1', headers: { host: `127.0.0.1:${portalPort}` } });
    expect(asset.body).toContain('console.log("portal")');
    // The host name the browser used, IPv6 literals too.
    expect((await get(h.app, null, '/auth', { host: 'gateway.localhost:8080' })).headers.location).toBe(`http://gateway.localhost:${portalPort}/auth`);
    expect((await get(h.app, null, '/auth', { host: '[fd00::1]:8080' })).headers.location).toBe(`http://[fd00::1]:${portalPort}/auth`);
    // A host the console refuses is refused before any redirect.
    const foreign = await get(h.app, null, '/auth', { host: 'evil.example' });
    expect(foreign.statusCode).toBe(421);
    expect(foreign.headers.location).toBeUndefined();
    // The portal API stays on the portal listener: the console knows nothing of it.
    expect((await h.app.inject({ method: 'POST', url: '/portal-api/login', payload: { method: 'onekey', acceptTerms: true } })).statusCode).toBe(404);
  });

  test('paths cannot leave the bundle folders', async () => {
    for (const url of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/portal-assets/..%2fsecret.txt']) {
      const res = await get(h.app, null, url);
      expect(res.body, url).not.toContain('outside the roots');
    }
  });

  test('HEAD works like GET without a body', async () => {
    const res = await h.app.inject({ method: 'HEAD', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
  });

  test('a missing build answers 503 with a plain message instead of crashing', async () => {
    const bare = await startDaemon();
    const page = await get(bare.app, null, '/system/usermanagement');
    expect(page.statusCode).toBe(503);
    expect(page.headers['content-type']).toMatch(/text\/plain/);
    expect(page.body).toMatch(/admin console is not installed/);
    // The API is unaffected.
    expect(json(await get(bare.app, null, '/api/changelang')).success).toBe(true);
    await bare.close();
  });
});

describe('OpenAPI document', () => {
  test('needs a session', async () => {
    expect((await get(h.app, null, '/api/openapi.json')).statusCode).toBe(401);
  });

  test('is an OpenAPI 3.1 document that lists the routes with their schemas', async () => {
    const res = await get(h.app, admin, '/api/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = json(res);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/admin', '/api/login', '/api/islogin', '/api/changepwd', '/api/menu', '/api/dashboard']));
    const adminPath = doc.paths['/api/admin'];
    expect(adminPath.get['x-portico-policy']).toEqual({ module: 'usermanagement', effect: 'read' });
    expect(adminPath.get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['_', 'page', 'pageSize', 'sort', 'order', 'q']));
    const write = adminPath.post.requestBody.content['application/json'].schema;
    expect(Object.keys(write.properties)).toEqual(expect.arrayContaining(['action', 'username', 'password', 'privilege', 'allowd_ips', 'ids']));
    expect(doc.components.schemas.AdminUser.properties.password).toBeUndefined();
    expect(doc.components.schemas.AdminUserAdd.required).toEqual(expect.arrayContaining(['username', 'password']));
    const login = doc.paths['/api/login'].post;
    expect(login.security).toEqual([]);
    expect(login.requestBody.content['application/json'].schema.properties.username).toBeDefined();
    expect(doc.paths['/api/changepwd'].post.security).toEqual([{ sessionCookie: [], csrfToken: [] }]);
    // Schemas registered with an id are written once and referenced.
    expect(JSON.stringify(doc.paths['/api/dashboard'])).toContain('#/components/schemas/Dashboard');
    expect(doc.components.schemas.Dashboard.properties.board).toBeDefined();
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
    // Pages are not API paths.
    expect(doc.paths['/*']).toBeUndefined();
  });
});
