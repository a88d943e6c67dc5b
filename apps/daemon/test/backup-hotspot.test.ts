import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ARCHIVE_LIMITS, buildArchive, seal, unseal } from '../src/domains/maintain/maintain-archive.js';
import { captureHotspotPart } from '../src/domains/maintain/maintain-hotspot.js';
import { archiveTag, deviceKeys, deviceSecret } from '../src/domains/maintain/maintain-keys.js';
import { localUsers } from '../src/domains/hotspot-config/local-user-store.js';
import { voucherStore } from '../src/domains/voucher/voucher-routes.js';
import { VOUCHER_KEY_FILE } from '../src/domains/voucher/voucher-codes.js';
import { MIGRATIONS } from '../src/plugins/db-open.js';
import { adminClient, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { BACKUP_URL, RecordingApplier, repack, unpack, upload } from './maintain-fixture.js';

const PASSPHRASE = 'move-to-new-box-2025';
const ALICE_PASSWORD = 'AliceSecret1';
const BOB_PASSWORD = 'BobSecret22';
const PHONE = 'aa:bb:cc:dd:ee:01';
const LAPTOP = 'aa:bb:cc:dd:ee:02';

/** Daemons that never restart the machine: the reboot a reset asks for waits on a timer nobody fires. */
async function device(): Promise<{ h: Harness; admin: Client }> {
  const h = await startDaemon({
    env: { PORTICO_LAN_PORTS: 'eth1' },
    deps: {
      config: { applier: new RecordingApplier() },
      maintain: { schedule: () => () => undefined, run: async () => ({ exitCode: 0, stdout: '', stderr: '' }) },
    },
  });
  return { h, admin: await adminClient(h) };
}

const ctxOf = (h: Harness) => h.app.appContext;
const users = (h: Harness) => localUsers(ctxOf(h));
const vouchers = (h: Harness) => voucherStore(ctxOf(h));
const keyFile = (h: Harness) => readFileSync(join(h.stateDir, VOUCHER_KEY_FILE));

/** Everything a refused restore must leave as it was: journal head, configuration, accounts, vouchers, their key. */
function state(h: Harness): string {
  const db = ctxOf(h).db;
  const { key, ...rows } = vouchers(h).exportState();
  return JSON.stringify([
    db.prepare('SELECT MAX(id) AS id FROM revisions').get(),
    ctxOf(h).config.journal.capture(),
    users(h).exportRecords(),
    rows,
    key.toString('hex'),
    keyFile(h).toString('hex'),
  ]);
}

async function addUser(h: Harness, admin: Client, username: string, password: string): Promise<void> {
  const reply = json(await post(h.app, admin, '/api/auth/userauth', { action: 'add', username, password, confirm: password }));
  expect(reply.success, JSON.stringify(reply)).toBe(true);
}

async function addVouchers(h: Harness, admin: Client, amount: number): Promise<string[]> {
  const reply = json(await post(h.app, admin, '/api/auth/voucherbatch', { action: 'add', name: 'lobby', codelength: 8, amount, validity: 2, unit: 'hours', usernum: 2 }));
  expect(reply.success, JSON.stringify(reply)).toBe(true);
  return (reply.data as { codes: string[] }).codes;
}

async function download(h: Harness, admin: Client, passphrase?: string): Promise<Buffer> {
  const res = await post(h.app, admin, BACKUP_URL, { action: 'download', ...(passphrase ? { passphrase } : {}) });
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}

type Content = {
  users: Array<Record<string, unknown>>;
  voucherKey: string;
  voucherBatches: Array<Record<string, unknown>>;
  vouchers: Array<Record<string, unknown>>;
};
type Counts = { users: number; voucherBatches: number; vouchers: number };

/** An archive device `h` signs with its own key around its hotspot content changed by `change`. */
async function signedBy(h: Harness, change: (content: Content) => void, counts?: Counts): Promise<Buffer> {
  const content = structuredClone(captureHotspotPart(ctxOf(h)).content) as Content;
  change(content);
  const salt = randomBytes(16);
  return buildArchive({
    snapshot: ctxOf(h).config.journal.capture(),
    hotspot: {
      counts: counts ?? { users: content.users.length, voucherBatches: content.voucherBatches.length, vouchers: content.vouchers.length },
      content,
    },
    lookup: ctxOf(h).config.lookup,
    keys: deviceKeys(deviceSecret(h.stateDir), salt),
    protection: { mode: 'device', salt: salt.toString('base64') },
    schemaVersion: MIGRATIONS.length,
    created: new Date(),
  });
}


/** A backup as the release before hotspot.enc wrote it: format 1, four entries, signed by device `h`. */
async function formatOneArchive(h: Harness): Promise<Buffer> {
  const archive = await signedBy(h, () => undefined);
  const entries = await unpack(archive);
  const body = (name: string) => entries.find((e) => e.header.name === name)!.body!;
  const manifest = JSON.parse(body('manifest.json').toString()) as Record<string, unknown> & { protection: { salt: string } };
  const keys = deviceKeys(deviceSecret(h.stateDir), Buffer.from(manifest.protection.salt, 'base64'));
  const secrets = unseal(keys.encryption, body('manifest.json'), body('secrets.enc'));
  const { hotspot: _counts, ...rest } = manifest;
  const oldManifest = Buffer.from(JSON.stringify({ ...rest, format: 1 }));
  const oldSecrets = seal(keys.encryption, oldManifest, secrets);
  const signed: Array<[string, Buffer]> = [
    ['manifest.json', oldManifest],
    ['config.json', body('config.json')],
    ['secrets.enc', oldSecrets],
  ];
  const header = (name: string) => ({ ...entries[0]!.header, name });
  return repack([...signed, ['signature', archiveTag(keys.authentication, signed)] as [string, Buffer]].map(([name, bytes]) => ({ header: header(name), body: bytes })));
}

let a: Harness;
let adminA: Client;
let codes: string[];
let firstUse: number;

beforeAll(async () => {
  ({ h: a, admin: adminA } = await device());
  await addUser(a, adminA, 'alice', ALICE_PASSWORD);
  await addUser(a, adminA, 'bob', BOB_PASSWORD);
  codes = await addVouchers(a, adminA, 4);
  const used = vouchers(a).redeemVoucher(codes[0]!, PHONE, a.clock.now());
  expect(used.ok).toBe(true);
  firstUse = used.ok ? used.voucher.firstUsed! : 0;
});

afterAll(async () => {
  await a.close();
});

describe('backup of the hotspot tables', () => {
  test('the archive counts them and holds no hash, HMAC or key in clear', async () => {
    const archive = await download(a, adminA);
    const entries = await unpack(archive);
    const manifest = JSON.parse(entries.find((e) => e.header.name === 'manifest.json')!.body!.toString());
    expect(manifest.hotspot).toEqual({ users: 2, voucherBatches: 1, vouchers: 4 });
    const all = Buffer.concat(entries.map((e) => e.body!));
    const exported = vouchers(a).exportState();
    expect(all.includes(Buffer.from(exported.vouchers[0]!.code_hash))).toBe(false);
    expect(all.includes(Buffer.from(users(a).exportRecords()[0]!.password_hash.split('$')[4]!))).toBe(false);
    expect(all.includes(exported.key)).toBe(false);
    expect(all.includes(Buffer.from(exported.key.toString('base64')))).toBe(false);
    expect(all.includes(Buffer.from('alice'))).toBe(false);
  });
});

describe('restore onto another device', () => {
  test('a passphrase backup moves the accounts and vouchers: passwords verify, codes redeem, the key persists', async () => {
    const archive = await download(a, adminA, PASSPHRASE);
    const { h: b, admin: adminB } = await device();
    try {
      expect(vouchers(b).hasKey(vouchers(a).exportState().key)).toBe(false);
      const reply = json(await upload(b.app, adminB, archive, PASSPHRASE));
      expect(reply.success, JSON.stringify(reply)).toBe(true);

      expect(await users(b).verifyLocalUser('alice', ALICE_PASSWORD)).toMatchObject({ username: 'alice', status: 'normal' });
      expect(await users(b).verifyLocalUser('bob', BOB_PASSWORD)).toMatchObject({ username: 'bob' });
      expect(await users(b).verifyLocalUser('alice', BOB_PASSWORD)).toBeNull();
      expect(users(b).exportRecords()).toEqual(users(a).exportRecords());

      // The used voucher keeps its first use and device; an unused one starts now.
      const again = vouchers(b).redeemVoucher(codes[0]!, PHONE, b.clock.now());
      expect(again).toMatchObject({ ok: true, voucher: { firstUsed: firstUse, macs: [PHONE] } });
      expect(vouchers(b).redeemVoucher(codes[1]!, LAPTOP, b.clock.now())).toMatchObject({ ok: true });
      expect(vouchers(b).redeemVoucher('ABCDEFGH', LAPTOP, b.clock.now())).toEqual({ ok: false, reason: 'code' });
      expect(keyFile(b).equals(keyFile(a))).toBe(true);

      // After a restart the key is read back from disk: the vouchers still work.
      const restarted = await b.restart();
      try {
        expect(vouchers(restarted).redeemVoucher(codes[2]!, LAPTOP, restarted.clock.now())).toMatchObject({ ok: true });
        expect(await users(restarted).verifyLocalUser('alice', ALICE_PASSWORD)).not.toBeNull();
        // New vouchers made after the restore are hashed under the carried key too.
        const fresh = vouchers(restarted).createBatch({ name: 'desk', codelength: 8, amount: 1, validity: 1, unit: 'hours', usernum: 1, plan: '' });
        expect(vouchers(restarted).voucherByCode(fresh.codes[0]!)).toBeDefined();
      } finally {
        await restarted.close();
      }
    } finally {
      await b.close();
    }
  });

  test('the restored key is used at once, without a restart, for codes made afterwards', async () => {
    const archive = await download(a, adminA, PASSPHRASE);
    const { h: b, admin: adminB } = await device();
    try {
      expect(json(await upload(b.app, adminB, archive, PASSPHRASE)).success).toBe(true);
      const fresh = await addVouchers(b, adminB, 2);
      expect(vouchers(b).redeemVoucher(fresh[0]!, PHONE, b.clock.now())).toMatchObject({ ok: true });
      expect(vouchers(b).redeemVoucher(codes[3]!, PHONE, b.clock.now())).toMatchObject({ ok: true });
    } finally {
      await b.close();
    }
  });
});

describe('restore on the same device', () => {
  test('a device-key backup brings deleted accounts and vouchers back', async () => {
    const archive = await download(a, adminA);
    const before = [users(a).exportRecords(), vouchers(a).exportState()];
    users(a).remove(users(a).list().map((u) => u.id));
    vouchers(a).removeBatches(vouchers(a).batches().map((b) => b.id));
    expect(users(a).count()).toBe(0);
    expect(vouchers(a).voucherByCode(codes[1]!)).toBeUndefined();

    expect(json(await upload(a.app, adminA, archive)).success).toBe(true);
    expect([users(a).exportRecords(), vouchers(a).exportState()]).toEqual(before);
    expect(await users(a).verifyLocalUser('bob', BOB_PASSWORD)).not.toBeNull();
    expect(vouchers(a).voucherByCode(codes[1]!)).toMatchObject({ serial: 2 });
  });
});

describe('refusals leave everything as it was', () => {
  test('a tampered or missing hotspot part', async () => {
    const entries = await unpack(await download(a, adminA));
    const before = state(a);
    const flipped = entries.map((e) => {
      const body = Buffer.from(e.body!);
      if (e.header.name === 'hotspot.enc') body[Math.floor(body.length / 2)]! ^= 0x01;
      return { header: e.header, body };
    });
    expect(json(await upload(a.app, adminA, await repack(flipped)))).toMatchObject({ success: false, msg: 'msg.backupAuthFailed' });
    const dropped = entries.filter((e) => e.header.name !== 'hotspot.enc');
    expect(json(await upload(a.app, adminA, await repack(dropped)))).toMatchObject({ success: false, msg: 'msg.backupInvalid' });
    expect(state(a)).toBe(before);
  });

  describe('rows of a genuine archive are checked before anything is written', () => {
    const signedWith = (change: (content: Content) => void, counts?: Counts) => signedBy(a, change, counts);

    async function refused(file: Buffer, msg: string): Promise<void> {
      const before = state(a);
      const reply = json(await upload(a.app, adminA, file));
      expect(reply).toMatchObject({ success: false, msg });
      expect(state(a)).toBe(before);
    }

    test('an untouched signed archive goes through', async () => {
      expect(json(await upload(a.app, adminA, await signedWith(() => undefined))).success).toBe(true);
    });

    test('duplicate accounts: the same id, or a name differing only in case', async () => {
      await refused(await signedWith((c) => c.users.push({ ...c.users[0]!, username: 'carol' })), 'msg.backupRejected');
      await refused(await signedWith((c) => c.users.push({ ...c.users[0]!, id: 'other-id', username: 'ALICE' })), 'msg.backupRejected');
    });

    test('an account with a hash that is not one, a bad name, an unknown plan or an unknown field', async () => {
      await refused(await signedWith((c) => (c.users[0]!.password_hash = 'plain-text-password')), 'msg.backupRejected');
      await refused(await signedWith((c) => (c.users[0]!.password_hash = String(c.users[0]!.password_hash).replace(/ln=\d+/, 'ln=31'))), 'msg.backupRejected');
      await refused(await signedWith((c) => (c.users[0]!.username = 'bad name;rm')), 'msg.backupRejected');
      await refused(await signedWith((c) => ((c.users[0]!.data as Record<string, unknown>).model = 'no-such-plan')), 'msg.backupRejected');
      await refused(await signedWith((c) => ((c.users[0]!.data as Record<string, unknown>).admin = true)), 'msg.backupRejected');
    });

    test('an account whose hash costs more than the daemon hashes with (scrypt ln=15, r=8, p=1)', async () => {
      for (const cost of ['ln=16,r=8,p=1', 'ln=15,r=9,p=1', 'ln=15,r=8,p=2', 'ln=10,r=8,p=16']) {
        await refused(await signedWith((c) => (c.users[0]!.password_hash = String(c.users[0]!.password_hash).replace(/ln=\d+,r=\d+,p=\d+/, cost))), 'msg.backupRejected');
      }
      // The daemon's own cost goes through.
      const own = await signedWith((c) => (c.users[0]!.password_hash = String(c.users[0]!.password_hash).replace(/ln=\d+,r=\d+,p=\d+/, 'ln=15,r=8,p=1')));
      expect(json(await upload(a.app, adminA, own)).success).toBe(true);
    });

    test('vouchers: unknown batch, duplicate code or serial, bad hash, too many devices, a bad batch', async () => {
      await refused(await signedWith((c) => (c.vouchers[0]!.batch_id = 'no-such-batch')), 'msg.backupRejected');
      await refused(await signedWith((c) => c.vouchers.push({ ...c.vouchers[1]!, id: 'copy', serial: 4 })), 'msg.backupRejected');
      await refused(await signedWith((c) => (c.vouchers[1]!.serial = c.vouchers[2]!.serial)), 'msg.backupRejected');
      await refused(await signedWith((c) => (c.vouchers[1]!.code_hash = 'x'.repeat(64))), 'msg.backupRejected');
      await refused(await signedWith((c) => (c.vouchers[0]!.macs = [PHONE, LAPTOP, 'aa:bb:cc:dd:ee:03'])), 'msg.backupRejected');
      await refused(await signedWith((c) => (c.voucherBatches[0]!.codelength = 3)), 'msg.backupRejected');
      await refused(await signedWith((c) => c.voucherBatches.push({ ...c.voucherBatches[0]! })), 'msg.backupRejected');
    });

    test('a key of the wrong size, counts that differ from the manifest', async () => {
      await refused(await signedWith((c) => (c.voucherKey = randomBytes(16).toString('base64'))), 'msg.backupRejected');
      await refused(await signedWith(() => undefined, { users: 1, voucherBatches: 1, vouchers: 4 }), 'msg.backupInvalid');
    });
  });

  test('a write failing inside the transaction: configuration, accounts, vouchers and key stay as they were', async () => {
    const { h: other, admin: otherAdmin } = await device();
    let archive: Buffer;
    try {
      await addUser(other, otherAdmin, 'carol', 'CarolSecret3');
      await addVouchers(other, otherAdmin, 2);
      const vpn = { action: 'add', type: 'pptp', name: 'office', server: 'vpn.example.com', username: 'branch', password: 'Vpn-Secret-4' };
      expect(json(await post(other.app, otherAdmin, '/api/vpnclient', vpn)).success).toBe(true);
      archive = await download(other, otherAdmin, PASSPHRASE);
    } finally {
      await other.close();
    }
    const db = ctxOf(a).db;
    const before = state(a);
    // The disk refusing the last rows of the restore, after the configuration and accounts are written.
    db.exec("CREATE TEMP TRIGGER restore_fails BEFORE INSERT ON vouchers BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    try {
      const res = await upload(a.app, adminA, archive, PASSPHRASE);
      expect(res.statusCode).toBe(500);
    } finally {
      db.exec('DROP TRIGGER restore_fails');
    }
    expect(state(a)).toBe(before);
    expect(vouchers(a).voucherByCode(codes[1]!)).toBeDefined();
    expect(await users(a).verifyLocalUser('carol', 'CarolSecret3')).toBeNull();

    // Without the fault the same archive goes through, and the other device's key comes with it.
    expect(json(await upload(a.app, adminA, archive, PASSPHRASE)).success).toBe(true);
    expect(await users(a).verifyLocalUser('carol', 'CarolSecret3')).not.toBeNull();
    expect(vouchers(a).voucherByCode(codes[1]!)).toBeUndefined();
  });
});

describe('older archives and larger tables', () => {
  test('a format 1 archive still restores the configuration and leaves the hotspot tables alone', async () => {
    const { h, admin } = await device();
    try {
      const old = await formatOneArchive(h);
      await addUser(h, admin, 'erin', 'ErinSecret6');
      const before = [users(h).exportRecords(), vouchers(h).exportState()];
      const reply = json(await upload(h.app, admin, old));
      expect(reply.success, JSON.stringify(reply)).toBe(true);
      expect([users(h).exportRecords(), vouchers(h).exportState()]).toEqual(before);
      // A format 1 manifest with a hotspot part beside it is no archive this daemon wrote.
      const entries = await unpack(await download(h, admin));
      const mixed = [...(await unpack(old)).filter((e) => e.header.name !== 'signature'), entries.find((e) => e.header.name === 'hotspot.enc')!, (await unpack(old)).find((e) => e.header.name === 'signature')!];
      expect(json(await upload(h.app, admin, await repack(mixed)))).toMatchObject({ success: false, msg: 'msg.backupInvalid' });
    } finally {
      await h.close();
    }
  });

  test('an archive over the former 4 MiB upload limit (tens of thousands of vouchers) restores', async () => {
    const { h, admin } = await device();
    try {
      const batches = 70;
      const file = await signedBy(h, (c) => {
        c.voucherKey = randomBytes(32).toString('base64');
        for (let b = 0; b < batches; b++) {
          const id = randomUUID();
          c.voucherBatches.push({ id, name: `b${b}`, codelength: 10, amount: 1000, validity: 1, unit: 'days', usernum: 1, plan: '', created_at: b });
          for (let serial = 1; serial <= 1000; serial++) {
            c.vouchers.push({ id: randomUUID(), batch_id: id, serial, code_hash: randomBytes(32).toString('hex'), first_used: null, expires_at: null, macs: [] });
          }
        }
      });
      expect(file.length).toBeGreaterThan(4 * 1024 * 1024);
      expect(file.length).toBeLessThan(ARCHIVE_LIMITS.upload);
      const reply = json(await upload(h.app, admin, file));
      expect(reply.success, JSON.stringify(reply)).toBe(true);
      expect(vouchers(h).batches()).toHaveLength(batches);
    } finally {
      await h.close();
    }
  }, 60_000);
});

describe('while a change waits for its confirmation', () => {
  test('a restore and a reset are refused and the accounts, vouchers and key stay', async () => {
    const archive = await download(a, adminA, PASSPHRASE);
    const { h, admin } = await device();
    try {
      await addUser(h, admin, 'frank', 'FrankSecret7');
      await addVouchers(h, admin, 1);
      const lan = ctxOf(h).config.journal.capture().networkInterface![0]!;
      expect(json(await post(h.app, admin, '/api/network', { action: 'update', id: lan.id, mtu: 1400 })).data.confirm).toBeDefined();
      const before = state(h);
      expect(json(await upload(h.app, admin, archive, PASSPHRASE))).toMatchObject({ success: false, msg: 'msg.confirmPending' });
      expect(json(await post(h.app, admin, BACKUP_URL, { reset: 1 }))).toMatchObject({ success: false, msg: 'msg.confirmPending' });
      expect(state(h)).toBe(before);
      expect(readdirSync(h.stateDir).filter((name) => name.includes('.tmp'))).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('factory reset', () => {
  test('reset=1 empties the local accounts and the vouchers with the configuration', async () => {
    const { h, admin } = await device();
    try {
      await addUser(h, admin, 'dave', 'DaveSecret5');
      const own = await addVouchers(h, admin, 2);
      const reply = json(await post(h.app, admin, BACKUP_URL, { reset: 1 }));
      expect(reply.success, JSON.stringify(reply)).toBe(true);
      expect(users(h).count()).toBe(0);
      expect(vouchers(h).batches()).toEqual([]);
      expect(vouchers(h).voucherByCode(own[0]!)).toBeUndefined();
      expect(await users(h).verifyLocalUser('dave', 'DaveSecret5')).toBeNull();
    } finally {
      await h.close();
    }
  });
});
