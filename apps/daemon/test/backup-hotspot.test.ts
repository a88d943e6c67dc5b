import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ARCHIVE_LIMITS, buildArchive, type ArchivePart } from '../src/domains/maintain/maintain-archive.js';
import { deviceKeys, deviceSecret, passphraseKeys } from '../src/domains/maintain/maintain-keys.js';
import { localUsers, type LocalUserRecord } from '../src/domains/hotspot-config/local-user-store.js';
import { voucherStore } from '../src/domains/voucher/voucher-routes.js';
import { VOUCHER_KEY_FILE } from '../src/domains/voucher/voucher-codes.js';
import { MIGRATIONS } from '../src/plugins/db-open.js';
import { adminClient, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { BACKUP_URL, olderArchive, RecordingApplier, repack, unpack, upload } from './maintain-fixture.js';

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
/** Accounts as restored on another device: sealed passwords of another key are not kept. */
const withoutSeals = (records: LocalUserRecord[]) => records.map((record) => ({ ...record, sealed_password: null }));
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

/** The hotspot's tables in one object, as format 2 sealed them; today the parts hotspot-config ({ users }) and voucher (the rest). */
type Content = {
  users: Array<Record<string, unknown>>;
  voucherKey: string;
  voucherBatches: Array<Record<string, unknown>>;
  vouchers: Array<Record<string, unknown>>;
};
type Counts = { users: number; voucherBatches: number; vouchers: number };
const PART_NAMES = ['hotspot-config', 'voucher'] as const;
const PART_ENTRIES = PART_NAMES.map((name) => `${name}.enc`);

/** What device `h` holds now, captured by its two parts. */
function contentOf(h: Harness): Content {
  const capture = (name: string) => ctxOf(h).backupParts.get(name)!.capture(ctxOf(h)).content as object;
  return structuredClone({ ...capture('hotspot-config'), ...capture('voucher') }) as Content;
}

const countsOf = (content: Content): Counts => ({ users: content.users.length, voucherBatches: content.voucherBatches.length, vouchers: content.vouchers.length });

/**
 * An archive device `h` signs with its own key around its hotspot content changed by `change`,
 * with the counts given (else the content's) and the parts named in `parts`.
 */
async function signedBy(h: Harness, change: (content: Content) => void, counts?: Counts, parts: readonly string[] = PART_NAMES): Promise<Buffer> {
  const content = contentOf(h);
  change(content);
  const n = counts ?? countsOf(content);
  const all: ArchivePart[] = [
    { name: 'hotspot-config', counts: { users: n.users }, content: { users: content.users } },
    {
      name: 'voucher',
      counts: { voucherBatches: n.voucherBatches, vouchers: n.vouchers },
      content: { voucherKey: content.voucherKey, voucherBatches: content.voucherBatches, vouchers: content.vouchers },
    },
  ];
  const salt = randomBytes(16);
  return buildArchive({
    snapshot: ctxOf(h).config.journal.capture(),
    parts: all.filter((part) => parts.includes(part.name)),
    lookup: ctxOf(h).config.lookup,
    keys: deviceKeys(deviceSecret(h.stateDir), salt),
    protection: { mode: 'device', salt: salt.toString('base64') },
    schemaVersion: MIGRATIONS.length,
    created: new Date(),
  });
}

/** A backup as the release before hotspot.enc wrote it: format 1, four entries, signed by device `h`. */
async function formatOneArchive(h: Harness): Promise<Buffer> {
  return olderArchive(await signedBy(h, () => undefined), (salt) => deviceKeys(deviceSecret(h.stateDir), salt));
}

/** A backup as the release before parts wrote it: format 2, the hotspot's tables in hotspot.enc, signed by device `h`. */
async function formatTwoArchive(h: Harness, change: (content: Content) => void = () => undefined, counts?: Counts): Promise<Buffer> {
  const content = contentOf(h);
  change(content);
  const current = await signedBy(h, () => undefined, undefined, []);
  return olderArchive(current, (salt) => deviceKeys(deviceSecret(h.stateDir), salt), { counts: counts ?? countsOf(content), content });
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
    expect(manifest.parts).toEqual([
      { name: 'hotspot-config', counts: { users: 2 } },
      { name: 'voucher', counts: { voucherBatches: 1, vouchers: 4 } },
      { name: 'vpn-server', counts: { openvpnClients: 0, openvpnRevoked: 0 } },
    ]);
    expect(entries.map((e) => e.header.name)).toEqual(['manifest.json', 'config.json', 'secrets.enc', ...PART_ENTRIES, 'vpn-server.enc', 'signature']);
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
      // The passwords are sealed under A's key: on B they do not open, so they are not kept and
      // the accounts are listed as needing their password set again (for CHAP).
      expect(users(a).exportRecords().every((record) => typeof record.sealed_password === 'string')).toBe(true);
      expect(users(b).exportRecords()).toEqual(withoutSeals(users(a).exportRecords()));
      expect(users(b).namesWithoutPassword('portal')).toEqual(['alice', 'bob']);

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
  test('a tampered or missing part: accounts or vouchers', async () => {
    const entries = await unpack(await download(a, adminA));
    const before = state(a);
    for (const entry of PART_ENTRIES) {
      const flipped = entries.map((e) => {
        const body = Buffer.from(e.body!);
        if (e.header.name === entry) body[Math.floor(body.length / 2)]! ^= 0x01;
        return { header: e.header, body };
      });
      expect(json(await upload(a.app, adminA, await repack(flipped))), entry).toMatchObject({ success: false, msg: 'msg.backupAuthFailed' });
      // The manifest lists the part: an archive without its entry is no archive this daemon wrote.
      const dropped = entries.filter((e) => e.header.name !== entry);
      expect(json(await upload(a.app, adminA, await repack(dropped))), entry).toMatchObject({ success: false, msg: 'msg.backupInvalid' });
      // Sealed for its own entry: one part's bytes do not open as the other's.
      const other = PART_ENTRIES.find((name) => name !== entry)!;
      const swapped = entries.map((e) => (e.header.name === entry ? { header: e.header, body: entries.find((x) => x.header.name === other)!.body } : e));
      expect(json(await upload(a.app, adminA, await repack(swapped))), entry).toMatchObject({ success: false, msg: 'msg.backupAuthFailed' });
    }
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
      await refused(await signedWith(() => undefined, { users: 2, voucherBatches: 1, vouchers: 3 }), 'msg.backupInvalid');
      await refused(await signedWith(() => undefined, { users: 2, voucherBatches: 2, vouchers: 4 }), 'msg.backupInvalid');
    });

    test('a part this daemon does not keep, even signed', async () => {
      const salt = randomBytes(16);
      const foreign = await buildArchive({
        snapshot: ctxOf(a).config.journal.capture(),
        parts: [{ name: 'wireless-ap', counts: { aps: 0 }, content: { aps: [] } }],
        lookup: ctxOf(a).config.lookup,
        keys: deviceKeys(deviceSecret(a.stateDir), salt),
        protection: { mode: 'device', salt: salt.toString('base64') },
        schemaVersion: MIGRATIONS.length,
        created: new Date(),
      });
      await refused(foreign, 'msg.backupInvalid');
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
      // A format 1 manifest with a part (or format 2's hotspot.enc) beside it is no archive this daemon wrote.
      const oldEntries = await unpack(old);
      const beside = async (entry: { header: { name: string }; body?: Buffer }) =>
        repack([...oldEntries.filter((e) => e.header.name !== 'signature'), { header: { ...oldEntries[0]!.header, name: entry.header.name }, body: entry.body }, oldEntries.find((e) => e.header.name === 'signature')!]);
      const current = (await unpack(await download(h, admin))).find((e) => e.header.name === 'voucher.enc')!;
      const formatTwo = (await unpack(await formatTwoArchive(h))).find((e) => e.header.name === 'hotspot.enc')!;
      expect(json(await upload(h.app, admin, await beside(current)))).toMatchObject({ success: false, msg: 'msg.backupInvalid' });
      expect(json(await upload(h.app, admin, await beside(formatTwo)))).toMatchObject({ success: false, msg: 'msg.backupInvalid' });
    } finally {
      await h.close();
    }
  });

  test('a format 2 archive (hotspot.enc) moves the accounts, batches, vouchers and key: passwords verify, codes redeem', async () => {
    const { h: source, admin: sourceAdmin } = await device();
    const { h: b, admin: adminB } = await device();
    try {
      await addUser(source, sourceAdmin, 'ivan', 'IvanSecret10');
      const own = await addVouchers(source, sourceAdmin, 3);
      const used = vouchers(source).redeemVoucher(own[0]!, PHONE, source.clock.now());
      expect(used.ok).toBe(true);
      const content = contentOf(source);
      const old = await olderArchive(await download(source, sourceAdmin, PASSPHRASE), (salt) => passphraseKeys(PASSPHRASE, salt), { counts: countsOf(content), content });
      expect((await unpack(old)).map((e) => e.header.name)).toEqual(['manifest.json', 'config.json', 'secrets.enc', 'hotspot.enc', 'signature']);

      const reply = json(await upload(b.app, adminB, old, PASSPHRASE));
      expect(reply.success, JSON.stringify(reply)).toBe(true);
      expect(users(b).exportRecords()).toEqual(withoutSeals(users(source).exportRecords()));
      expect(vouchers(b).exportState()).toEqual(vouchers(source).exportState());
      expect(await users(b).verifyLocalUser('ivan', 'IvanSecret10')).toMatchObject({ username: 'ivan' });
      expect(await users(b).verifyLocalUser('ivan', ALICE_PASSWORD)).toBeNull();
      expect(vouchers(b).voucherByCode(own[1]!)).toMatchObject({ serial: 2 });
      expect(vouchers(b).redeemVoucher(own[0]!, PHONE, b.clock.now())).toMatchObject({ ok: true, voucher: { firstUsed: used.ok ? used.voucher.firstUsed : 0, macs: [PHONE] } });
      expect(vouchers(b).redeemVoucher(own[2]!, LAPTOP, b.clock.now())).toMatchObject({ ok: true });
      expect(keyFile(b).equals(keyFile(source))).toBe(true);
    } finally {
      await b.close();
      await source.close();
    }
  });

  test('a format 2 archive is checked as closely: counts, rows, fields none of the parts takes, a missing hotspot.enc', async () => {
    const { h, admin } = await device();
    try {
      await addUser(h, admin, 'grace', 'GraceSecret8');
      await addVouchers(h, admin, 2);
      const before = state(h);
      const refusedOn = async (file: Buffer, msg: string) => {
        expect(json(await upload(h.app, admin, file))).toMatchObject({ success: false, msg });
        expect(state(h)).toBe(before);
      };
      await refusedOn(await formatTwoArchive(h, () => undefined, { users: 2, voucherBatches: 1, vouchers: 2 }), 'msg.backupInvalid');
      await refusedOn(await formatTwoArchive(h, () => undefined, { users: 1, voucherBatches: 1, vouchers: 3 }), 'msg.backupInvalid');
      await refusedOn(await formatTwoArchive(h, (c) => (c.vouchers[0]!.batch_id = 'no-such-batch')), 'msg.backupRejected');
      await refusedOn(await formatTwoArchive(h, (c) => c.users.push({ ...c.users[0]! })), 'msg.backupRejected');
      await refusedOn(await formatTwoArchive(h, (c) => ((c as Record<string, unknown>).extra = [])), 'msg.backupRejected');
      await refusedOn(await formatTwoArchive(h, (c) => delete (c as Partial<Content>).voucherKey), 'msg.backupRejected');
      const entries = await unpack(await formatTwoArchive(h));
      await refusedOn(await repack(entries.filter((e) => e.header.name !== 'hotspot.enc')), 'msg.backupInvalid');
      // Untouched, it goes through.
      expect(json(await upload(h.app, admin, await formatTwoArchive(h))).success).toBe(true);
    } finally {
      await h.close();
    }
  });

  test('an archive without the voucher part restores the accounts and leaves the vouchers and their key alone', async () => {
    const { h, admin } = await device();
    try {
      await addUser(h, admin, 'heidi', 'HeidiSecret9');
      const file = await signedBy(h, () => undefined, undefined, ['hotspot-config']);
      expect((await unpack(file)).map((e) => e.header.name)).not.toContain('voucher.enc');
      const own = await addVouchers(h, admin, 2);
      users(h).remove(users(h).list().map((u) => u.id));
      const vouchersBefore = [vouchers(h).exportState(), keyFile(h).toString('hex')];
      const reply = json(await upload(h.app, admin, file));
      expect(reply.success, JSON.stringify(reply)).toBe(true);
      expect(await users(h).verifyLocalUser('heidi', 'HeidiSecret9')).not.toBeNull();
      expect([vouchers(h).exportState(), keyFile(h).toString('hex')]).toEqual(vouchersBefore);
      expect(vouchers(h).voucherByCode(own[0]!)).toBeDefined();
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
