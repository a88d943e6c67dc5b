import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ARCHIVE_LIMITS, BackupRefused, buildArchive, openArchive, readArchive, readManifest, type RegisteredParts } from '../src/domains/maintain/maintain-archive.js';
import { deviceKeys, deviceSecret } from '../src/domains/maintain/maintain-keys.js';
import { captureParts } from '../src/domains/maintain/maintain-parts.js';
import { MIGRATIONS } from '../src/plugins/db-open.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import { adminClient, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { BACKUP_URL, multipart, RecordingApplier, repack, unpack, upload, type TarEntry } from './maintain-fixture.js';

let h: Harness;
let admin: Client;
let good: TarEntry[];

function state(): string {
  const db = h.app.appContext.db;
  return JSON.stringify([db.prepare('SELECT MAX(id) AS id FROM revisions').get(), h.app.appContext.config.journal.capture()]);
}

/** Uploads and expects a refusal with `msg` that leaves the configuration and journal as they were. */
async function refused(file: Buffer, msg: string): Promise<void> {
  const before = state();
  const body = json(await upload(h.app, admin, file));
  expect(body).toMatchObject({ success: false, msg });
  expect(state()).toBe(before);
}

const entry = (name: string) => good.find((e) => e.header.name === name)!;
const without = (name: string) => good.filter((e) => e.header.name !== name);

beforeAll(async () => {
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { config: { applier: new RecordingApplier() } } });
  admin = await adminClient(h);
  const res = await post(h.app, admin, BACKUP_URL, { action: 'download' });
  good = await unpack(res.rawPayload);
  // The untouched archive goes through: every refusal below is the guard's doing.
  expect(json(await upload(h.app, admin, await repack(good))).success).toBe(true);
});

afterAll(async () => {
  await h.close();
});

describe('archive entries', () => {
  test('path traversal', async () => {
    await refused(await repack([...without('config.json'), { header: { ...entry('config.json').header, name: '../config.json' }, body: entry('config.json').body }]), 'msg.backupInvalid');
    await refused(await repack([...good, { header: { name: 'x/../../etc/cron.d/job', type: 'file' }, body: Buffer.from('x') }]), 'msg.backupInvalid');
  });

  test('absolute path', async () => {
    await refused(await repack([...good, { header: { name: '/etc/passwd', type: 'file' }, body: Buffer.from('x') }]), 'msg.backupInvalid');
  });

  test('symbolic link', async () => {
    await refused(await repack([...without('config.json'), { header: { name: 'config.json', type: 'symlink', linkname: '/etc/shadow' } }]), 'msg.backupInvalid');
  });

  test('hard link', async () => {
    await refused(await repack([...without('secrets.enc'), { header: { name: 'secrets.enc', type: 'link', linkname: 'manifest.json' } }]), 'msg.backupInvalid');
  });

  test('device nodes', async () => {
    await refused(await repack([...without('signature'), { header: { name: 'signature', type: 'character-device', devmajor: 1, devminor: 3 } }]), 'msg.backupInvalid');
    await refused(await repack([...without('signature'), { header: { name: 'signature', type: 'block-device', devmajor: 8, devminor: 0 } }]), 'msg.backupInvalid');
  });

  test('fifo', async () => {
    await refused(await repack([...without('signature'), { header: { name: 'signature', type: 'fifo' } }]), 'msg.backupInvalid');
  });

  test('directory', async () => {
    await refused(await repack([{ header: { name: 'config.json/', type: 'directory' } }, ...good]), 'msg.backupInvalid');
  });

  test('duplicate entry', async () => {
    await refused(await repack([...good, entry('manifest.json')]), 'msg.backupInvalid');
  });

  test('unexpected and missing entries', async () => {
    await refused(await repack([...good, { header: { name: 'extra.sh', type: 'file' }, body: Buffer.from('#!/bin/sh') }]), 'msg.backupInvalid');
    await refused(await repack(without('signature')), 'msg.backupInvalid');
    // A part no domain here registers; a registered part's entry the manifest does not list.
    await refused(await repack([...without('signature'), { header: { name: 'wireless-ap.enc', type: 'file' }, body: entry('voucher.enc').body }, entry('signature')]), 'msg.backupInvalid');
    await refused(await repack([...without('voucher.enc')]), 'msg.backupInvalid');
    await refused(await repack([...without('signature'), { header: { name: 'hotspot.enc', type: 'file' }, body: entry('voucher.enc').body }, entry('signature')]), 'msg.backupInvalid');
  });
});

describe('reasons', () => {
  // The console sees one message; the log names what was wrong. Checked here so that each
  // refusal above is known to come from its own check, not from a later one.
  const reasonOf = async (file: Buffer, registered: RegisteredParts = h.app.appContext.backupParts) => {
    const error = await readArchive(file, registered).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BackupRefused);
    return (error as BackupRefused).reason;
  };

  test('each entry kind is named', async () => {
    expect(await reasonOf(await repack([...without('config.json'), { header: { name: 'config.json', type: 'symlink', linkname: '/etc/shadow' } }]))).toMatch(/is a symlink/);
    expect(await reasonOf(await repack([...without('secrets.enc'), { header: { name: 'secrets.enc', type: 'link', linkname: 'manifest.json' } }]))).toMatch(/is a link/);
    expect(await reasonOf(await repack([...without('signature'), { header: { name: 'signature', type: 'character-device', devmajor: 1, devminor: 3 } }]))).toMatch(/is a character-device/);
    expect(await reasonOf(await repack([...without('signature'), { header: { name: 'signature', type: 'fifo' } }]))).toMatch(/is a fifo/);
    expect(await reasonOf(await repack([...good, { header: { name: '../x', type: 'file' }, body: Buffer.from('x') }]))).toMatch(/climbs out/);
    expect(await reasonOf(await repack([...good, { header: { name: '/etc/passwd', type: 'file' }, body: Buffer.from('x') }]))).toMatch(/absolute/);
    expect(await reasonOf(await repack([...good, entry('manifest.json')]))).toMatch(/duplicate entry manifest.json/);
    expect(await reasonOf(await repack(without('signature')))).toMatch(/signature is missing/);
    expect(await reasonOf(await repack([...good, { header: { name: 'wireless-ap.enc', type: 'file' }, body: Buffer.from('x') }]))).toMatch(/unexpected entry "wireless-ap.enc"/);
  });

  test('a part entry over the sealed limit of its part, and its content over the plain limit once opened', async () => {
    const parts = h.app.appContext.backupParts;
    const voucher = parts.get('voucher')!;
    const sealedSize = entry('voucher.enc').body!.length;
    const tight = (limits: { sealed: number; plain: number }): RegisteredParts => new Map<string, Pick<typeof voucher, 'counts' | 'limits'>>([...parts, ['voucher', { counts: voucher.counts, limits }]]);
    expect(await reasonOf(await repack(good), tight({ sealed: sealedSize - 1, plain: voucher.limits.plain }))).toMatch(/entry voucher.enc over its limit/);
    const registered = tight({ sealed: sealedSize, plain: 16 });
    const files = await readArchive(await repack(good), registered);
    const manifest = readManifest(files, MIGRATIONS.length, registered);
    const keys = deviceKeys(deviceSecret(h.stateDir), Buffer.from(manifest.protection.salt, 'base64'));
    expect(() => openArchive(files, manifest, keys, registered)).toThrow(expect.objectContaining({ msg: 'msg.backupTooLarge', reason: 'voucher.enc over its limit' }));
    expect(openArchive(files, manifest, keys, parts).parts.get('voucher')).toMatchObject({ counts: { voucherBatches: 0, vouchers: 0 } });
  });
});

describe('sizes', () => {
  test('an entry over its own limit', async () => {
    await refused(await repack([...without('signature'), { header: { name: 'signature', type: 'file' }, body: randomBytes(100) }]), 'msg.backupTooLarge');
  });

  test('a decompression bomb over the total limit', async () => {
    const bomb = await repack([...without('config.json'), { header: { name: 'config.json', type: 'file' }, body: Buffer.alloc(40 * 1024 * 1024, 0x20) }]);
    expect(bomb.length).toBeLessThan(200 * 1024);
    await refused(bomb, 'msg.backupTooLarge');
  });

  test('a decompression ratio over the limit', async () => {
    const bomb = await repack([...without('config.json'), { header: { name: 'config.json', type: 'file' }, body: Buffer.alloc(3 * 1024 * 1024, 0x20) }]);
    await refused(bomb, 'msg.backupTooLarge');
  });

  test('an upload over the limit is cut off while streaming', async () => {
    await refused(randomBytes(ARCHIVE_LIMITS.upload + 1024 * 1024), 'msg.backupTooLarge');
  });

  test('not a gzip file, not a tar, empty', async () => {
    await refused(randomBytes(2048), 'msg.backupInvalid');
    await refused(gzipSync(randomBytes(4096)), 'msg.backupInvalid');
    await refused(Buffer.alloc(0), 'msg.uploadFailed');
  });
});

describe('the upload form', () => {
  async function send(parts: Parameters<typeof multipart>[0]): Promise<Record<string, unknown>> {
    const form = multipart(parts);
    const res = await h.app.inject({
      method: 'POST',
      url: BACKUP_URL,
      payload: form.body,
      headers: { 'content-type': form.contentType, cookie: admin.cookie, 'x-csrf-token': admin.csrf },
    });
    expect(res.statusCode).toBe(200);
    return json(res);
  }

  test('only the backup file and the passphrase are accepted', async () => {
    const before = state();
    const file = await repack(good);
    expect(await send([{ name: 'other', value: file, filename: 'x.tar.gz' }])).toMatchObject({ success: false, msg: 'msg.uploadFailed' });
    expect(
      await send([
        { name: 'backup', value: file, filename: 'a.tar.gz' },
        { name: 'backup', value: file, filename: 'b.tar.gz' },
      ]),
    ).toMatchObject({ success: false, msg: 'msg.uploadFailed' });
    expect(await send([{ name: 'note', value: 'hello' }, { name: 'backup', value: file, filename: 'a.tar.gz' }])).toMatchObject({
      success: false,
      msg: 'msg.uploadFailed',
    });
    expect(await send([{ name: 'passphrase', value: 'x'.repeat(2000) }, { name: 'backup', value: file, filename: 'a.tar.gz' }])).toMatchObject({
      success: false,
    });
    expect(await send([{ name: 'passphrase', value: 'passphrase-for-nothing' }])).toMatchObject({ success: false, msg: 'msg.uploadFailed' });
    expect(state()).toBe(before);
  });
});

describe('manifest', () => {
  const withManifest = async (change: (m: Record<string, unknown>) => void) => {
    const manifest = JSON.parse(entry('manifest.json').body!.toString()) as Record<string, unknown>;
    change(manifest);
    return repack(good.map((e) => (e.header.name === 'manifest.json' ? { header: e.header, body: Buffer.from(JSON.stringify(manifest)) } : e)));
  };

  test('another product, another format, unknown fields', async () => {
    await refused(await withManifest((m) => (m.product = 'other')), 'msg.backupInvalid');
    await refused(await withManifest((m) => (m.format = 4)), 'msg.backupInvalid');
    // Format 2 counts the hotspot, format 1 lists no parts.
    await refused(await withManifest((m) => (m.format = 2)), 'msg.backupInvalid');
    await refused(await withManifest((m) => (m.format = 1)), 'msg.backupInvalid');
    await refused(await withManifest((m) => (m.hotspot = { users: 0, voucherBatches: 0, vouchers: 0 })), 'msg.backupInvalid');
    await refused(await withManifest((m) => (m.extra = true)), 'msg.backupInvalid');
  });

  test('parts: a name or count of the wrong shape, a part twice, one this daemon does not keep, counts it does not count', async () => {
    type Part = { name: string; counts: Record<string, unknown> };
    const withParts = (change: (parts: Part[]) => void) => withManifest((m) => change(m.parts as Part[]));
    await refused(await withParts((p) => (p[0]!.name = 'Voucher')), 'msg.backupInvalid');
    await refused(await withParts((p) => (p[0]!.name = '../voucher')), 'msg.backupInvalid');
    await refused(await withParts((p) => (p[1]!.counts.vouchers = -1)), 'msg.backupInvalid');
    await refused(await withParts((p) => (p[1]!.counts.vouchers = 0.5)), 'msg.backupInvalid');
    await refused(await withParts((p) => ((p[1] as Record<string, unknown>).extra = 1)), 'msg.backupInvalid');
    await refused(await withParts((p) => p.push({ ...p[1]! })), 'msg.backupInvalid');
    await refused(await withParts((p) => p.push({ name: 'wireless-ap', counts: {} })), 'msg.backupInvalid');
    await refused(await withParts((p) => (p[1]!.counts = { vouchers: 0 })), 'msg.backupInvalid');
    await refused(await withParts((p) => (p[1]!.counts.aps = 0)), 'msg.backupInvalid');
    await refused(await withParts((p) => p.splice(1, 1)), 'msg.backupInvalid');
  });

  test('a newer database schema', async () => {
    await refused(await withManifest((m) => (m.schemaVersion = 99)), 'msg.backupNewer');
  });

  test('a forged key-derivation cost', async () => {
    await refused(
      await withManifest((m) => (m.protection = { mode: 'passphrase', salt: Buffer.alloc(16).toString('base64'), kdf: { name: 'scrypt', N: 2 ** 24, r: 8, p: 1 } })),
      'msg.backupInvalid',
    );
  });

  test('a __proto__ key', async () => {
    const text = entry('manifest.json').body!.toString().replace('{', '{"__proto__":{"polluted":1},');
    await refused(await repack(good.map((e) => (e.header.name === 'manifest.json' ? { header: e.header, body: Buffer.from(text) } : e))), 'msg.backupInvalid');
  });
});

describe('rows of a genuine archive', () => {
  /** An archive this device signs: what a backup from an older or broken release could hold. */
  async function signed(snapshot: ConfigSnapshot): Promise<Buffer> {
    const salt = randomBytes(16);
    return buildArchive({
      snapshot,
      parts: captureParts(h.app.appContext),
      lookup: h.app.appContext.config.lookup,
      keys: deviceKeys(deviceSecret(h.stateDir), salt),
      protection: { mode: 'device', salt: salt.toString('base64') },
      schemaVersion: MIGRATIONS.length,
      created: new Date(),
    });
  }
  const current = () => h.app.appContext.config.journal.capture();
  const lan = () => current().networkInterface![0]!;

  test('a row its schema refuses', async () => {
    const row = lan();
    const body = json(await upload(h.app, admin, await signed({ ...current(), networkInterface: [{ id: row.id, data: { ...row.data, ipaddr: '300.1.1.1' } }] })));
    expect(body).toMatchObject({ success: false, msg: 'msg.backupRejected', data: { entity: 'networkInterface', field: 'ipaddr' } });
  });

  test('a hostile string in a row', async () => {
    const row = lan();
    await refused(await signed({ ...current(), networkInterface: [{ id: row.id, data: { ...row.data, ifname: 'lan;reboot' } }] }), 'msg.backupRejected');
    await refused(await signed({ ...current(), networkInterface: [{ id: row.id, data: { ...row.data, extra: '$(reboot)' } }] }), 'msg.backupRejected');
  });

  test('an entity this daemon does not know, or one kept outside the configuration (admin accounts)', async () => {
    await refused(await signed({ ...current(), unknownThing: [{ id: 'a', data: { id: 'a' } }] }), 'msg.backupRejected');
    await refused(await signed({ ...current(), adminUser: [{ id: 'x1', data: { id: 'x1', username: 'intruder', privilege: 0 } }] }), 'msg.backupRejected');
  });

  test('duplicate ids, an id differing from its row, a singleton with an id', async () => {
    const row = lan();
    await refused(await signed({ ...current(), networkInterface: [row, row] }), 'msg.backupInvalid');
    await refused(await signed({ ...current(), networkInterface: [{ id: 'other', data: row.data }] }), 'msg.backupRejected');
    await refused(await signed({ ...current(), iptv: [{ id: 'x', data: {} }] }), 'msg.backupRejected');
  });

  test('the network rules over the whole configuration', async () => {
    const dhcp = current().dhcpServer![0]!;
    // A DHCP server on an interface that does not exist.
    await refused(await signed({ ...current(), dhcpServer: [{ id: dhcp.id, data: { ...dhcp.data, interface: 'lan9' } }] }), 'msg.backupRejected');
    // Two LANs on the same network.
    const row = lan();
    const twin = { id: 'twin', data: { ...row.data, id: 'twin', ifname: 'lan2', hwport: ['eth7'] } };
    await refused(await signed({ ...current(), networkInterface: [row, twin] }), 'msg.backupRejected');
  });
});
