import { describe, expect, test } from 'vitest';
import { adminUser, type AnyEntity } from '@portico/schema';
import {
  DEFAULT_PAGE_SIZE,
  defaultListState,
  deleteBody,
  keepSelection,
  listQuery,
  pageAfterShrink,
  pageCount,
  readListState,
  sortableFields,
  toggleSort,
  withPageSize,
  withSearch,
  writeListState,
} from '../src/pages/entity/entity-list-query.js';
import { listRouteOf } from '../src/pages/entity/entity-routes.js';

const admin = adminUser as unknown as AnyEntity;

describe('list state in the address bar', () => {
  test('defaults: first page, default size, the declared default sort', () => {
    expect(defaultListState(admin)).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE, sort: 'username', order: 'asc', q: '' });
    expect(sortableFields(admin)).toEqual(['username', 'privilege']);
  });

  test('reads valid params and ignores malformed or unknown ones', () => {
    const state = readListState(admin, new URLSearchParams('page=3&pageSize=50&sort=privilege&order=desc&q=ops'));
    expect(state).toEqual({ page: 3, pageSize: 50, sort: 'privilege', order: 'desc', q: 'ops' });
    const junk = readListState(admin, new URLSearchParams('page=-2&pageSize=7&sort=password&order=sideways'));
    expect(junk).toEqual(defaultListState(admin));
    expect(readListState(admin, new URLSearchParams('page=1e9')).page).toBe(1);
    expect(readListState(admin, new URLSearchParams(`q=${'x'.repeat(500)}`)).q).toHaveLength(100);
  });

  test('writes only what differs from the default and reads back the same state', () => {
    expect(writeListState(admin, defaultListState(admin)).toString()).toBe('');
    const state = { page: 2, pageSize: 10, sort: 'privilege', order: 'desc' as const, q: 'a b' };
    const params = writeListState(admin, state);
    expect(params.toString()).toBe('page=2&pageSize=10&sort=privilege&order=desc&q=a+b');
    expect(readListState(admin, params)).toEqual(state);
  });

  test('the API query carries paging, sort and a trimmed search', () => {
    expect(listQuery({ page: 2, pageSize: 20, sort: 'username', order: 'asc', q: '  ops ' })).toEqual({
      page: 2,
      pageSize: 20,
      sort: 'username',
      order: 'asc',
      q: 'ops',
    });
    expect(listQuery({ page: 1, pageSize: 20, sort: null, order: 'desc', q: ' ' })).toEqual({ page: 1, pageSize: 20, order: 'desc' });
  });
});

describe('list interactions', () => {
  const base = { ...defaultListState(admin), page: 4 };

  test('sorting flips on the same column, starts ascending on a new one, and goes to page 1', () => {
    expect(toggleSort(base, 'username')).toMatchObject({ sort: 'username', order: 'desc', page: 1 });
    expect(toggleSort({ ...base, order: 'desc' }, 'username')).toMatchObject({ order: 'asc' });
    expect(toggleSort({ ...base, order: 'desc' }, 'privilege')).toMatchObject({ sort: 'privilege', order: 'asc', page: 1 });
  });

  test('a new search or page size goes back to page 1; the same search changes nothing', () => {
    expect(withSearch(base, 'ops')).toMatchObject({ q: 'ops', page: 1 });
    expect(withSearch(base, '')).toBe(base);
    expect(withPageSize(base, 50)).toMatchObject({ pageSize: 50, page: 1 });
  });

  test('page count and the page to show after rows disappear', () => {
    expect(pageCount(0, 20)).toBe(1);
    expect(pageCount(41, 20)).toBe(3);
    expect(pageAfterShrink({ ...base, page: 3 }, 40)).toBe(2);
    expect(pageAfterShrink({ ...base, page: 2 }, 40)).toBeNull();
    expect(pageAfterShrink({ ...base, page: 2 }, 0)).toBe(1);
  });

  test('selection keeps only rows still listed', () => {
    expect([...keepSelection(new Set(['1', '2', '3']), ['2', '3', '4'])]).toEqual(['2', '3']);
  });

  test('delete bodies: one row by id, a selection by ids', () => {
    expect(deleteBody({ id: '5' })).toEqual({ action: 'delete', id: '5' });
    expect(deleteBody({ ids: ['5', '6'] })).toEqual({ action: 'delete', ids: ['5', '6'] });
  });
});

describe('entity page addresses', () => {
  test('the list route is the declared one', () => {
    expect(listRouteOf(admin, '/system/usermanagement/edit')).toBe('/system/usermanagement');
  });

  test('without a declared route the list is the current address minus its add/edit step', () => {
    const routeless = { ...admin, route: undefined } as AnyEntity;
    expect(listRouteOf(routeless, '/netconf/staticroute/add')).toBe('/netconf/staticroute');
    expect(listRouteOf(routeless, '/netconf/staticroute/edit/')).toBe('/netconf/staticroute');
    expect(listRouteOf(routeless, '/netconf/staticroute')).toBe('/netconf/staticroute');
    expect(listRouteOf(routeless, '/netconf/vpnclient/pptpedit')).toBe('/netconf/vpnclient');
  });
});
