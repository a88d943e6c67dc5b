import { statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MIGRATIONS } from '../src/plugins/db-open.js';
import { addAccount, adminClient, get, json, login, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { BACKUP_URL, RecordingApplier, repack, unpack, upload } from './maintain-fixture.js';

const VPN_PASSWORD = 'VpnSecret-Value-42';
const PASSPHRASE = 'move-to-new-box-2025';

let h: Harness;
let admin: Client;
const applier = new RecordingApplier();

function rows(entity: string): Array<{ id: string; data: Record<string, unknown> }> {
  return (h.app.appContext.db.prepare('SELECT id, data FROM config_rows WHERE entity = ? ORDER BY rowid').all(entity) as Array<{ id: string; data: string }>).map(
    (row) => ({ id: row.id, data: JSON.parse(row.data) as Record<string, unknown> }),
  );
}

function latestRevision(): number {
  return (h.app.appContext.db.prepare('SELECT MAX(id) AS id FROM revisions').get() as { id: number }).id;
}

async function download(client: Client, passphrase?: string): Promise<Buffer> {
  const res = await post(h.app, client, BACKUP_URL, { action: 'download', ...(passphrase ? { passphrase } : {}) });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/gzip');
  expect(String(res.headers['content-disposition'])).toMatch(/^attachment; filename="portico-config-\d{8}T\d{6}\.tar\.gz"$/);
  return res.rawPayload;
}

beforeAll(async () => {
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1,eth2' }, deps: { config: { applier } } });
  admin = await adminClient(h);
  const added = json(
    await post(h.app, admin, '/api/vpnclient', { action: 'add', type: 'pptp', name: 'office', server: 'vpn.example.com', username: 'branch', password: VPN_PASSWORD }),
  );
  expect(added.success).toBe(true);
});

afterAll(async () => {
  await h.close();
});

describe('backup download', () => {
  test('is a tar.gz of manifest, rows, sealed secrets, the sealed parts of the domains and signature, with no secret in clear', async () => {
    const archive = await download(admin);
    const entries = await unpack(archive);
    expect(entries.map((e) => e.header.name)).toEqual(['manifest.json', 'config.json', 'secrets.enc', 'hotspot-config.enc', 'voucher.enc', 'vpn-server.enc', 'signature']);
    expect(entries.every((e) => e.header.type === 'file')).toBe(true);
    const manifest = JSON.parse(entries[0]!.body!.toString());
    expect(manifest).toMatchObject({
      format: 3,
      product: 'portico',
      schemaVersion: MIGRATIONS.length,
      protection: { mode: 'device' },
      parts: [
        { name: 'hotspot-config', counts: { users: 0 } },
        { name: 'voucher', counts: { voucherBatches: 0, vouchers: 0 } },
        { name: 'vpn-server', counts: { openvpnClients: 0, openvpnRevoked: 0 } },
      ],
    });
    expect(manifest).not.toHaveProperty('hotspot');
    expect(manifest.entities).toEqual(expect.arrayContaining([{ name: 'vpnClient', rows: 1 }, { name: 'networkInterface', rows: 1 }]));
    const config = JSON.parse(entries[1]!.body!.toString());
    expect(config.entities.vpnClient[0].data.server).toBe('vpn.example.com');
    expect(config.entities.vpnClient[0].data).not.toHaveProperty('password');
    expect(gunzipSync(archive).includes(Buffer.from(VPN_PASSWORD))).toBe(false);
    expect(entries.at(-1)!.body!.length).toBe(32);
  });

  test('creates the device key once, readable by the daemon only', async () => {
    const file = join(h.stateDir, 'backup-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = statSync(file).mtimeMs;
    await download(admin);
    expect(statSync(file).mtimeMs).toBe(before);
  });

  test('refuses a passphrase shorter than 8 characters', async () => {
    const body = json(await post(h.app, admin, BACKUP_URL, { action: 'download', passphrase: 'short' }));
    expect(body).toMatchObject({ success: false, msg: 'msg.reviewFields', errors: { passphrase: 'validation.tooSmall' } });
  });
});

describe('restore', () => {
  test('round trip: the backed-up configuration comes back, secrets included, as one revision awaiting a reboot', async () => {
    const archive = await download(admin);
    const saved = rows('vpnClient');
    expect(saved[0]!.data.password).toBe(VPN_PASSWORD);

    const removed = json(await post(h.app, admin, '/api/vpnclient', { action: 'delete', ids: [saved[0]!.id] }));
    expect(removed.success).toBe(true);
    expect(rows('vpnClient')).toEqual([]);
    const before = latestRevision();
    const appliesBefore = applier.calls.length;

    const body = json(await upload(h.app, admin, archive));
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({ revision: before + 1, rebootRequired: true, restarting: false });
    expect(rows('vpnClient')).toEqual(saved);
    // Stored, not applied: the reboot the console offers applies it.
    expect(applier.calls.length).toBe(appliesBefore);

    const revision = json(await post(h.app, admin, '/api/sysconf/journal', { action: 'get', id: before + 1 }));
    expect(revision.data.summary).toEqual({ key: 'backupRestored', created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(revision.data.user).toBe('admin');
    expect(JSON.stringify(revision.data.changes)).not.toContain(VPN_PASSWORD);

    const status = json(await get(h.app, admin, BACKUP_URL));
    expect(status.data).toMatchObject({ rebootRequired: true, revision: before + 1, reason: 'restore' });
  });

  test('a restore can be reverted through the journal', async () => {
    const archive = await download(admin);
    const office = rows('vpnClient')[0]!;
    json(await post(h.app, admin, '/api/vpnclient', { action: 'delete', ids: [office.id] }));
    const deletedAt = latestRevision();
    expect(json(await upload(h.app, admin, archive)).success).toBe(true);
    expect(rows('vpnClient')).toHaveLength(1);
    const reverted = json(await post(h.app, admin, '/api/sysconf/journal', { action: 'revert', id: deletedAt }));
    expect(reverted.success).toBe(true);
    expect(rows('vpnClient')).toEqual([]);
    expect(json(await upload(h.app, admin, archive)).success).toBe(true);
  });

  test('restoring the configuration in use records no new revision', async () => {
    const archive = await download(admin);
    const before = latestRevision();
    const body = json(await upload(h.app, admin, archive));
    expect(body).toMatchObject({ success: true, data: { revision: null } });
    expect(latestRevision()).toBe(before);
  });

  test('a passphrase backup needs its passphrase; a wrong one is refused and nothing changes', async () => {
    const archive = await download(admin, PASSPHRASE);
    const manifest = JSON.parse((await unpack(archive))[0]!.body!.toString());
    expect(manifest.protection).toMatchObject({ mode: 'passphrase', kdf: { name: 'scrypt', N: 32768, r: 8, p: 1 } });
    const before = latestRevision();
    const snapshot = JSON.stringify(h.app.appContext.config.journal.capture());

    expect(json(await upload(h.app, admin, archive))).toMatchObject({ success: false, msg: 'msg.backupPassphraseRequired' });
    expect(json(await upload(h.app, admin, archive, 'not-the-passphrase'))).toMatchObject({ success: false, msg: 'msg.backupPassphraseWrong' });
    expect(latestRevision()).toBe(before);
    expect(JSON.stringify(h.app.appContext.config.journal.capture())).toBe(snapshot);

    expect(json(await upload(h.app, admin, archive, PASSPHRASE)).success).toBe(true);
  });

  test('a device-key backup from another device is refused', async () => {
    const other = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { config: { applier: new RecordingApplier() } } });
    try {
      const otherAdmin = await adminClient(other);
      const res = await post(other.app, otherAdmin, BACKUP_URL, { action: 'download' });
      const before = latestRevision();
      expect(json(await upload(h.app, admin, res.rawPayload))).toMatchObject({ success: false, msg: 'msg.backupAuthFailed' });
      expect(latestRevision()).toBe(before);
      // With a passphrase it moves.
      const portable = await post(other.app, otherAdmin, BACKUP_URL, { action: 'download', passphrase: PASSPHRASE });
      expect(json(await upload(h.app, admin, portable.rawPayload, PASSPHRASE)).success).toBe(true);
      expect(rows('vpnClient')).toEqual([]);
    } finally {
      await other.close();
    }
  });

  test('a tampered archive is refused: any byte of any part', async () => {
    const archive = await download(admin);
    const entries = await unpack(archive);
    const before = latestRevision();
    for (let index = 0; index < entries.length; index++) {
      const altered = entries.map((e) => ({ header: e.header, body: Buffer.from(e.body!) }));
      const body = altered[index]!.body!;
      expect(body.length).toBeGreaterThan(0);
      // Keep JSON parseable where it is JSON: change a letter inside a string.
      const at = index === 0 ? body.indexOf('portico') + 1 : index === 1 ? body.indexOf('192.168.11.1') + 2 : Math.floor(body.length / 2);
      expect(at).toBeGreaterThanOrEqual(0);
      body[at] = body[at]! ^ 0x01;
      const res = json(await upload(h.app, admin, await repack(altered)));
      expect(res.success, `part ${entries[index]!.header.name}`).toBe(false);
      expect(['msg.backupAuthFailed', 'msg.backupInvalid']).toContain(res.msg);
    }
    // A config.json edit that stays valid JSON and valid rows still fails the signature.
    const config = JSON.parse(entries[1]!.body!.toString());
    config.entities.networkInterface[0].data.ipaddr = '192.168.11.2';
    const forged = entries.map((e, i) => ({ header: e.header, body: i === 1 ? Buffer.from(JSON.stringify(config)) : e.body }));
    expect(json(await upload(h.app, admin, await repack(forged)))).toMatchObject({ success: false, msg: 'msg.backupAuthFailed' });
    expect(latestRevision()).toBe(before);
  });
});

describe('who may', () => {
  let visitor: Client;

  beforeAll(async () => {
    const account = await addAccount(h, admin, 'visitor', 2);
    visitor = await login(h.app, 'visitor', account.password);
  });

  test('a visitor reads the status but may not download, restore, reset or reboot', async () => {
    expect(json(await get(h.app, visitor, BACKUP_URL)).success).toBe(true);
    const archive = await download(admin);
    const before = latestRevision();
    expect(json(await post(h.app, visitor, BACKUP_URL, { action: 'download' }))).toEqual({ success: false, msg: 'forbidden' });
    expect(json(await upload(h.app, visitor, archive))).toEqual({ success: false, msg: 'forbidden' });
    expect(json(await post(h.app, visitor, BACKUP_URL, { reset: 1 }))).toEqual({ success: false, msg: 'forbidden' });
    expect(json(await post(h.app, visitor, '/api/sysconf/reboot', { reboot: 1 }))).toEqual({ success: false, msg: 'forbidden' });
    expect(latestRevision()).toBe(before);
  });

  test('a voucher administrator may not even read the maintenance routes', async () => {
    const account = await addAccount(h, admin, 'vouchers', 1);
    const voucherAdmin = await login(h.app, 'vouchers', account.password);
    expect(json(await get(h.app, voucherAdmin, BACKUP_URL))).toEqual({ success: false, msg: 'forbidden' });
    expect(json(await post(h.app, voucherAdmin, BACKUP_URL, { action: 'download' }))).toEqual({ success: false, msg: 'forbidden' });
    expect(json(await post(h.app, voucherAdmin, '/api/sysconf/reboot', { reboot: 1 }))).toEqual({ success: false, msg: 'forbidden' });
  });

  test('without a session: 401', async () => {
    const archive = await download(admin);
    expect((await upload(h.app, null, archive)).statusCode).toBe(401);
    expect((await post(h.app, null, BACKUP_URL, { action: 'download' })).statusCode).toBe(401);
    expect((await get(h.app, null, BACKUP_URL)).statusCode).toBe(401);
  });

  test('CSRF: an upload, a download or a reset without the token, or from another origin, is refused', async () => {
    const archive = await download(admin);
    const before = latestRevision();
    const noToken = { ...admin, csrf: 'wrong-token' };
    expect((await upload(h.app, noToken, archive)).statusCode).toBe(403);
    expect((await post(h.app, noToken, BACKUP_URL, { action: 'download' })).statusCode).toBe(403);
    expect((await post(h.app, noToken, BACKUP_URL, { reset: 1 })).statusCode).toBe(403);
    expect((await upload(h.app, admin, archive, undefined, { origin: 'http://evil.example' })).statusCode).toBe(403);
    expect((await upload(h.app, admin, archive, undefined, { 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect(latestRevision()).toBe(before);
  });

  test('multipart is accepted on the upload route only', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/vpnclient',
      payload: '--x\r\nContent-Disposition: form-data; name="action"\r\n\r\nadd\r\n--x--\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=x', cookie: admin.cookie, 'x-csrf-token': admin.csrf },
    });
    expect(res.statusCode).toBe(415);
  });
});
