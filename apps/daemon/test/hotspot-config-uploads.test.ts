import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { addAccount, adminClient, get, json, login, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { imageInfo } from '../src/domains/hotspot-config/portal-image.js';
import { customPortalDir, portalFilesDir, readPortalImage } from '../src/domains/hotspot-config/portal-uploads.js';

let h: Harness;
let admin: Client;

beforeEach(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterEach(async () => {
  await h.close();
});

/** A PNG whose header says width x height, padded to `size` bytes. */
function png(width: number, height: number, size = 64): Buffer {
  const head = Buffer.alloc(Math.max(size, 33));
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0);
  head.writeUInt32BE(13, 8);
  head.write('IHDR', 12, 'latin1');
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return head;
}

function jpeg(width: number, height: number): Buffer {
  return Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 255, width >> 8, width & 255, 3, 0, 0, 0, 0xff, 0xd9]);
}

interface ZipEntry {
  name: string;
  data?: Buffer;
  /** Unix mode in the external attributes (0o120777 makes a symlink). */
  mode?: number;
  deflate?: boolean;
}

/** A small zip writer: enough to build good and hostile archives. */
function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const raw = entry.data ?? Buffer.alloc(0);
    const body = entry.deflate ? deflateRawSync(raw) : raw;
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(raw);
    const method = entry.deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const centralBytes = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralBytes, end]);
}

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
