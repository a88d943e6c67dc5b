import { describe, expect, test } from 'vitest';
import { adminUser, type AnyEntity, type ListColumnDef } from '@portico/schema';
import { flatten, resources } from '@portico/i18n';
import { columnHeaderKey, formatCell, formatDateTime, rowId, truthy, type CellContext } from '../src/pages/entity/entity-columns.js';

const admin = adminUser as unknown as AnyEntity;
const english = flatten(resources['en-US']);

/** A translator over the real English resources: unknown keys come back as the key. */
const ctx: CellContext = {
  t: (key, options) => {
    let text = english[key] ?? key;
    for (const [name, value] of Object.entries(options ?? {})) text = text.replace(`{{${name}}}`, String(value));
    return text;
  },
  exists: (key) => key in english,
};

const column = (field: string, format?: ListColumnDef['format']): ListColumnDef => (format ? { field, format } : { field });

describe('list cells of the admin user entity', () => {
  test('option labels come from <entity>.option.<field>.<value>', () => {
    expect(formatCell(admin, column('privilege', 'option'), 0, ctx)).toEqual({ kind: 'text', text: 'System administrator' });
    expect(formatCell(admin, column('privilege', 'option'), 2, ctx)).toEqual({ kind: 'text', text: 'Guest (visitor)' });
    // A value the declaration does not know is shown as it is.
    expect(formatCell(admin, column('privilege', 'option'), 9, ctx)).toEqual({ kind: 'text', text: '9' });
  });

  test('the negative `disabled` flag reads as the enabled state', () => {
    expect(formatCell(admin, column('disabled', 'enabled'), false, ctx)).toEqual({ kind: 'state', on: true, text: 'Enabled' });
    expect(formatCell(admin, column('disabled', 'enabled'), true, ctx)).toEqual({ kind: 'state', on: false, text: 'Disabled' });
    expect(formatCell(admin, column('enabled', 'enabled'), '1', ctx)).toEqual({ kind: 'state', on: true, text: 'Enabled' });
  });

  test('tags: arrays, space-separated text, and the declared empty text', () => {
    expect(formatCell(admin, column('allowd_ips', 'tags'), ['10.0.0.1', '10.0.1.0/24'], ctx)).toEqual({
      kind: 'tags',
      items: ['10.0.0.1', '10.0.1.0/24'],
    });
    expect(formatCell(admin, column('allowd_ips', 'tags'), '10.0.0.1 10.0.0.2', ctx)).toEqual({ kind: 'tags', items: ['10.0.0.1', '10.0.0.2'] });
    expect(formatCell(admin, column('allowd_ips', 'tags'), [], ctx)).toEqual({ kind: 'empty', text: 'Unrestricted' });
  });

  test('text keeps hostile markup as plain text', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    expect(formatCell(admin, column('username'), hostile, ctx)).toEqual({ kind: 'text', text: hostile });
    expect(formatCell(admin, column('username'), undefined, ctx)).toEqual({ kind: 'empty', text: '—' });
  });

  test('headers use a declared short column name, else the field label', () => {
    expect(columnHeaderKey(admin, 'disabled', ctx.exists)).toBe('adminUser.column.disabled');
    expect(columnHeaderKey(admin, 'username', ctx.exists)).toBe('adminUser.field.username');
  });
});

describe('generic formats', () => {
  test('bool is yes/no', () => {
    expect(formatCell(admin, column('x', 'bool'), true, ctx)).toEqual({ kind: 'state', on: true, text: 'Yes' });
    expect(formatCell(admin, column('x', 'bool'), 'off', ctx)).toEqual({ kind: 'state', on: false, text: 'No' });
  });

  test('bytes use the shared formatter', () => {
    expect(formatCell(admin, column('x', 'bytes'), 1536, ctx)).toEqual({ kind: 'text', text: '1.5 KB' });
    expect(formatCell(admin, column('x', 'bytes'), '1048576', ctx)).toEqual({ kind: 'text', text: '1.0 MB' });
    expect(formatCell(admin, column('x', 'bytes'), 'n/a', ctx)).toEqual({ kind: 'text', text: 'n/a' });
  });

  test('datetime from epoch seconds, milliseconds and ISO text', () => {
    const local = new Date(2025, 2, 1, 21, 4, 5);
    expect(formatDateTime(local.getTime() / 1000)).toBe('2025-03-01 21:04:05');
    expect(formatDateTime(local.getTime())).toBe('2025-03-01 21:04:05');
    expect(formatDateTime(local.toISOString())).toBe('2025-03-01 21:04:05');
    expect(formatDateTime(String(local.getTime() / 1000))).toBe('2025-03-01 21:04:05');
    expect(formatDateTime('yesterday')).toBeNull();
    expect(formatCell(admin, column('x', 'datetime'), 'yesterday', ctx)).toEqual({ kind: 'text', text: 'yesterday' });
  });

  test('truthy reads UCI flags', () => {
    expect(['1', 'true', 'on', 'yes', 'enabled', true, 1].map(truthy)).toEqual(Array(7).fill(true));
    expect(['0', 'false', 'off', '', false, 0, null].map(truthy)).toEqual(Array(7).fill(false));
  });

  test('row ids are text', () => {
    expect(rowId({ id: 12 })).toBe('12');
    expect(rowId({})).toBe('');
  });
});
