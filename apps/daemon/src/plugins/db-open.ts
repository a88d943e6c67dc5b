import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database.Database;

/**
 * Schema changes, in order. A migration is never edited once released: a change adds a new
 * entry. Each runs in a transaction together with its row in schema_migrations.
 */
export const MIGRATIONS: ReadonlyArray<{ name: string; sql: string }> = [
  {
    name: 'accounts and sessions',
    sql: `
      CREATE TABLE admin_users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,
        disabled INTEGER NOT NULL DEFAULT 0,
        privilege INTEGER NOT NULL,
        allowd_ips TEXT NOT NULL DEFAULT '[]',
        lang TEXT,
        must_change_password INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES admin_users(id) ON DELETE CASCADE,
        csrf TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        ip TEXT NOT NULL
      );
      CREATE INDEX sessions_user ON sessions(user_id);
      CREATE TABLE login_failures (
        key TEXT PRIMARY KEY,
        count INTEGER NOT NULL,
        locked_until INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
  {
    name: 'configuration rows and settings',
    sql: `
      CREATE TABLE config_rows (
        entity TEXT NOT NULL,
        id TEXT NOT NULL,
        data TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (entity, id)
      );
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    name: 'change journal and pending apply',
    sql: `
      CREATE TABLE revisions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        user TEXT NOT NULL,
        source_ip TEXT NOT NULL,
        summary TEXT NOT NULL,
        changes TEXT NOT NULL,
        snapshot TEXT NOT NULL
      );
      CREATE TABLE pending_apply (
        slot INTEGER PRIMARY KEY CHECK (slot = 1),
        revision_before INTEGER NOT NULL,
        revision_after INTEGER NOT NULL,
        token_hash TEXT NOT NULL,
        deadline INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    name: 'hotspot local users and vouchers',
    sql: `
      CREATE TABLE hotspot_local_users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE voucher_batches (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        codelength INTEGER NOT NULL,
        amount INTEGER NOT NULL,
        validity INTEGER NOT NULL,
        unit TEXT NOT NULL,
        usernum INTEGER NOT NULL,
        plan TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE vouchers (
        id TEXT PRIMARY KEY,
        batch_id TEXT NOT NULL REFERENCES voucher_batches(id) ON DELETE CASCADE,
        serial INTEGER NOT NULL,
        code_hash TEXT NOT NULL UNIQUE,
        first_used INTEGER,
        expires_at INTEGER,
        macs TEXT NOT NULL DEFAULT '[]'
      );
      CREATE INDEX vouchers_batch ON vouchers(batch_id, serial);
    `,
  },
  {
    // The console's lock and the hotspot portal's guessing limit in one table, each in its scope.
    name: 'guessing limits of every sign-in',
    sql: `
      CREATE TABLE guess_failures (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        count INTEGER NOT NULL,
        window_start INTEGER NOT NULL,
        locked_until INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (scope, key)
      ) WITHOUT ROWID;
      INSERT INTO guess_failures (scope, key, count, window_start, locked_until)
        SELECT 'admin', key, count, 0, locked_until FROM login_failures;
      DROP TABLE login_failures;
    `,
  },
];

/** Opens (creating if needed) the database and brings its schema up to date. */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const db = new Database(file);
  // Accounts, lock state and configuration must survive a power cut: WAL with full sync.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/** SQL, run by SQLite: the migrations' own bookkeeping table. */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`;

export function migrate(db: Db): void {
  db.exec(MIGRATIONS_TABLE);
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  const current = row.v ?? 0;
  if (current > MIGRATIONS.length) {
    throw new Error(`database schema version ${current} is newer than this daemon (${MIGRATIONS.length})`);
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  MIGRATIONS.forEach((migration, index) => {
    const version = index + 1;
    if (version <= current) return;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(version, migration.name, Date.now());
    })();
  });
}

/** One schema change a domain module owns (its own tables); never edited once released. */
export interface ModuleMigration {
  name: string;
  /** SQL, run by SQLite in one transaction with its bookkeeping row. */
  sql: string;
}

/** SQL, run by SQLite: which module migrations ran, by module and name. */
const MODULE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS module_migrations (
    module TEXT NOT NULL,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL,
    PRIMARY KEY (module, name)
  ) WITHOUT ROWID`;

/**
 * Brings a module's own tables up to date: each migration it lists runs once, in list order.
 * Keyed by name rather than position so modules are added and ordered freely.
 */
export function migrateModule(db: Db, module: string, migrations: readonly ModuleMigration[]): void {
  db.exec(MODULE_MIGRATIONS_TABLE);
  const done = new Set(
    (db.prepare('SELECT name FROM module_migrations WHERE module = ?').all(module) as Array<{ name: string }>).map((r) => r.name),
  );
  const record = db.prepare('INSERT INTO module_migrations (module, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of migrations) {
    if (done.has(migration.name)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(module, migration.name, Date.now());
    })();
  }
}
