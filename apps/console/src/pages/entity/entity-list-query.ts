import type { AnyEntity, ListQuery } from '@portico/schema';

/**
 * Paging, sorting and search of a list page. The state lives in the address bar so that
 * reload and the browser's back button keep the page the administrator was on.
 */
export interface ListState {
  page: number;
  pageSize: number;
  sort: string | null;
  order: 'asc' | 'desc';
  q: string;
}

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;
/** Longer searches are cut: nothing useful is that long and the server caps it too. */
export const SEARCH_MAX = 100;

export function sortableFields(entity: AnyEntity): string[] {
  return (entity.list?.columns ?? []).filter((c) => c.sortable).map((c) => c.field);
}

export function defaultListState(entity: AnyEntity): ListState {
  const sort = entity.list?.defaultSort ?? null;
  return { page: 1, pageSize: DEFAULT_PAGE_SIZE, sort, order: 'asc', q: '' };
}

function positiveInt(text: string | null): number | null {
  if (text === null || !/^\d{1,6}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 ? n : null;
}

/** Reads the state from search params; anything unknown or malformed falls back to the default. */
export function readListState(entity: AnyEntity, params: URLSearchParams): ListState {
  const base = defaultListState(entity);
  const sortable = sortableFields(entity);
  const size = positiveInt(params.get('pageSize'));
  const sort = params.get('sort');
  const order = params.get('order');
  return {
    page: positiveInt(params.get('page')) ?? base.page,
    pageSize: size !== null && (PAGE_SIZES as readonly number[]).includes(size) ? size : base.pageSize,
    sort: sort !== null && sortable.includes(sort) ? sort : base.sort,
    order: order === 'desc' ? 'desc' : 'asc',
    q: (params.get('q') ?? '').slice(0, SEARCH_MAX),
  };
}

/** Search params for the state; defaults are left out to keep addresses short. */
export function writeListState(entity: AnyEntity, state: ListState): URLSearchParams {
  const base = defaultListState(entity);
  const params = new URLSearchParams();
  if (state.page !== base.page) params.set('page', String(state.page));
  if (state.pageSize !== base.pageSize) params.set('pageSize', String(state.pageSize));
  if (state.sort && state.sort !== base.sort) params.set('sort', state.sort);
  if (state.order !== 'asc') params.set('order', state.order);
  if (state.q) params.set('q', state.q);
  return params;
}

/** Query of `GET /api/<path>` (DESIGN §3: lists take paging, sort and filter parameters). */
export function listQuery(state: ListState): ListQuery {
  const query: ListQuery = { page: state.page, pageSize: state.pageSize, order: state.order };
  if (state.sort) query.sort = state.sort;
  const q = state.q.trim();
  if (q) query.q = q;
  return query;
}

/** Clicking a sorted header flips the order; a new header sorts ascending. Back to page 1. */
export function toggleSort(state: ListState, field: string): ListState {
  if (state.sort === field) return { ...state, page: 1, order: state.order === 'asc' ? 'desc' : 'asc' };
  return { ...state, page: 1, sort: field, order: 'asc' };
}

export function withSearch(state: ListState, q: string): ListState {
  const cut = q.slice(0, SEARCH_MAX);
  return cut === state.q ? state : { ...state, q: cut, page: 1 };
}

export function withPageSize(state: ListState, pageSize: number): ListState {
  return { ...state, pageSize, page: 1 };
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / pageSize));
}

/**
 * After a delete the current page may be past the end: the page to show instead, or null
 * when the page is fine.
 */
export function pageAfterShrink(state: ListState, total: number): number | null {
  const last = pageCount(total, state.pageSize);
  return state.page > last ? last : null;
}

/** Selected ids still present after a reload. */
export function keepSelection(selected: ReadonlySet<string>, ids: readonly string[]): Set<string> {
  const present = new Set(ids);
  return new Set([...selected].filter((id) => present.has(id)));
}

/** Delete bodies of §7: one row by `id`, a selection by `ids`. */
export function deleteBody(target: { id: string } | { ids: readonly string[] }): Record<string, unknown> {
  return 'id' in target ? { action: 'delete', id: target.id } : { action: 'delete', ids: [...target.ids] };
}
