import type { Db } from '../plugins/db-open.js';
import type { RevisionSummary } from '@portico/schema';
import type { Actor, ConfigSnapshot, JournalChange, SnapshotRow } from './config-types.js';
import { readSummary, storedSummary } from './journal-summary.js';

/** Revisions kept; older ones go, except those a pending confirmation still needs. */
export const REVISION_LIMIT = 500;

export interface RevisionHead {
  id: number;
  at: number;
  user: string;
  source_ip: string;
  summary: RevisionSummary;
}

export interface Revision extends RevisionHead {
  changes: JournalChange[];
}

/** A revisions row as stored: the summary is JSON, or an older release's line. */
interface StoredHead extends Omit<RevisionHead, 'summary'> {
  summary: string;
}

function head(row: StoredHead): RevisionHead {
  return { ...row, summary: readSummary(row.summary) };
}

/**
 * The change journal: one row per configuration write with who, from where, when, a summary,
 * the redacted changes and a snapshot of every config_rows row after the write. Methods are
 * synchronous so they run inside the caller's transaction.
 */
export class RevisionJournal {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /** The current configuration: every config_rows row, by entity, in insertion order. */
  capture(): ConfigSnapshot {
    const rows = this.db.prepare('SELECT entity, id, data FROM config_rows ORDER BY entity, rowid').all() as Array<{
      entity: string;
      id: string;
      data: string;
    }>;
    const out: Record<string, SnapshotRow[]> = {};
    for (const row of rows) (out[row.entity] ??= []).push({ id: row.id, data: JSON.parse(row.data) as Record<string, unknown> });
    return out;
  }

  /** Replaces the rows of the given entities with those of the snapshot, keeping their order. */
  restore(snapshot: ConfigSnapshot, entities: Iterable<string>): void {
    const remove = this.db.prepare('DELETE FROM config_rows WHERE entity = ?');
    const insert = this.db.prepare('INSERT INTO config_rows (entity, id, data, updated_at) VALUES (?, ?, ?, ?)');
    const at = this.now();
    for (const entity of entities) {
      remove.run(entity);
      for (const row of snapshot[entity] ?? []) insert.run(entity, row.id, JSON.stringify(row.data), at);
    }
  }

  append(actor: Actor, summary: RevisionSummary, changes: readonly JournalChange[], snapshot: ConfigSnapshot): number {
    const result = this.db
      .prepare('INSERT INTO revisions (at, user, source_ip, summary, changes, snapshot) VALUES (?, ?, ?, ?, ?, ?)')
      .run(this.now(), actor.user, actor.sourceIp, storedSummary(summary), JSON.stringify(changes), JSON.stringify(snapshot));
    this.prune();
    return Number(result.lastInsertRowid);
  }

  latestId(): number | undefined {
    const row = this.db.prepare('SELECT MAX(id) AS id FROM revisions').get() as { id: number | null };
    return row.id ?? undefined;
  }

  list(offset: number, limit: number): { items: RevisionHead[]; total: number } {
    const items = this.db
      .prepare('SELECT id, at, user, source_ip, summary FROM revisions ORDER BY id DESC LIMIT ? OFFSET ?')
      .all(limit, offset) as StoredHead[];
    const { n } = this.db.prepare('SELECT COUNT(*) AS n FROM revisions').get() as { n: number };
    return { items: items.map(head), total: n };
  }

  get(id: number): Revision | undefined {
    const row = this.db.prepare('SELECT id, at, user, source_ip, summary, changes FROM revisions WHERE id = ?').get(id) as
      | (StoredHead & { changes: string })
      | undefined;
    return row ? { ...head(row), changes: JSON.parse(row.changes) as JournalChange[] } : undefined;
  }

  snapshot(id: number): ConfigSnapshot | undefined {
    const row = this.db.prepare('SELECT snapshot FROM revisions WHERE id = ?').get(id) as { snapshot: string } | undefined;
    return row ? (JSON.parse(row.snapshot) as ConfigSnapshot) : undefined;
  }

  private prune(): void {
    this.db
      .prepare(
        `DELETE FROM revisions WHERE id <= (SELECT MAX(id) FROM revisions) - ?
           AND id NOT IN (SELECT revision_before FROM pending_apply UNION SELECT revision_after FROM pending_apply)`,
      )
      .run(REVISION_LIMIT);
  }
}
