import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { batchUserNames, dueTimeEnd, type HotspotUser, type HotspotUserBatch } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import type { PasswordHasher } from '../../plugins/password-hash.js';
import type { EntityRow } from '../../config/entity-store.js';
import type { ModuleMigration } from '../../plugins/db-open.js';
import { AccountSecretSeal, ACCOUNT_SECRET_KEY_FILE } from './account-secret-seal.js';

/** A local user without its password: what lists, rules and the portal engine see. */
export type LocalUser = Omit<HotspotUser, 'password' | 'confirm'>;

interface UserDbRow {
  id: string;
  username: string;
  password_hash: string;
  data: string;
  sealed_password: string | null;
}

/** Account types whose accounts dial the PPP servers. */
export const PPP_ACCOUNT_TYPES = ['pppoe', 'pptp', 'l2tp'] as const;

export function isPppAccountType(type: unknown): boolean {
  return (PPP_ACCOUNT_TYPES as readonly unknown[]).includes(type);
}

/**
 * The sealed password's column (account-secret-seal.ts) beside the hash: first for PPP accounts
 * only (`ppp_secret`), renamed when every account got one, its values kept. The account type,
 * kept in `data`, is also an indexed generated column, so the PPP servers' reads (on every poll
 * of their status and every render of their secrets) take their own accounts only.
 */
export const LOCAL_USER_MIGRATIONS: readonly ModuleMigration[] = [
  { name: 'local-user-ppp-secret', sql: 'ALTER TABLE hotspot_local_users ADD COLUMN ppp_secret TEXT' },
  { name: 'local-user-sealed-password', sql: 'ALTER TABLE hotspot_local_users RENAME COLUMN ppp_secret TO sealed_password' },
  {
    name: 'local-user-type-column',
    sql: `ALTER TABLE hotspot_local_users ADD COLUMN account_type TEXT GENERATED ALWAYS AS (json_extract(data, '$.type')) VIRTUAL;
      CREATE INDEX hotspot_local_users_type ON hotspot_local_users (account_type);`,
  },
];

/** What a CHAP sign-in's check found: the account, a wrong answer, or no sealed password to check it with. */
export type ChapVerdict = { ok: true; user: LocalUser } | { ok: false; reason: 'wrong' } | { ok: false; reason: 'noPassword'; username: string };

/** A PPP account as the PPP servers read it: its secret, or null until its password is set again. */
export interface PppAccount {
  username: string;
  secret: string | null;
  expired: boolean;
}

/** An account as a configuration backup carries it: the password only as its hash and sealed. */
export interface LocalUserRecord {
  id: string;
  username: string;
  password_hash: string;
  data: Record<string, unknown>;
  /** The password sealed under the device key (never plaintext); null: none, set it again. */
  sealed_password?: string | null;
  created_at: number;
  updated_at: number;
}

/** The account fields kept in the `data` column (all but id, name and password). */
export const LOCAL_USER_DATA_FIELDS = ['type', 'model', 'usernum', 'totalflow', 'upspeed', 'downspeed', 'duetime', 'status', 'sms', 'tel', 'comment'] as const;

function dataOf(record: EntityRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of LOCAL_USER_DATA_FIELDS) if (record[field] !== undefined) out[field] = record[field];
  return out;
}

/** Told of each account added one by one, with its password (the SMS new-account notice sends it). */
export type AccountCreatedListener = (user: LocalUser, password: string) => void;

/**
 * Local users in their own table (hotspot_local_users): each password as a scrypt hash
 * (plugins/password-hash.ts), which PAP sign-ins are checked against, and sealed
 * (account-secret-seal.ts), which CHAP needs: the PPP servers' secrets and the CMCC and RU
 * portals' CHAP sign-in. An account past its due time reads `expired` whatever its stored status.
 */
export class LocalUserStore {
  /** A hash of a random password, checked for unknown names at the same cost as real ones. */
  private unknownUserHash: Promise<string> | undefined;
  /** A sealed random password, opened for CHAP sign-ins of unknown names at the cost of real ones. */
  private unknownUserSeal: string | undefined;
  private readonly createdListeners = new Set<AccountCreatedListener>();
  private readonly changedListeners = new Set<() => void>();

  constructor(
    private readonly db: Db,
    private readonly passwords: PasswordHasher,
    private readonly now: () => number,
    /** Seals the accounts' passwords; without it (no state directory) they get none. */
    private readonly seal?: AccountSecretSeal,
  ) {}

  /** The sealed password an account keeps beside its hash, or null. */
  private sealedFor(username: string, password: string): string | null {
    return this.seal ? this.seal.seal(username, password) : null;
  }

  /** Calls `listener` after every change of the accounts (the PPP servers render their secrets). */
  onChanged(listener: () => void): () => void {
    this.changedListeners.add(listener);
    return () => this.changedListeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.changedListeners) listener();
  }

  /**
   * The accounts of one PPP type with their secrets. An account created before secrets were
   * sealed (or restored from another device) has none: it cannot dial until its password is set.
   */
  pppAccounts(type: string): PppAccount[] {
    const rows = this.db.prepare('SELECT * FROM hotspot_local_users WHERE account_type = ? ORDER BY rowid').all(type) as UserDbRow[];
    return rows.map((row) => {
      const secret = row.sealed_password && this.seal ? this.seal.open(row.username, row.sealed_password) : null;
      return { username: row.username, secret, expired: this.toUser(row).status === 'expired' };
    });
  }

  /**
   * The names of the accounts (of `type`, or all) that have no sealed password, without opening
   * any: what a status poll lists. A sealed password that cannot open here (another device's) is
   * dropped when it is restored (`replaceAll`), so a stored one opens.
   */
  namesWithoutPassword(type?: string): string[] {
    const where = [...(type === undefined ? [] : ['account_type = ?']), ...(this.seal ? ['sealed_password IS NULL'] : [])];
    const sql = `SELECT username FROM hotspot_local_users${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY rowid`;
    const rows = this.db.prepare(sql).all(...(type === undefined ? [] : [type])) as Array<{ username: string }>;
    return rows.map((row) => row.username);
  }

  private toUser(row: UserDbRow): LocalUser {
    const data = JSON.parse(row.data) as Omit<LocalUser, 'id' | 'username'>;
    const end = data.duetime ? dueTimeEnd(data.duetime) : null;
    const status = end !== null && end <= this.now() ? 'expired' : data.status;
    return { ...data, id: row.id, username: row.username, status };
  }

  list(): LocalUser[] {
    return (this.db.prepare('SELECT * FROM hotspot_local_users ORDER BY rowid').all() as UserDbRow[]).map((r) => this.toUser(r));
  }

  get(id: string): LocalUser | undefined {
    const row = this.db.prepare('SELECT * FROM hotspot_local_users WHERE id = ?').get(id) as UserDbRow | undefined;
    return row ? this.toUser(row) : undefined;
  }

  byUsername(username: string): LocalUser | undefined {
    const row = this.db.prepare('SELECT * FROM hotspot_local_users WHERE username = ?').get(username) as UserDbRow | undefined;
    return row ? this.toUser(row) : undefined;
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM hotspot_local_users').get() as { n: number }).n;
  }

  /** Adds one account; `record.password` is hashed before it is stored. */
  async insert(record: EntityRow): Promise<LocalUser> {
    const hash = await this.passwords.hash(String(record.password));
    const id = randomUUID();
    const at = this.now();
    const sealed = this.sealedFor(String(record.username), String(record.password));
    this.db
      .prepare('INSERT INTO hotspot_local_users (id, username, password_hash, data, sealed_password, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, String(record.username), hash, JSON.stringify(dataOf(record)), sealed, at, at);
    const user = this.get(id)!;
    for (const listener of this.createdListeners) listener(user, String(record.password));
    this.changed();
    return user;
  }

  /** Calls `listener` after each account `insert` adds (not batches: they carry no phone). */
  onCreated(listener: AccountCreatedListener): () => void {
    this.createdListeners.add(listener);
    return () => this.createdListeners.delete(listener);
  }

  /** Replaces the account's fields; a non-empty `record.password` replaces its hash. */
  async update(id: string, record: EntityRow): Promise<LocalUser | undefined> {
    const fresh = typeof record.password === 'string' && record.password !== '' ? await this.passwords.hash(record.password) : undefined;
    const previous = this.db.prepare('SELECT username, data FROM hotspot_local_users WHERE id = ?').get(id) as { username: string; data: string } | undefined;
    if (!previous) return undefined;
    const data = { ...(JSON.parse(previous.data) as Record<string, unknown>), ...dataOf(record) };
    if (fresh) {
      this.db
        .prepare('UPDATE hotspot_local_users SET password_hash = ?, data = ?, sealed_password = ?, updated_at = ? WHERE id = ?')
        .run(fresh, JSON.stringify(data), this.sealedFor(previous.username, String(record.password)), this.now(), id);
    } else this.db.prepare('UPDATE hotspot_local_users SET data = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(data), this.now(), id);
    this.changed();
    return this.get(id);
  }

  remove(ids: readonly string[]): number {
    const del = this.db.prepare('DELETE FROM hotspot_local_users WHERE id = ?');
    const removed = this.db.transaction(() => ids.reduce((n, id) => n + del.run(id).changes, 0))();
    if (removed > 0) this.changed();
    return removed;
  }

  /**
   * Creates the accounts of a batch in one transaction. The shared password is hashed once:
   * the accounts share it anyway, and hashing hundreds of times would stall the request.
   */
  async insertBatch(batch: HotspotUserBatch): Promise<LocalUser[]> {
    const hash = await this.passwords.hash(batch.password);
    const at = this.now();
    const data = JSON.stringify({
      type: batch.type,
      model: batch.model,
      usernum: batch.usernum,
      totalflow: 0,
      upspeed: 0,
      downspeed: 0,
      duetime: batch.duetime,
      status: 'normal',
      sms: false,
      tel: '',
      comment: batch.comment,
    });
    const insert = this.db.prepare(
      'INSERT INTO hotspot_local_users (id, username, password_hash, data, sealed_password, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const ids = this.db.transaction(() => batchUserNames(batch.prefix, batch.count).map((name) => {
      const id = randomUUID();
      insert.run(id, name, hash, data, this.sealedFor(name, batch.password), at, at);
      return id;
    }))();
    this.changed();
    return ids.map((id) => this.get(id)!);
  }

  /**
   * The portal engine's check of a local sign-in: the account when the password matches,
   * else null. Unknown names cost one hash too, so timing does not tell which names exist.
   * Whether the account is expired or over its limits is for the caller to decide (`status`).
   */
  async verifyLocalUser(username: string, password: string): Promise<LocalUser | null> {
    const row = this.db.prepare('SELECT * FROM hotspot_local_users WHERE username = ?').get(username) as UserDbRow | undefined;
    this.unknownUserHash ??= this.passwords.hash(randomBytes(24).toString('base64'));
    const ok = await this.passwords.verify(password, row?.password_hash ?? (await this.unknownUserHash));
    return row && ok ? this.toUser(row) : null;
  }

  /**
   * The check of a CHAP sign-in (CMCC, RU portals): `matches` says whether the response is the
   * one this password gives (in constant time); it is handed the account's sealed password, once
   * opened. An account without one (made before every password was sealed, or restored from
   * another device) cannot be checked: `noPassword`, until its password is set again. Unknown
   * names open and check a random password, so timing does not tell which names exist. Whether
   * the account may sign in (type, expiry, limits) is for the caller to decide. The caller
   * reserves the try with its guessing limit before it calls this.
   */
  verifyLocalUserChap(username: string, matches: (password: string) => boolean): ChapVerdict {
    const row = this.db.prepare('SELECT * FROM hotspot_local_users WHERE username = ?').get(username) as UserDbRow | undefined;
    if (!this.seal) return row ? { ok: false, reason: 'noPassword', username: row.username } : { ok: false, reason: 'wrong' };
    this.unknownUserSeal ??= this.seal.seal('', randomBytes(24).toString('base64'));
    const password = row?.sealed_password ? this.seal.open(row.username, row.sealed_password) : null;
    // One opening and one check whatever was found.
    const right = matches(password ?? this.seal.open('', this.unknownUserSeal) ?? '');
    if (!row) return { ok: false, reason: 'wrong' };
    if (password === null) return { ok: false, reason: 'noPassword', username: row.username };
    return right ? { ok: true, user: this.toUser(row) } : { ok: false, reason: 'wrong' };
  }

  /** Every account with its hash and sealed password, as stored: what a configuration backup seals. */
  exportRecords(): LocalUserRecord[] {
    const rows = this.db.prepare('SELECT id, username, password_hash, data, sealed_password, created_at, updated_at FROM hotspot_local_users ORDER BY rowid').all() as Array<
      UserDbRow & { created_at: number; updated_at: number }
    >;
    return rows.map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
  }

  /**
   * Makes `records` (already validated) the whole table. One transaction, nested in the
   * caller's when there is one: a restore writes the accounts with the configuration or not at all.
   * A sealed password that does not open on this device (a backup of another one) is not kept:
   * the account is one whose password must be set again, which the status reads tell without
   * opening anything.
   */
  replaceAll(records: readonly LocalUserRecord[]): void {
    const insert = this.db.prepare(
      'INSERT INTO hotspot_local_users (id, username, password_hash, data, sealed_password, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    // Without a seal (no state directory) nothing can be opened, so nothing is judged.
    const kept = ({ username, sealed_password: sealed }: LocalUserRecord) => (sealed && (!this.seal || this.seal.open(username, sealed) !== null) ? sealed : null);
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM hotspot_local_users').run();
      for (const r of records) insert.run(r.id, r.username, r.password_hash, JSON.stringify(r.data), kept(r), r.created_at, r.updated_at);
    })();
    this.changed();
  }

  /** Sets a new password (self-service change); false when the account does not exist. */
  async setPassword(username: string, password: string): Promise<boolean> {
    const hash = await this.passwords.hash(password);
    const row = this.db.prepare('SELECT username FROM hotspot_local_users WHERE username = ?').get(username) as { username: string } | undefined;
    if (!row) return false;
    const sealed = this.sealedFor(row.username, password);
    this.db.prepare('UPDATE hotspot_local_users SET password_hash = ?, sealed_password = ?, updated_at = ? WHERE username = ?').run(hash, sealed, this.now(), row.username);
    this.changed();
    return true;
  }
}

const stores = new WeakMap<object, LocalUserStore>();

/**
 * The device's local users (one store per database). The portal engine signs local users in
 * with `localUsers(ctx).verifyLocalUser(username, password)`.
 */
export function localUsers(ctx: { db: Db; passwords: PasswordHasher; now: () => number; settings?: { stateDir: string } }): LocalUserStore {
  let store = stores.get(ctx.db);
  if (!store) {
    const seal = ctx.settings ? new AccountSecretSeal(join(ctx.settings.stateDir, ACCOUNT_SECRET_KEY_FILE)) : undefined;
    store = new LocalUserStore(ctx.db, ctx.passwords, ctx.now, seal);
    stores.set(ctx.db, store);
  }
  return store;
}

/** Shorthand of `localUsers(ctx).verifyLocalUser(username, password)`. */
export function verifyLocalUser(
  ctx: { db: Db; passwords: PasswordHasher; now: () => number },
  username: string,
  password: string,
): Promise<LocalUser | null> {
  return localUsers(ctx).verifyLocalUser(username, password);
}
