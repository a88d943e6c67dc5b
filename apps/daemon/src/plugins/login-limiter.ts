import type { Db } from './db-open.js';

/** Spec §6/§9: five wrong passwords forbid signing in for five minutes. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_LOCK_SECONDS = 300;

export type Reservation =
  /** `release` returns the seconds until sign-in is possible again when this failure locked the key, else 0. */
  | { ok: true; release(outcome: 'success' | 'failure'): number }
  | { ok: false; retryAfter: number };

interface FailureRow {
  count: number;
  locked_until: number;
}

/**
 * Counts wrong passwords per account and source address, in the database so a restart keeps
 * a lock. A try is reserved synchronously before the password is hashed: stored failures plus
 * tries in flight may never exceed the limit, so a burst of parallel guesses checks at most
 * LOGIN_MAX_FAILURES passwords.
 */
export class LoginLimiter {
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  static key(username: string, address: string): string {
    return `${username.toLowerCase()}|${address}`;
  }

  reserve(key: string): Reservation {
    const now = this.now();
    let row = this.db.prepare('SELECT count, locked_until FROM login_failures WHERE key = ?').get(key) as FailureRow | undefined;
    if (row && row.locked_until > now) return { ok: false, retryAfter: Math.ceil((row.locked_until - now) / 1000) };
    if (row && row.locked_until !== 0) {
      // The lock has run out: start counting afresh.
      this.db.prepare('DELETE FROM login_failures WHERE key = ?').run(key);
      row = undefined;
    }
    const pending = this.inFlight.get(key) ?? 0;
    if ((row?.count ?? 0) + pending >= LOGIN_MAX_FAILURES) {
      return { ok: false, retryAfter: LOGIN_LOCK_SECONDS };
    }
    this.inFlight.set(key, pending + 1);
    let released = false;
    return {
      ok: true,
      release: (outcome) => {
        if (released) return 0;
        released = true;
        const left = (this.inFlight.get(key) ?? 1) - 1;
        if (left > 0) this.inFlight.set(key, left);
        else this.inFlight.delete(key);
        if (outcome === 'success') {
          this.db.prepare('DELETE FROM login_failures WHERE key = ?').run(key);
          return 0;
        }
        return this.recordFailure(key);
      },
    };
  }

  private recordFailure(key: string): number {
    const now = this.now();
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT count, locked_until FROM login_failures WHERE key = ?').get(key) as FailureRow | undefined;
      if (row && row.locked_until > now) return Math.ceil((row.locked_until - now) / 1000);
      const count = (row && row.locked_until === 0 ? row.count : 0) + 1;
      const lockedUntil = count >= LOGIN_MAX_FAILURES ? now + LOGIN_LOCK_SECONDS * 1000 : 0;
      this.db
        .prepare(
          `INSERT INTO login_failures (key, count, locked_until) VALUES (?, ?, ?)
           ON CONFLICT(key) DO UPDATE SET count = excluded.count, locked_until = excluded.locked_until`,
        )
        .run(key, count, lockedUntil);
      return lockedUntil === 0 ? 0 : LOGIN_LOCK_SECONDS;
    })();
  }
}
