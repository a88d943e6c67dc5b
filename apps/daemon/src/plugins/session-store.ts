import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './db-open.js';

export interface SessionRecord {
  idHash: string;
  userId: string;
  csrf: string;
  createdAt: number;
  lastSeen: number;
  ip: string;
}

interface SessionRow {
  id_hash: string;
  user_id: string;
  csrf: string;
  created_at: number;
  last_seen: number;
  ip: string;
}

export interface SessionLimits {
  /** Milliseconds without use after which a session ends. */
  idleMs: number;
  /** Milliseconds after creation after which a session ends. */
  maxMs: number;
}

/** Only the SHA-256 of a session id is stored, so a copy of the database cannot be replayed. */
export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** Writing last_seen on every request would fsync per request; this much staleness is fine. */
const TOUCH_INTERVAL_MS = 10_000;

export class SessionStore {
  private readonly revokeListeners = new Set<() => void>();

  constructor(
    private readonly db: Db,
    private readonly limits: SessionLimits,
  ) {}

  /** A new 256-bit session id and its CSRF token; the id is returned once, for the cookie. */
  create(userId: string, ip: string, now: number): { id: string; csrf: string } {
    const id = randomBytes(32).toString('base64url');
    const csrf = randomBytes(32).toString('base64url');
    this.purge(now);
    this.db
      .prepare('INSERT INTO sessions (id_hash, user_id, csrf, created_at, last_seen, ip) VALUES (?, ?, ?, ?, ?, ?)')
      .run(hashSessionId(id), userId, csrf, now, now, ip);
    return { id, csrf };
  }

  /** The live session for a cookie value; an expired one is deleted and not returned. */
  find(id: string, now: number, ip: string): SessionRecord | undefined {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const idHash = hashSessionId(id);
    const row = this.db.prepare('SELECT * FROM sessions WHERE id_hash = ?').get(idHash) as SessionRow | undefined;
    if (!row) return undefined;
    if (now - row.last_seen > this.limits.idleMs || now - row.created_at > this.limits.maxMs) {
      this.db.prepare('DELETE FROM sessions WHERE id_hash = ?').run(idHash);
      return undefined;
    }
    if (now - row.last_seen >= TOUCH_INTERVAL_MS) {
      this.db.prepare('UPDATE sessions SET last_seen = ?, ip = ? WHERE id_hash = ?').run(now, ip, idHash);
      row.last_seen = now;
      row.ip = ip;
    }
    return {
      idHash: row.id_hash,
      userId: row.user_id,
      csrf: row.csrf,
      createdAt: row.created_at,
      lastSeen: row.last_seen,
      ip: row.ip,
    };
  }

  revoke(idHash: string): void {
    this.db.prepare('DELETE FROM sessions WHERE id_hash = ?').run(idHash);
    this.revoked();
  }

  /** Ends every session of an account, except optionally the one making the change. */
  revokeUser(userId: string, keepIdHash?: string): number {
    const changes = this.db.prepare('DELETE FROM sessions WHERE user_id = ? AND id_hash != ?').run(userId, keepIdHash ?? '').changes;
    if (changes > 0) this.revoked();
    return changes;
  }

  /**
   * Told after sessions were ended (sign-out, an account disabled or its password changed):
   * what outlives a request on a session (a WebSocket) checks its own with `touch`. Returns
   * the function that stops the listening.
   */
  onRevoke(listener: () => void): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  private revoked(): void {
    for (const listener of this.revokeListeners) listener();
  }

  /**
   * Use of a session by something other than a request (input on a WebSocket): keeps it from
   * idling out like a request would. False when the session has ended or expired.
   */
  touch(idHash: string, now: number): boolean {
    const row = this.liveRow(idHash, now);
    if (row && now - row.last_seen >= TOUCH_INTERVAL_MS) this.db.prepare('UPDATE sessions SET last_seen = ? WHERE id_hash = ?').run(now, idHash);
    return row !== undefined;
  }

  /** Whether a session is still live, without counting the question as use. */
  isLive(idHash: string, now: number): boolean {
    return this.liveRow(idHash, now) !== undefined;
  }

  private liveRow(idHash: string, now: number): Pick<SessionRow, 'last_seen' | 'created_at'> | undefined {
    const row = this.db.prepare('SELECT last_seen, created_at FROM sessions WHERE id_hash = ?').get(idHash) as Pick<SessionRow, 'last_seen' | 'created_at'> | undefined;
    if (!row || now - row.last_seen > this.limits.idleMs || now - row.created_at > this.limits.maxMs) return undefined;
    return row;
  }

  countForUser(userId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?').get(userId) as { n: number }).n;
  }

  purge(now: number): void {
    this.db
      .prepare('DELETE FROM sessions WHERE last_seen < ? OR created_at < ?')
      .run(now - this.limits.idleMs, now - this.limits.maxMs);
  }
}
