import { randomUUID } from 'node:crypto';
import type { Privilege } from '@portico/schema';
import type { Db } from './db-open.js';

/** An admin account as the daemon works with it; the hash never leaves this process. */
export interface Account {
  id: string;
  username: string;
  passwordHash: string;
  disabled: boolean;
  privilege: Privilege;
  allowdIps: string[];
  lang: string | null;
  mustChangePassword: boolean;
  createdAt: number;
  updatedAt: number;
}

interface AccountRow {
  id: string;
  username: string;
  password_hash: string;
  disabled: number;
  privilege: number;
  allowd_ips: string;
  lang: string | null;
  must_change_password: number;
  created_at: number;
  updated_at: number;
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    username: row.username,
    passwordHash: row.password_hash,
    disabled: row.disabled !== 0,
    privilege: row.privilege as Privilege,
    allowdIps: JSON.parse(row.allowd_ips) as string[],
    lang: row.lang,
    mustChangePassword: row.must_change_password !== 0,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewAccount {
  username: string;
  passwordHash: string;
  privilege: Privilege;
  disabled?: boolean;
  allowdIps?: string[];
  mustChangePassword?: boolean;
}

export type AccountChange = Partial<Pick<Account, 'username' | 'passwordHash' | 'privilege' | 'disabled' | 'allowdIps' | 'lang' | 'mustChangePassword'>>;

/** SQL access to admin_users. Usernames are unique regardless of letter case. */
export class AccountStore {
  private readonly byIdStmt;
  private readonly byNameStmt;
  private readonly countStmt;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    this.byIdStmt = db.prepare('SELECT * FROM admin_users WHERE id = ?');
    this.byNameStmt = db.prepare('SELECT * FROM admin_users WHERE username = ? COLLATE NOCASE');
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM admin_users');
  }

  byId(id: string): Account | undefined {
    const row = this.byIdStmt.get(id) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  byUsername(username: string): Account | undefined {
    const row = this.byNameStmt.get(username) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  count(): number {
    return (this.countStmt.get() as { n: number }).n;
  }

  list(): Account[] {
    return (this.db.prepare('SELECT * FROM admin_users ORDER BY created_at, username').all() as AccountRow[]).map(toAccount);
  }

  /** Throws a SqliteError with code SQLITE_CONSTRAINT_UNIQUE when the name is taken. */
  insert(input: NewAccount): Account {
    const id = randomUUID();
    const at = this.now();
    this.db
      .prepare(
        `INSERT INTO admin_users (id, username, password_hash, disabled, privilege, allowd_ips, lang, must_change_password, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
      )
      .run(
        id,
        input.username,
        input.passwordHash,
        input.disabled ? 1 : 0,
        input.privilege,
        JSON.stringify(input.allowdIps ?? []),
        input.mustChangePassword ? 1 : 0,
        at,
        at,
      );
    return this.byId(id)!;
  }

  update(id: string, change: AccountChange): Account | undefined {
    const columns: string[] = [];
    const values: unknown[] = [];
    const set = (column: string, value: unknown) => {
      columns.push(`${column} = ?`);
      values.push(value);
    };
    if (change.username !== undefined) set('username', change.username);
    if (change.passwordHash !== undefined) set('password_hash', change.passwordHash);
    if (change.privilege !== undefined) set('privilege', change.privilege);
    if (change.disabled !== undefined) set('disabled', change.disabled ? 1 : 0);
    if (change.allowdIps !== undefined) set('allowd_ips', JSON.stringify(change.allowdIps));
    if (change.lang !== undefined) set('lang', change.lang);
    if (change.mustChangePassword !== undefined) set('must_change_password', change.mustChangePassword ? 1 : 0);
    set('updated_at', this.now());
    this.db.prepare(`UPDATE admin_users SET ${columns.join(', ')} WHERE id = ?`).run(...values, id);
    return this.byId(id);
  }

  remove(ids: readonly string[]): number {
    const stmt = this.db.prepare('DELETE FROM admin_users WHERE id = ?');
    return this.db.transaction(() => ids.reduce((n, id) => n + stmt.run(id).changes, 0))();
  }
}

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}
