import type { Db } from './db-open.js';

/** Spec §6/§9: five wrong passwords forbid signing in for five minutes. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_LOCK_SECONDS = 300;

/** How one kind of sign-in limits guessing. */
export interface GuessPolicy {
  /** The keys' namespace in the failures table. */
  scope: string;
  maxFailures: number;
  lockSeconds: number;
  /** Failures older than this stop counting; absent: they count until a success or a lock. */
  windowSeconds?: number;
  /** Whether a success forgets the failures before it. */
  successClears: boolean;
}

/** The console sign-in and password change: per account and source address. */
export const ADMIN_LOGIN_POLICY: GuessPolicy = {
  scope: 'admin',
  maxFailures: LOGIN_MAX_FAILURES,
  lockSeconds: LOGIN_LOCK_SECONDS,
  successClears: true,
};

/**
 * The hotspot's vouchers, access password and local accounts, per client MAC and per address
 * (changing either alone does not reset it). A success forgets nothing: a guesser who finds
 * one code is still counted.
 */
export const PORTAL_GUESS_POLICY: GuessPolicy = {
  scope: 'portal',
  maxFailures: LOGIN_MAX_FAILURES,
  lockSeconds: LOGIN_LOCK_SECONDS,
  windowSeconds: LOGIN_LOCK_SECONDS,
  successClears: false,
};

/** `uncounted`: the try ended without telling anything about the secret (expired account, system error). */
export type TryOutcome = 'success' | 'failure' | 'uncounted';

export type Reservation =
  /** `release` returns the seconds until sign-in is possible again when this failure locked a key, else 0. */
  | { ok: true; release(outcome: TryOutcome): number }
  | { ok: false; retryAfter: number };

interface FailureRow {
  count: number;
  window_start: number;
  locked_until: number;
}

/** Expired rows are swept at most this often. */
const PRUNE_INTERVAL_MS = 60_000;

/**
 * Counts wrong secrets per key, in the database so a restart keeps a lock. A try is reserved
 * synchronously before the secret is checked: stored failures plus tries in flight may never
 * exceed the limit, so a burst of parallel guesses checks at most `maxFailures` secrets, and a
 * right one sent among them past the limit is refused like the rest.
 */
export class LoginLimiter {
  private readonly inFlight = new Map<string, number>();
  private prunedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly policy: GuessPolicy = ADMIN_LOGIN_POLICY,
  ) {}

  static key(username: string, address: string): string {
    return `${username.toLowerCase()}|${address}`;
  }

  /** Reserves one try on every key (all or none); refused while any of them is locked or full. */
  reserve(keys: string | readonly string[]): Reservation {
    const list = typeof keys === 'string' ? [keys] : [...new Set(keys)];
    const now = this.now();
    let retryAfter = 0;
    for (const key of list) {
      const state = this.current(key, now);
      if (state.lockedFor > 0) retryAfter = Math.max(retryAfter, state.lockedFor);
      else if (state.count + (this.inFlight.get(key) ?? 0) >= this.policy.maxFailures) retryAfter = Math.max(retryAfter, this.policy.lockSeconds);
    }
    if (retryAfter > 0) return { ok: false, retryAfter };
    for (const key of list) this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let released = false;
    return {
      ok: true,
      release: (outcome) => {
        if (released) return 0;
        released = true;
        for (const key of list) {
          const left = (this.inFlight.get(key) ?? 1) - 1;
          if (left > 0) this.inFlight.set(key, left);
          else this.inFlight.delete(key);
        }
        if (outcome === 'failure') return Math.max(...list.map((key) => this.recordFailure(key)));
        if (outcome === 'success' && this.policy.successClears) {
          for (const key of list) this.db.prepare('DELETE FROM guess_failures WHERE scope = ? AND key = ?').run(this.policy.scope, key);
        }
        return 0;
      },
    };
  }

  private row(key: string): FailureRow | undefined {
    return this.db
      .prepare('SELECT count, window_start, locked_until FROM guess_failures WHERE scope = ? AND key = ?')
      .get(this.policy.scope, key) as FailureRow | undefined;
  }

  /** Whether a stored row still counts: not past its lock, nor past its window. */
  private live(row: FailureRow | undefined, now: number): row is FailureRow {
    if (!row) return false;
    if (row.locked_until !== 0) return row.locked_until > now;
    const window = this.policy.windowSeconds;
    return window === undefined || now - row.window_start < window * 1000;
  }

  private current(key: string, now: number): { count: number; lockedFor: number } {
    const row = this.row(key);
    if (!this.live(row, now)) return { count: 0, lockedFor: 0 };
    if (row.locked_until > now) return { count: row.count, lockedFor: Math.ceil((row.locked_until - now) / 1000) };
    return { count: row.count, lockedFor: 0 };
  }

  private recordFailure(key: string): number {
    const now = this.now();
    const { scope, maxFailures, lockSeconds } = this.policy;
    const locked = this.db.transaction(() => {
      const row = this.row(key);
      const live = this.live(row, now);
      if (live && row.locked_until > now) return Math.ceil((row.locked_until - now) / 1000);
      const count = (live ? row.count : 0) + 1;
      const lockedUntil = count >= maxFailures ? now + lockSeconds * 1000 : 0;
      this.db
        .prepare(
          `INSERT INTO guess_failures (scope, key, count, window_start, locked_until) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(scope, key) DO UPDATE SET count = excluded.count, window_start = excluded.window_start, locked_until = excluded.locked_until`,
        )
        .run(scope, key, count, live ? row.window_start : now, lockedUntil);
      return lockedUntil === 0 ? 0 : lockSeconds;
    })();
    this.prune(now);
    return locked;
  }

  /** Forgets keys whose lock or window ran out, so a flood of distinct sources does not pile up. */
  private prune(now: number): void {
    if (now - this.prunedAt < PRUNE_INTERVAL_MS) return;
    this.prunedAt = now;
    const window = this.policy.windowSeconds;
    this.db
      .prepare(
        `DELETE FROM guess_failures WHERE scope = ? AND
           ((locked_until <> 0 AND locked_until <= ?) OR (locked_until = 0 AND ? AND window_start <= ?))`,
      )
      .run(this.policy.scope, now, window === undefined ? 0 : 1, now - (window ?? 0) * 1000);
  }
}
