import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { addAccount, adminClient, get, json, login, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { imageInfo } from '../src/domains/hotspot-config/portal-image.js';
import { customPortalDir, portalFilesDir, readPortalImage } from '../src/domains/hotspot-config/portal-uploads.js';
import { jpeg, png, zip, type ZipEntry } from '../../../tests/support/upload-fixtures.js';

let h: Harness;
let admin: Client;

beforeEach(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterEach(async () => {
  await h.close();
});

function upload(client: Client, kind: string, filename: string, data: Buffer) {
  const boundary = '----portico-test-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return h.app.inject({
    method: 'POST',
    url: `/api/portal/upload/${kind}`,
    payload: body,
    headers: { cookie: client.cookie, 'x-csrf-token': client.csrf, 'content-type': `multipart/form-data; boundary=${boundary}` },
    remoteAddress: client.ip,
  });
}

const page = Buffer.from('<!doctype html><title>Welcome</title>');

describe('image headers', () => {
  test('types come from magic bytes and sizes from the header', () => {
    expect(imageInfo(png(960, 640))).toEqual({ type: 'png', width: 960, height: 640 });
    expect(imageInfo(jpeg(960, 640))).toEqual({ type: 'jpeg', width: 960, height: 640 });
    expect(imageInfo(Buffer.from('GIF89a\x10\x00\x20\x00', 'latin1'))).toEqual({ type: 'gif', width: 16, height: 32 });
    expect(imageInfo(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(imageInfo(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toBeNull();
  });
});

describe('portal uploads', () => {
  test('a picture up to 200 KB is stored and served read-only with its checked type', async () => {
    const ok = json(await upload(admin, 'picture', 'lobby.png', png(800, 600, 200 * 1024)));
    expect(ok.success, JSON.stringify(ok)).toBe(true);
    expect(ok.data.picture).toMatchObject({ type: 'png', width: 800, height: 600, size: 200 * 1024 });
    expect(readPortalImage(h.stateDir, 'picture')?.contentType).toBe('image/png');
    const tooBig = json(await upload(admin, 'picture', 'big.png', png(800, 600, 200 * 1024 + 1)));
    expect(tooBig).toMatchObject({ success: false, msg: 'hotspot.msg.uploadTooLarge' });
    // The stored picture is still the first one.
    expect(readPortalImage(h.stateDir, 'picture')?.data.length).toBe(200 * 1024);
  });

  test('a file that is not an image is refused whatever its name says', async () => {
    const fake = json(await upload(admin, 'picture', 'photo.png', Buffer.from('<html><script>alert(1)</script></html>')));
    expect(fake).toMatchObject({ success: false, msg: 'hotspot.msg.uploadType' });
  });

  test('the logo must be at most 30 KB, 960x640 and have a plain name', async () => {
    expect(json(await upload(admin, 'logo', 'logo.png', png(960, 640, 30 * 1024))).success).toBe(true);
    expect(json(await upload(admin, 'logo', 'logo.jpg', jpeg(960, 640))).success).toBe(true);
    expect(json(await upload(admin, 'logo', 'logo.png', png(960, 640, 30 * 1024 + 1))).msg).toBe('hotspot.msg.uploadTooLarge');
    expect(json(await upload(admin, 'logo', 'logo.png', png(961, 640))).msg).toBe('hotspot.msg.logoSize');
    for (const name of ['my logo.png', 'logo$.png', 'logo;.png', 'лого.png', '.htaccess']) {
      expect(json(await upload(admin, 'logo', name, png(960, 640))).msg, name).toBe('hotspot.msg.uploadName');
    }
    const files = json(await get(h.app, admin, '/api/portal/files')).data;
    expect(files.logo).toMatchObject({ name: 'logo.jpg', type: 'jpeg' });
  });

  test('a custom page zip is extracted; other types are refused', async () => {
    const good = zip([{ name: 'index.html', data: page, deflate: true }, { name: 'css/', mode: 0o40755 }, { name: 'css/site.css', data: Buffer.from('body{}') }]);
    const ok = json(await upload(admin, 'custom', 'page.zip', good));
    expect(ok.success, JSON.stringify(ok)).toBe(true);
    const dir = customPortalDir(h.stateDir)!;
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toContain('Welcome');
    expect(existsSync(join(dir, 'css', 'site.css'))).toBe(true);
    expect(json(await upload(admin, 'custom', 'page.tar', good)).msg).toBe('hotspot.msg.uploadType');
  });

  test.each([
    ['path traversal', [{ name: 'index.html', data: page }, { name: '../evil.html', data: page }]],
    ['absolute path', [{ name: 'index.html', data: page }, { name: '/etc/evil', data: page }]],
    ['backslash path', [{ name: 'index.html', data: page }, { name: '..\\evil.html', data: page }]],
    ['symbolic link', [{ name: 'index.html', data: page }, { name: 'link', data: Buffer.from('/etc/shadow'), mode: 0o120777 }]],
    ['zip bomb', [{ name: 'index.html', data: page }, { name: 'big.bin', data: Buffer.alloc(4 * 1024 * 1024), deflate: true }]],
  ] as Array<[string, ZipEntry[]]>)('an archive with a %s is refused and nothing is written outside', async (_what, entries) => {
    const reply = json(await upload(admin, 'custom', 'page.zip', zip(entries)));
    expect(reply).toMatchObject({ success: false, msg: 'hotspot.msg.zipInvalid' });
    expect(customPortalDir(h.stateDir)).toBeUndefined();
    expect(existsSync(join(portalFilesDir(h.stateDir), '..', 'evil.html'))).toBe(false);
  });

  test('an archive without index.html or that is not a zip is refused', async () => {
    expect(json(await upload(admin, 'custom', 'page.zip', zip([{ name: 'home.html', data: page }]))).msg).toBe('hotspot.msg.zipIndex');
    expect(json(await upload(admin, 'custom', 'page.zip', Buffer.from('PK not really'))).msg).toBe('hotspot.msg.zipInvalid');
  });

  test('a visitor can list files but not upload', async () => {
    const visitor = await addAccount(h, admin, 'viewer', 2);
    const client = await login(h.app, 'viewer', visitor.password);
    expect(json(await get(h.app, client, '/api/portal/files')).success).toBe(true);
    expect(json(await upload(client, 'logo', 'logo.png', png(960, 640)))).toMatchObject({ success: false, msg: 'forbidden' });
  });
});
