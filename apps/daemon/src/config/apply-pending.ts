import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../plugins/db-open.js';

/** The one change waiting for its confirmation; written before the change is applied. */
export interface PendingApply {
  revisionBefore: number;
  revisionAfter: number;
  tokenHash: string;
  /** Epoch milliseconds. */
  deadline: number;
  createdAt: number;
}

interface PendingRow {
  revision_before: number;
  revision_after: number;
  token_hash: string;
  deadline: number;
  created_at: number;
}

/** 256 random bits, URL-safe: the confirmation token is the only credential of its route. */
export function newConfirmToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashConfirmToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether `token` is the one whose hash is stored, compared in constant time. */
export function tokenMatches(token: string, storedHash: string): boolean {
  const given = Buffer.from(hashConfirmToken(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/** SQL access to pending_apply (at most one row). Synchronous, for use inside transactions. */
export class PendingStore {
  constructor(private readonly db: Db) {}

  read(): PendingApply | undefined {
    const row = this.db.prepare('SELECT * FROM pending_apply WHERE slot = 1').get() as PendingRow | undefined;
    return row
      ? {
          revisionBefore: row.revision_before,
          revisionAfter: row.revision_after,
          tokenHash: row.token_hash,
          deadline: row.deadline,
          createdAt: row.created_at,
        }
      : undefined;
  }

  /** Throws on a second row: the caller checks read() in the same transaction first. */
  insert(pending: PendingApply): void {
    this.db
      .prepare('INSERT INTO pending_apply (slot, revision_before, revision_after, token_hash, deadline, created_at) VALUES (1, ?, ?, ?, ?, ?)')
      .run(pending.revisionBefore, pending.revisionAfter, pending.tokenHash, pending.deadline, pending.createdAt);
  }

  /** Removes the row only if it is still the given one; true when it was removed. */
  clear(revisionAfter: number): boolean {
    return this.db.prepare('DELETE FROM pending_apply WHERE slot = 1 AND revision_after = ?').run(revisionAfter).changes > 0;
  }
}
