/**
 * The change journal as the console reads it (DESIGN §4): every configuration write is a
 * revision (who, from where, when, a summary) with its changes, each the record before and
 * after. Replies are read defensively: a field of the wrong type reads as missing instead
 * of breaking the page.
 */

import type { RevisionSummary } from '@portico/schema';
import { CHANGE_ACTIONS, parseSummary } from './journal-summary.js';

/** Revision ids are whatever the daemon uses; they are sent back unchanged. */
export type RevisionId = string | number;

export type ChangeAction = 'add' | 'update' | 'delete';

export interface JournalEntry {
  id: RevisionId;
  /** Milliseconds since the epoch; NaN when the reply had none. */
  at: number;
  user: string;
  sourceIp: string;
  summary: RevisionSummary;
}

export interface JournalChange {
  entity: string;
  /** The record's id; null for a singleton. */
  id: string | number | null;
  action: ChangeAction;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface JournalRevision extends JournalEntry {
  changes: JournalChange[];
}

export interface JournalPage {
  items: JournalEntry[];
  total: number;
}

/** How the daemon writes a secret (a write-only field) into the journal. */
export const REDACTED_VALUE = '[redacted]';

export const JOURNAL_PAGE_SIZES = [10, 20, 50] as const;

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function revisionId(value: unknown): RevisionId | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value !== '') return value;
  return null;
}

export function parseEntry(value: unknown): JournalEntry | null {
  const row = record(value);
  const id = revisionId(row?.id);
  if (!row || id === null) return null;
  return {
    id,
    at: typeof row.at === 'number' && Number.isFinite(row.at) ? row.at : Number.NaN,
    user: text(row.user),
    sourceIp: text(row.source_ip),
    summary: parseSummary(row.summary),
  };
}

export function parseJournalPage(value: unknown): JournalPage {
  const data = record(value);
  const items = Array.isArray(data?.items) ? data.items.map(parseEntry).filter((e): e is JournalEntry => e !== null) : [];
  const total = typeof data?.total === 'number' && Number.isFinite(data.total) ? Math.max(0, data.total) : items.length;
  return { items, total };
}

export function parseChange(value: unknown): JournalChange | null {
  const row = record(value);
  if (!row || typeof row.entity !== 'string' || !CHANGE_ACTIONS.includes(row.action as string)) return null;
  const id = typeof row.id === 'string' || (typeof row.id === 'number' && Number.isFinite(row.id)) ? row.id : null;
  return { entity: row.entity, id, action: row.action as ChangeAction, before: record(row.before), after: record(row.after) };
}

export function parseChanges(value: unknown): JournalChange[] {
  return Array.isArray(value) ? value.map(parseChange).filter((c): c is JournalChange => c !== null) : [];
}

export function parseRevision(value: unknown): JournalRevision | null {
  const entry = parseEntry(value);
  if (!entry) return null;
  return { ...entry, changes: parseChanges(record(value)?.changes) };
}

export function isRedacted(value: unknown): boolean {
  return value === REDACTED_VALUE;
}

/**
 * What a field row says: present on one side only (added, removed), different, the same,
 * or a secret on both sides, which the journal does not reveal and so cannot be compared.
 */
export type FieldStatus = 'added' | 'removed' | 'changed' | 'unchanged' | 'secret';

export interface FieldRow {
  field: string;
  before: unknown;
  after: unknown;
  hasBefore: boolean;
  hasAfter: boolean;
  status: FieldStatus;
}

/** Structural equality of JSON values; key order does not matter. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  }
  const left = record(a);
  const right = record(b);
  if (!left || !right) return false;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => key in right && sameValue(left[key], right[key]));
}

function statusOf(hasBefore: boolean, hasAfter: boolean, before: unknown, after: unknown): FieldStatus {
  if (!hasBefore) return 'added';
  if (!hasAfter) return 'removed';
  if (isRedacted(before) && isRedacted(after)) return 'secret';
  return sameValue(before, after) ? 'unchanged' : 'changed';
}

/**
 * One row per field of a change, before → after: the fields of the old record in their
 * order, then fields only the new one has. An added record has only "after" values, a
 * deleted one only "before" values.
 */
export function fieldRows(change: Pick<JournalChange, 'before' | 'after'>): FieldRow[] {
  const before = change.before ?? {};
  const after = change.after ?? {};
  const fields = [...Object.keys(before), ...Object.keys(after).filter((key) => !Object.hasOwn(before, key))];
  return fields.map((field) => {
    const hasBefore = Object.hasOwn(before, field);
    const hasAfter = Object.hasOwn(after, field);
    return {
      field,
      before: before[field],
      after: after[field],
      hasBefore,
      hasAfter,
      status: statusOf(hasBefore, hasAfter, before[field], after[field]),
    };
  });
}

/** Rows worth showing: everything but unchanged fields unless those are asked for. */
export function visibleRows(rows: readonly FieldRow[], showUnchanged: boolean): FieldRow[] {
  return showUnchanged ? [...rows] : rows.filter((row) => row.status !== 'unchanged');
}

/** How a value is shown: text (never markup), or one of the marks the view translates. */
export type ValueView =
  | { kind: 'text'; text: string }
  | { kind: 'redacted' }
  | { kind: 'empty' }
  | { kind: 'absent' }
  | { kind: 'bool'; value: boolean };

export function valueView(value: unknown, present: boolean): ValueView {
  if (!present) return { kind: 'absent' };
  if (isRedacted(value)) return { kind: 'redacted' };
  if (value === null || value === undefined || value === '') return { kind: 'empty' };
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'string') return { kind: 'text', text: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { kind: 'text', text: String(value) };
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: 'empty' };
    if (value.every((item) => typeof item === 'string' || typeof item === 'number')) return { kind: 'text', text: value.join(', ') };
  }
  return { kind: 'text', text: JSON.stringify(value) };
}

/** i18n key of a change's entity title, or null to show the raw entity name. */
export function entityTitleKey(entity: string, exists: (key: string) => boolean): string | null {
  const key = `${entity}.title`;
  return exists(key) ? key : null;
}

/** i18n key of a field label when the entity declares one, else null (the raw name). */
export function fieldLabelKey(entity: string, field: string, exists: (key: string) => boolean): string | null {
  const key = `${entity}.field.${field}`;
  return exists(key) ? key : null;
}

/** i18n key of an option value's label (`<entity>.option.<field>.<value>`), if declared. */
export function optionLabelKey(entity: string, field: string, value: unknown, exists: (key: string) => boolean): string | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const key = `${entity}.option.${field}.${value}`;
  return exists(key) ? key : null;
}

/** Older revision first, so a diff reads as what happened from one to the other. */
export function diffRange(selected: readonly JournalEntry[]): { from: JournalEntry; to: JournalEntry } | null {
  if (selected.length !== 2) return null;
  const [a, b] = selected as [JournalEntry, JournalEntry];
  const older = (x: JournalEntry, y: JournalEntry) => (Number.isNaN(x.at) || Number.isNaN(y.at) || x.at === y.at ? idBefore(x.id, y.id) : x.at < y.at);
  return older(a, b) ? { from: a, to: b } : { from: b, to: a };
}

function idBefore(a: RevisionId, b: RevisionId): boolean {
  const x = Number(a);
  const y = Number(b);
  if (Number.isFinite(x) && Number.isFinite(y)) return x < y;
  return String(a) < String(b);
}

/** Selecting a third revision drops the oldest selection, so two are compared at most. */
export function toggleSelection(selected: readonly JournalEntry[], entry: JournalEntry, on: boolean): JournalEntry[] {
  const others = selected.filter((e) => String(e.id) !== String(entry.id));
  if (!on) return others;
  return [...others, entry].slice(-2);
}

/** Local date and time of a revision in the console's language. */
export function formatTime(at: number, lang: string): string {
  if (!Number.isFinite(at)) return '—';
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(at));
  } catch {
    return new Date(at).toISOString();
  }
}

/** A revert reply names the new revision, or null when nothing had to change. */
export function revertMadeRevision(data: unknown): boolean {
  const revision = record(data)?.revision;
  return revision !== null && revision !== undefined;
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}
