import { SUMMARY_LABEL_LIMIT, type AnyEntity, type SummaryGroup } from '@portico/schema';
import type { ConfigRow, ConfigSnapshot, JournalChange, RawChange, SnapshotRow } from './config-types.js';

/** What the journal shows instead of a secret's value. */
export const REDACTED = '[redacted]';

/** Field names that hold secrets whatever the entity declares: redacted even if undeclared. */
const SECRET_NAME = /(password|passwd|secret|psk|passphrase|private_?key|token)$/i;

/** Looks up an entity declaration by name; unknown names fall back to the name pattern. */
export type EntityLookup = (name: string) => AnyEntity | undefined;

function secretFields(entity: AnyEntity | undefined): Set<string> {
  const out = new Set<string>(entity?.writeOnly ?? []);
  for (const tab of entity?.form?.tabs ?? []) for (const field of tab.fields) if (field.keepWhenEmpty || field.widget === 'password') out.add(field.name);
  return out;
}

function isSecret(secrets: Set<string>, field: string): boolean {
  return secrets.has(field) || SECRET_NAME.test(field);
}

/** A copy of the row with every secret's value replaced by REDACTED. */
export function redactRow(entity: AnyEntity | undefined, row: ConfigRow): ConfigRow {
  const secrets = secretFields(entity);
  const out: ConfigRow = {};
  for (const [field, value] of Object.entries(row)) out[field] = isSecret(secrets, field) && value !== undefined ? REDACTED : value;
  return out;
}

/** Stable comparison of JSON values (key order of objects ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => sameValue(v, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!sameValue(left[key], right[key])) return false;
  return true;
}

function changedFields(before: ConfigRow | undefined, after: ConfigRow | undefined): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  return [...keys].filter((key) => !sameValue(before?.[key], after?.[key])).sort();
}

/** The journal's form of a change: computed on the raw values, then redacted. */
export function toJournalChange(lookup: EntityLookup, change: RawChange): JournalChange {
  const entity = lookup(change.entity);
  return {
    entity: change.entity,
    id: change.id,
    action: change.action,
    before: change.before ? redactRow(entity, change.before) : null,
    after: change.after ? redactRow(entity, change.after) : null,
    fields: changedFields(change.before, change.after),
  };
}

/**
 * Differences between two snapshots, as changes from `from` to `to`: rows only in `to` are
 * adds, rows only in `from` deletes, rows in both with other data updates. Raw (unredacted).
 */
export function diffSnapshots(from: ConfigSnapshot, to: ConfigSnapshot): RawChange[] {
  const out: RawChange[] = [];
  const entities = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
  for (const entity of entities) {
    const before = new Map<string, SnapshotRow>((from[entity] ?? []).map((r) => [r.id, r]));
    const after = new Map<string, SnapshotRow>((to[entity] ?? []).map((r) => [r.id, r]));
    for (const [id, row] of before) {
      const next = after.get(id);
      if (!next) out.push({ entity, id, action: 'delete', before: row.data });
      else if (!sameValue(row.data, next.data)) out.push({ entity, id, action: 'update', before: row.data, after: next.data });
    }
    for (const [id, row] of after) if (!before.has(id)) out.push({ entity, id, action: 'add', after: row.data });
  }
  return out;
}

/** Entities whose rows differ between two snapshots, order included. */
export function changedEntities(from: ConfigSnapshot, to: ConfigSnapshot): string[] {
  const entities = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
  return entities.filter((entity) => !sameValue(from[entity] ?? [], to[entity] ?? []));
}

/** Longest label kept: a summary is one line of the journal's list. */
const LABEL_MAX = 64;

/** The value that names a row in a summary: its name-like field, else its id. */
function rowLabel(change: RawChange): string {
  const row = change.after ?? change.before ?? {};
  for (const field of ['name', 'username', 'ifname', 'interface', 'mac', 'ip', 'target']) {
    const value = row[field];
    if (typeof value === 'string' && value !== '') return value.length > LABEL_MAX ? `${value.slice(0, LABEL_MAX - 1)}…` : value;
  }
  return change.id;
}

/** The rows a write changed, grouped by entity and action, each named by its label. */
export function summarise(changes: readonly RawChange[]): SummaryGroup[] {
  const groups = new Map<string, SummaryGroup>();
  for (const change of changes) {
    const key = `${change.entity} ${change.action}`;
    const group = groups.get(key) ?? { entity: change.entity, action: change.action, labels: [] };
    groups.set(key, group);
    const label = rowLabel(change);
    if (label === '') continue;
    if (group.labels.length < SUMMARY_LABEL_LIMIT) group.labels.push(label);
    else group.more = (group.more ?? 0) + 1;
  }
  return [...groups.values()];
}
