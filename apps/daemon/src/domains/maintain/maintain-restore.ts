import { adminUser, NETWORK_RULES, type AnyEntity, type NetworkRows } from '@portico/schema';
import type { z } from 'zod';
import type { ConfigRow, ConfigSnapshot, SnapshotRow } from '../../config/config-types.js';
import { BACKUP_ROW_ID, BackupPartRefused } from '../../config/backup-part.js';
import { asBackupRefused } from './maintain-archive.js';

const SINGLETON_ID = '';

/** A stored row's schema: the entity's own fields only, its cross-field rules as on an update. */
function storedSchema(entity: AnyEntity): z.ZodType {
  const strict = entity.schema.strict();
  if (!entity.refine) return strict;
  return strict.superRefine((value, ctx) => {
    entity.refine!(value as never, { addIssue: (field, message) => ctx.addIssue({ code: 'custom', path: [field], message }) }, 'update');
  });
}

function refuse(entity: string, id: string, field: string, reason: string): never {
  throw asBackupRefused(BackupPartRefused.row(entity, id, field, reason));
}

/** The network rows in the shape the cross-record rules read: collections carry their id. */
function networkRowsOf(snapshot: ConfigSnapshot): NetworkRows {
  const out: Record<string, ConfigRow[]> = {};
  for (const name of Object.keys(NETWORK_RULES)) {
    out[name] = (snapshot[name] ?? []).map((row) => (row.id === SINGLETON_ID ? row.data : { ...row.data, id: row.id }));
  }
  return out as NetworkRows;
}

/**
 * Checks a configuration read from a backup as the write path checks each write: every
 * entity known to this daemon, singletons as one row, collection ids unique and matching their
 * data, every row valid for its entity's schema, and the network rules that involve other
 * records (overlaps, tags, references) over the configuration as a whole. Answers the rows as
 * the schemas parse them; throws BackupRefused naming the first problem.
 */
export function validateSnapshot(snapshot: ConfigSnapshot, lookup: (name: string) => AnyEntity | undefined): ConfigSnapshot {
  const out: Record<string, SnapshotRow[]> = {};
  for (const [name, rows] of Object.entries(snapshot)) {
    // Admin accounts live in their own table, never in a configuration snapshot.
    const entity = name === adminUser.name ? undefined : lookup(name);
    if (!entity) refuse(name, '', '_', 'unknown entity');
    const schema = storedSchema(entity);
    if (entity.kind === 'singleton' && (rows.length > 1 || rows.some((row) => row.id !== SINGLETON_ID))) {
      refuse(name, rows[0]?.id ?? '', 'id', 'a singleton holds one row without id');
    }
    if (entity.kind === 'collection' && entity.maxRows !== undefined && rows.length > entity.maxRows) {
      refuse(name, '', '_', `more than ${entity.maxRows} rows`);
    }
    const ids = new Set<string>();
    out[name] = rows.map((row) => {
      if (entity.kind === 'collection') {
        if (!BACKUP_ROW_ID.test(row.id)) refuse(name, row.id, 'id', 'invalid id');
        if (ids.has(row.id)) refuse(name, row.id, 'id', 'duplicate id');
        if (row.data.id !== row.id) refuse(name, row.id, 'id', 'the row id differs from its data');
        ids.add(row.id);
      }
      const parsed = schema.safeParse(row.data);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        refuse(name, row.id, issue?.path.length ? String(issue.path[0]) : '_', issue?.message ?? 'invalid');
      }
      return { id: row.id, data: parsed.data as ConfigRow };
    });
  }

  const network = networkRowsOf(out);
  for (const [name, rules] of Object.entries(NETWORK_RULES)) {
    const check = rules.write as (candidate: never, rows: NetworkRows) => Record<string, string> | string | undefined;
    for (const row of out[name] ?? []) {
      const candidate = row.id === SINGLETON_ID ? row.data : { ...row.data, id: row.id };
      const verdict = check(candidate as never, network);
      if (verdict === undefined) continue;
      if (typeof verdict === 'string') refuse(name, row.id, '_', verdict);
      const [field, message] = Object.entries(verdict)[0] ?? ['_', 'invalid'];
      refuse(name, row.id, field, message);
    }
  }
  return out;
}
