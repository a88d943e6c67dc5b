import { z } from 'zod';
import type { AnyEntity } from '@portico/schema';
import type { EntityRow } from './entity-store.js';

/** Largest page a list read returns. */
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 20;

/**
 * Query of a list read: paging, sort, a free-text `q` over the list columns, and an exact
 * filter per list column (`?privilege=1`). Without page and pageSize every row is returned.
 */
export function listQuerySchema(entity: AnyEntity) {
  const columns = entity.list?.columns.map((c) => c.field) ?? [];
  const filters: Record<string, z.ZodOptional<z.ZodString>> = {};
  for (const field of columns) filters[field] = z.string().max(200).optional();
  return z.object({
    ...filters,
    page: z.coerce.number({ error: 'validation.integer' }).int({ error: 'validation.integer' }).min(1, { error: 'validation.tooSmall' }).optional(),
    pageSize: z.coerce
      .number({ error: 'validation.integer' })
      .int({ error: 'validation.integer' })
      .min(1, { error: 'validation.tooSmall' })
      .max(MAX_PAGE_SIZE, { error: 'validation.tooBig' })
      .optional(),
    sort: z.string().max(64).optional(),
    order: z.enum(['asc', 'desc'], { error: 'validation.option' }).optional(),
    q: z.string().max(200).optional(),
  });
}

export type ListQuery = { page?: number; pageSize?: number; sort?: string; order?: 'asc' | 'desc'; q?: string } & Record<
  string,
  unknown
>;

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(' ');
  return String(value);
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return text(a).localeCompare(text(b), 'en', { numeric: true, sensitivity: 'base' });
}

/** Columns a list may be sorted and filtered by: the declared list columns plus id. */
export function listFields(entity: AnyEntity): string[] {
  return ['id', ...(entity.list?.columns.map((c) => c.field) ?? [])];
}

/** Filters, sorts and pages rows in memory; bounded by the entity's maxRows. */
export function pageRows(entity: AnyEntity, rows: EntityRow[], query: ListQuery): { items: EntityRow[]; total: number } | { error: Record<string, string> } {
  const fields = listFields(entity);
  const sort = query.sort ?? entity.list?.defaultSort;
  if (query.sort !== undefined && !fields.includes(query.sort)) return { error: { sort: 'validation.option' } };
  let out = rows;
  for (const field of entity.list?.columns.map((c) => c.field) ?? []) {
    const wanted = query[field];
    if (typeof wanted === 'string' && wanted !== '') {
      out = out.filter((row) => {
        const value = row[field];
        return Array.isArray(value) ? value.map(text).includes(wanted) : text(value) === wanted;
      });
    }
  }
  const needle = query.q?.trim().toLowerCase();
  if (needle) out = out.filter((row) => fields.some((f) => text(row[f]).toLowerCase().includes(needle)));
  if (sort) {
    const sign = query.order === 'desc' ? -1 : 1;
    out = [...out].sort((a, b) => sign * compare(a[sort], b[sort]));
  }
  const total = out.length;
  if (query.page === undefined && query.pageSize === undefined) return { items: out, total };
  const size = query.pageSize ?? DEFAULT_PAGE_SIZE;
  const start = ((query.page ?? 1) - 1) * size;
  return { items: out.slice(start, start + size), total };
}
