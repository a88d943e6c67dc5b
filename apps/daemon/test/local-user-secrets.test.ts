import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { migrateModule, openDatabase, type Db } from '../src/plugins/db-open.js';
import { AccountSecretSeal, ACCOUNT_SECRET_KEY_FILE } from '../src/domains/hotspot-config/account-secret-seal.js';
import { LocalUserStore, LOCAL_USER_MIGRATIONS } from '../src/domains/hotspot-config/local-user-store.js';
import { hotspotConfigBackup } from '../src/domains/hotspot-config/hotspot-config-backup.js';
import { chapMatches, chapResponse } from '../src/domains/hotspot/cmcc/cmcc-packet.js';
import { adminClient, CountingHasher, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { forgetSealedPassword } from './local-user-fixture.js';

/**
 * Local accounts' sealed passwords: the migration from the PPP-only column and key file, the
 * CHAP check against them, and the PPP servers' reads: by type in SQL, the status poll opening
 * nothing, the secrets writer left alone by applies of other domains.
 */

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'local-user-secrets-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const NOW = Date.UTC(2025, 2, 1, 12);
const hasher = new CountingHasher();

function insertRow(db: Db, id: string, username: string, type: string, column: string, sealed: string | null): void {
  db.prepare(`INSERT INTO hotspot_local_users (id, username, password_hash, data, ${column}, created_at, updated_at) VALUES (?, ?, 'x', ?, ?, ?, ?)`).run(
    id,
    username,
    JSON.stringify({ type, model: '', usernum: 1, totalflow: 0, upspeed: 0, downspeed: 0, duetime: '', status: 'normal', sms: false, tel: '', comment: '' }),
    sealed,
    NOW,
    NOW,
  );
}

describe('the migration from PPP-only secrets', () => {
  test('the column and the key file get their generic names and keep their data; the type is an indexed column', () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'portico.db'));
    // The release before: only the PPP-secret column, sealed under ppp-secret.key.
    migrateModule(db, 'hotspot-config', LOCAL_USER_MIGRATIONS.slice(0, 1));
    const former = new AccountSecretSeal(join(dir, 'ppp-secret.key'));
    insertRow(db, 'a', 'dialer', 'pppoe', 'ppp_secret', former.seal('dialer', 'dialerPass1'));
    insertRow(db, 'b', 'guest', 'portal', 'ppp_secret', null);
    const keyBefore = readFileSync(join(dir, 'ppp-secret.key'));

    migrateModule(db, 'hotspot-config', LOCAL_USER_MIGRATIONS);
    const store = new LocalUserStore(db, hasher, () => NOW, new AccountSecretSeal(join(dir, ACCOUNT_SECRET_KEY_FILE)));
    expect(store.pppAccounts('pppoe')).toEqual([{ username: 'dialer', secret: 'dialerPass1', expired: false }]);
    expect(store.namesWithoutPassword('portal')).toEqual(['guest']);
    // The key moved to its new name, still 0600, the former name gone.
    expect(readFileSync(join(dir, ACCOUNT_SECRET_KEY_FILE)).equals(keyBefore)).toBe(true);
    expect(statSync(join(dir, ACCOUNT_SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dir, 'ppp-secret.key'))).toBe(false);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT * FROM hotspot_local_users WHERE account_type = ? ORDER BY rowid').all('pppoe') as Array<{ detail: string }>;
    expect(plan.map((row) => row.detail).join(' ')).toContain('hotspot_local_users_type');
    db.close();
  });

  test('a state directory that has the new key keeps it, whatever the former file holds', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ppp-secret.key'), Buffer.alloc(32, 1), { mode: 0o600 });
    writeFileSync(join(dir, ACCOUNT_SECRET_KEY_FILE), Buffer.alloc(32, 2), { mode: 0o600 });
    const sealed = new AccountSecretSeal(join(dir, ACCOUNT_SECRET_KEY_FILE)).seal('x', 'y');
    expect(readFileSync(join(dir, ACCOUNT_SECRET_KEY_FILE)).equals(Buffer.alloc(32, 2))).toBe(true);
    expect(new AccountSecretSeal(join(dir, 'other.key')).open('x', sealed)).toBeNull();
  });
});

describe('backups', () => {
  test('a backup carries the sealed form; one made before the rename (`ppp_secret`) restores it; clear text is refused', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'portico.db'));
    migrateModule(db, 'hotspot-config', LOCAL_USER_MIGRATIONS);
    const store = new LocalUserStore(db, hasher, () => NOW, new AccountSecretSeal(join(dir, ACCOUNT_SECRET_KEY_FILE)));
    await store.insert({ username: 'dialer', password: 'dialerPass1', type: 'pppoe', status: 'normal', model: '' });
    const [record] = store.exportRecords();
    expect(record!.sealed_password).toMatch(/^v1:/);
    expect(JSON.stringify(record)).not.toContain('dialerPass1');
    const { sealed_password: sealed, ...rest } = record!;
    const restored = hotspotConfigBackup.validate({ users: [{ ...rest, ppp_secret: sealed }] }, { users: 1 }, {});
    expect(restored[0]!.sealed_password).toBe(sealed);
    store.replaceAll(restored);
    expect(store.pppAccounts('pppoe')).toEqual([{ username: 'dialer', secret: 'dialerPass1', expired: false }]);
    expect(() => hotspotConfigBackup.validate({ users: [{ ...rest, sealed_password: 'dialerPass1' }] }, { users: 1 }, {})).toThrow();
    db.close();
  });
});

describe('the CHAP check of a local account', () => {
  let db: Db;
  let store: LocalUserStore;
  let seal: AccountSecretSeal;
  const challenge = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
  const answer = (password: string) => chapResponse(7, password, challenge);
  const checker = (response: Buffer) => vi.fn((password: string) => chapMatches(7, password, challenge, response));

  beforeAll(async () => {
    const dir = tempDir();
    db = openDatabase(join(dir, 'portico.db'));
    migrateModule(db, 'hotspot-config', LOCAL_USER_MIGRATIONS);
    seal = new AccountSecretSeal(join(dir, ACCOUNT_SECRET_KEY_FILE));
    store = new LocalUserStore(db, hasher, () => NOW, seal);
    await store.insert({ username: 'alice', password: 'Secret123', type: 'portal', status: 'normal' });
    await store.insert({ username: 'old', password: 'OldPass12', type: 'portal', status: 'normal' });
    db.prepare("UPDATE hotspot_local_users SET sealed_password = NULL WHERE username = 'old'").run();
  });
  afterAll(() => db.close());
  afterEach(() => vi.restoreAllMocks());

  test('the right answer signs in, a wrong one and an unknown name do not; each runs one opening and one comparison', () => {
    const opens = vi.spyOn(seal, 'open');
    const right = checker(answer('Secret123'));
    expect(store.verifyLocalUserChap('alice', right)).toMatchObject({ ok: true, user: { username: 'alice', type: 'portal' } });
    // The name as stored, whatever its case.
    expect(store.verifyLocalUserChap('ALICE', checker(answer('Secret123')))).toMatchObject({ ok: true, user: { username: 'alice' } });
    const wrong = checker(answer('Secret124'));
    expect(store.verifyLocalUserChap('alice', wrong)).toEqual({ ok: false, reason: 'wrong' });
    const unknown = checker(answer('Secret123'));
    expect(store.verifyLocalUserChap('nobody', unknown)).toEqual({ ok: false, reason: 'wrong' });
    for (const check of [right, wrong, unknown]) expect(check).toHaveBeenCalledTimes(1);
    expect(opens).toHaveBeenCalledTimes(4);
  });

  test('an account without a sealed password cannot be checked: noPassword, with its name', () => {
    const check = checker(answer('OldPass12'));
    expect(store.verifyLocalUserChap('old', check)).toEqual({ ok: false, reason: 'noPassword', username: 'old' });
    expect(check).toHaveBeenCalledTimes(1);
    expect(store.namesWithoutPassword('portal')).toEqual(['old']);
  });

  test('the sealed password is no clear text and is bound to its account; PAP still checks the hash', async () => {
    const row = db.prepare("SELECT sealed_password FROM hotspot_local_users WHERE username = 'alice'").get() as { sealed_password: string };
    expect(row.sealed_password).toMatch(/^v1:/);
    expect(row.sealed_password).not.toContain('Secret123');
    expect(seal.open('bob', row.sealed_password)).toBeNull();
    const verifications = hasher.verifications;
    expect(await store.verifyLocalUser('alice', 'Secret123')).toMatchObject({ username: 'alice' });
    expect(hasher.verifications).toBe(verifications + 1);
  });

  test('a new password, from the console or self-service, seals it again', async () => {
    expect(await store.setPassword('old', 'OldPass13')).toBe(true);
    expect(store.verifyLocalUserChap('old', checker(answer('OldPass13')))).toMatchObject({ ok: true });
    expect(store.namesWithoutPassword('portal')).toEqual([]);
  });
});

describe('the PPP servers\' reads of the accounts', () => {
  let h: Harness;
  let admin: Client;
  const add = (username: string, type: string) =>
    post(h.app, admin, '/api/auth/userauth', { action: 'add', username, password: `${username}Pass1`, confirm: `${username}Pass1`, type }).then(json);

  beforeAll(async () => {
    h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1', PORTICO_WAN_PORTS: 'eth0' } });
    admin = await adminClient(h);
    for (const [name, type] of [['dialer', 'pptp'], ['olddialer', 'pptp'], ['walker', 'portal'], ['caller', 'l2tp']] as const) expect((await add(name, type)).success).toBe(true);
    forgetSealedPassword(h.stateDir, 'olddialer');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });
  afterEach(() => vi.restoreAllMocks());

  test('the status poll lists the accounts without a password and opens no sealed one', async () => {
    const opens = vi.spyOn(AccountSecretSeal.prototype, 'open');
    expect(json(await get(h.app, admin, '/api/auth/pptp/status'))).toMatchObject({ success: true, data: { needPassword: ['olddialer'] } });
    expect(json(await get(h.app, admin, '/api/auth/l2tp/status'))).toMatchObject({ success: true, data: { needPassword: [] } });
    // The local users page's notice: every type.
    expect(json(await get(h.app, admin, '/api/auth/userauth/needpassword'))).toEqual({ success: true, data: { needPassword: ['olddialer'] } });
    expect(opens).not.toHaveBeenCalled();
  });

  test('the secrets hold the accounts of each server\'s type only; no other account is opened', async () => {
    const opens = vi.spyOn(AccountSecretSeal.prototype, 'open');
    expect(json(await post(h.app, admin, '/api/auth/pptp', { enabled: true })).success).toBe(true);
    const secrets = readFileSync(join(h.stateDir, 'rendered', 'etc/ppp/chap-secrets'), 'utf8');
    expect(secrets).toContain('"dialer" portico-pptp "dialerPass1" *');
    expect(secrets).not.toMatch(/walker|caller|olddialer/);
    // Only the pptp account that has a sealed password was opened (by this apply's render, and by
    // any render the account adds above still had queued).
    expect(new Set(opens.mock.calls.map(([username]) => username))).toEqual(new Set(['dialer']));
  });

  test('an apply of another domain leaves the secrets writer alone; one of the servers\' settings or an account change does not', async () => {
    const reads = vi.spyOn(LocalUserStore.prototype, 'pppAccounts');
    const file = join(h.stateDir, 'rendered', 'etc/ppp/chap-secrets');
    const before = statSync(file).ino;
    // The write answers after its apply and the listeners it told, and the writer renders one at
    // a time: nothing from the test above is still on its way.
    expect(json(await post(h.app, admin, '/api/auth/whitelist', { action: 'add', type: 'ip', value: '10.1.2.3', comment: '' })).success).toBe(true);
    expect(reads).not.toHaveBeenCalled();
    // Not written again either (a write renames a new file over it).
    expect(statSync(file).ino).toBe(before);

    expect(json(await post(h.app, admin, '/api/auth/pptp', { enabled: true, mtu: 1400 })).success).toBe(true);
    expect(reads).toHaveBeenCalledWith('pptp');
    reads.mockClear();
    expect((await add('second', 'pptp')).success).toBe(true);
    await expect.poll(() => readFileSync(file, 'utf8')).toContain('"second" portico-pptp "secondPass1" *');
    expect(reads).toHaveBeenCalledWith('pptp');
  });
});
