import { formatBytes, type AnyEntity, type ListColumnDef } from '@portico/schema';

/**
 * How a list cell shows a value, per the column's declared format. The result is plain data
 * (text, tags or an on/off state) that the table renders as text nodes: values come from the
 * device and are never treated as markup.
 */
export type CellView =
  | { kind: 'text'; text: string }
  | { kind: 'empty'; text: string }
  | { kind: 'tags'; items: string[] }
  | { kind: 'state'; on: boolean; text: string };

export interface CellContext {
  t: (key: string, options?: Record<string, unknown>) => string;
  exists: (key: string) => boolean;
}

export const EMPTY_CELL = '—';

const TRUE_TEXT = new Set(['1', 'true', 'on', 'yes', 'enabled']);

export function truthy(value: unknown): boolean {
  if (typeof value === 'string') return TRUE_TEXT.has(value.trim().toLowerCase());
  return Boolean(value);
}

/** Header key: `<entity>.column.<field>` when a shorter heading is declared, else the field label. */
export function columnHeaderKey(entity: AnyEntity, field: string, exists: CellContext['exists']): string {
  const column = `${entity.name}.column.${field}`;
  return exists(column) ? column : `${entity.name}.field.${field}`;
}

function emptyCell(entity: AnyEntity, field: string, ctx: CellContext): CellView {
  const key = `${entity.name}.empty.${field}`;
  return { kind: 'empty', text: ctx.exists(key) ? ctx.t(key) : EMPTY_CELL };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Date and time as `YYYY-MM-DD HH:mm:ss` in the browser's zone: the same in every language
 * and sortable by eye. Numbers below 1e11 are epoch seconds (what the device stores), larger
 * ones milliseconds.
 */
export function formatDateTime(value: unknown): string | null {
  let date: Date;
  if (typeof value === 'number') date = new Date(value < 1e11 ? value * 1000 : value);
  else if (typeof value === 'string' && value.trim() !== '') {
    const numeric = Number(value);
    date = Number.isFinite(numeric) ? new Date(numeric < 1e11 ? numeric * 1000 : numeric) : new Date(value);
  } else return null;
  if (Number.isNaN(date.getTime())) return null;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

function asText(value: unknown): string {
  if (Array.isArray(value)) return value.map(asText).join(', ');
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** An option's label (`<entity>.option.<field>.<value>`) when declared, else the value itself. */
function optionText(entity: AnyEntity, field: string, value: unknown, ctx: CellContext): string {
  const key = `${entity.name}.option.${field}.${String(value)}`;
  return ctx.exists(key) ? ctx.t(key) : asText(value);
}

export function formatCell(entity: AnyEntity, column: ListColumnDef, value: unknown, ctx: CellContext): CellView {
  const format = column.format ?? 'text';
  if (format === 'bool') {
    const on = truthy(value);
    return { kind: 'state', on, text: ctx.t(on ? 'entity.yes' : 'entity.no') };
  }
  if (format === 'enabled') {
    // A field named `disabled` is a negative flag (as in UCI `option disabled 1`).
    const on = column.field === 'disabled' ? !truthy(value) : truthy(value);
    return { kind: 'state', on, text: ctx.t(on ? 'entity.enabled' : 'entity.disabled') };
  }
  if (isBlank(value)) return emptyCell(entity, column.field, ctx);
  switch (format) {
    case 'tags': {
      const items = (Array.isArray(value) ? value.filter((v) => !isBlank(v)).map(asText) : String(value).split(/[\s,]+/).filter(Boolean)).map(
        (item) => optionText(entity, column.field, item, ctx),
      );
      return items.length ? { kind: 'tags', items } : emptyCell(entity, column.field, ctx);
    }
    case 'option':
      return { kind: 'text', text: optionText(entity, column.field, value, ctx) };
    case 'bytes': {
      const n = typeof value === 'number' ? value : Number(value);
      return { kind: 'text', text: Number.isFinite(n) ? formatBytes(n) : asText(value) };
    }
    case 'datetime':
      return { kind: 'text', text: formatDateTime(value) ?? asText(value) };
    default:
      return { kind: 'text', text: asText(value) };
  }
}

/** The id a row is addressed by (test ids, edit links, delete bodies). */
export function rowId(record: Record<string, unknown>): string {
  const id = record.id;
  return id === undefined || id === null ? '' : String(id);
}
