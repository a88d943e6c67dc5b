import { describe, expect, test } from 'vitest';
import {
  diffRange,
  entityTitleKey,
  fieldLabelKey,
  fieldRows,
  formatTime,
  isRedacted,
  optionLabelKey,
  pageCount,
  parseChanges,
  parseJournalPage,
  parseRevision,
  REDACTED_VALUE,
  revertMadeRevision,
  sameValue,
  toggleSelection,
  valueView,
  visibleRows,
  type JournalEntry,
} from '../src/pages/system-maintain/journal-model.js';

const entry = (id: string | number, at: number): JournalEntry => ({ id, at, user: 'admin', sourceIp: '192.168.1.10', summary: { key: 'atStart' } });

describe('reading the journal', () => {
  test('a page of revisions, source_ip becoming sourceIp', () => {
    const page = parseJournalPage({
      items: [
        { id: 12, at: 1_700_000_000_000, user: 'admin', source_ip: '192.168.1.10', summary: { key: 'revertTo', revision: 3 } },
        { id: 'r11', at: 1_699_999_000_000, user: 'ops', source_ip: '10.0.0.2', summary: 'lan changed' },
      ],
      total: 57,
    });
    expect(page.total).toBe(57);
    expect(page.items).toEqual([
      { id: 12, at: 1_700_000_000_000, user: 'admin', sourceIp: '192.168.1.10', summary: { key: 'revertTo', revision: 3 } },
      // An older daemon's plain-text summary is kept as its text.
      { id: 'r11', at: 1_699_999_000_000, user: 'ops', sourceIp: '10.0.0.2', summary: { key: 'text', text: 'lan changed' } },
    ]);
  });

  test('rows without an id are dropped, wrong types read as missing', () => {
    const page = parseJournalPage({ items: [{ at: 1 }, null, { id: 3, at: 'yesterday', user: 5, summary: { x: 1 } }] });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ id: 3, user: '5', sourceIp: '', summary: { key: 'text', text: '' } });
    expect(Number.isNaN(page.items[0]!.at)).toBe(true);
    expect(page.total).toBe(1);
    expect(parseJournalPage(null)).toEqual({ items: [], total: 0 });
  });

  test('a revision with its changes; unknown actions are left out', () => {
    const revision = parseRevision({
      id: 4,
      at: 10,
      user: 'admin',
      source_ip: '::1',
      summary: 's',
      changes: [
        { entity: 'adminUser', id: '2', action: 'update', before: { username: 'a' }, after: { username: 'b' } },
        { entity: 'networkInterface', id: null, action: 'add', before: null, after: { ifname: 'lan2' } },
        { entity: 'vlan', id: '9', action: 'rename', before: null, after: null },
        { action: 'delete' },
      ],
    });
    expect(revision?.changes).toEqual([
      { entity: 'adminUser', id: '2', action: 'update', before: { username: 'a' }, after: { username: 'b' } },
      { entity: 'networkInterface', id: null, action: 'add', before: null, after: { ifname: 'lan2' } },
    ]);
    expect(parseRevision({ changes: [] })).toBeNull();
    expect(parseChanges('nope')).toEqual([]);
  });
});

describe('field rows of a change', () => {
  test('update: before → after per field, changed and unchanged marked', () => {
    const rows = fieldRows({
      before: { id: '2', username: 'bob', privilege: 2, allowd_ips: ['10.0.0.0/8'] },
      after: { id: '2', username: 'bob', privilege: 0, allowd_ips: ['10.0.0.0/8'] },
    });
    expect(rows.map((r) => [r.field, r.status])).toEqual([
      ['id', 'unchanged'],
      ['username', 'unchanged'],
      ['privilege', 'changed'],
      ['allowd_ips', 'unchanged'],
    ]);
    expect(rows[2]).toMatchObject({ before: 2, after: 0, hasBefore: true, hasAfter: true });
  });

  test('keys only one side has are added or removed; new keys come after the old ones', () => {
    const rows = fieldRows({ before: { a: 1, gone: 'x', b: 2 }, after: { fresh: true, b: 3, a: 1 } });
    expect(rows.map((r) => [r.field, r.status, r.hasBefore, r.hasAfter])).toEqual([
      ['a', 'unchanged', true, true],
      ['gone', 'removed', true, false],
      ['b', 'changed', true, true],
      ['fresh', 'added', false, true],
    ]);
  });

  test('an added record has only after values, a deleted one only before values', () => {
    expect(fieldRows({ before: null, after: { ifname: 'lan2', mtu: 1500 } }).map((r) => r.status)).toEqual(['added', 'added']);
    const removed = fieldRows({ before: { ifname: 'lan2' }, after: null });
    expect(removed).toEqual([{ field: 'ifname', before: 'lan2', after: undefined, hasBefore: true, hasAfter: false, status: 'removed' }]);
    expect(fieldRows({ before: null, after: null })).toEqual([]);
  });

  test('secrets redacted on both sides cannot be compared; one redacted side still shows', () => {
    const rows = fieldRows({
      before: { password: REDACTED_VALUE, psk: REDACTED_VALUE },
      after: { password: REDACTED_VALUE, secret: REDACTED_VALUE },
    });
    expect(rows.map((r) => [r.field, r.status])).toEqual([
      ['password', 'secret'],
      ['psk', 'removed'],
      ['secret', 'added'],
    ]);
    expect(isRedacted(rows[0]!.before)).toBe(true);
  });

  test('a null value is a present value: set to null is a change, not a removal', () => {
    expect(fieldRows({ before: { gw: '10.0.0.1' }, after: { gw: null } })[0]).toMatchObject({ status: 'changed', hasAfter: true });
  });

  test('unchanged rows are hidden unless asked for; secrets always show', () => {
    const rows = fieldRows({ before: { a: 1, b: 2, p: REDACTED_VALUE }, after: { a: 1, b: 3, p: REDACTED_VALUE } });
    expect(visibleRows(rows, false).map((r) => r.field)).toEqual(['b', 'p']);
    expect(visibleRows(rows, true).map((r) => r.field)).toEqual(['a', 'b', 'p']);
  });

  test('structural equality ignores key order, not array order', () => {
    expect(sameValue({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue(null, {})).toBe(false);
    expect(sameValue('1', 1)).toBe(false);
  });
});

describe('values as text', () => {
  test('plain values, lists, objects; nothing is markup', () => {
    expect(valueView('lan', true)).toEqual({ kind: 'text', text: 'lan' });
    expect(valueView(1500, true)).toEqual({ kind: 'text', text: '1500' });
    expect(valueView(['a', 'b'], true)).toEqual({ kind: 'text', text: 'a, b' });
    expect(valueView({ ip: '10.0.0.1' }, true)).toEqual({ kind: 'text', text: '{"ip":"10.0.0.1"}' });
    expect(valueView('<img src=x onerror=alert(1)>', true)).toEqual({ kind: 'text', text: '<img src=x onerror=alert(1)>' });
  });

  test('marks: absent, empty, redacted, booleans', () => {
    expect(valueView(undefined, false)).toEqual({ kind: 'absent' });
    expect(valueView('', true)).toEqual({ kind: 'empty' });
    expect(valueView(null, true)).toEqual({ kind: 'empty' });
    expect(valueView([], true)).toEqual({ kind: 'empty' });
    expect(valueView(REDACTED_VALUE, true)).toEqual({ kind: 'redacted' });
    expect(valueView(false, true)).toEqual({ kind: 'bool', value: false });
  });
});

describe('labels', () => {
  const keys = new Set(['adminUser.title', 'adminUser.field.username', 'adminUser.option.privilege.0']);
  const exists = (key: string) => keys.has(key);

  test('entity title and field label when declared, else the raw name', () => {
    expect(entityTitleKey('adminUser', exists)).toBe('adminUser.title');
    expect(entityTitleKey('mystery', exists)).toBeNull();
    expect(fieldLabelKey('adminUser', 'username', exists)).toBe('adminUser.field.username');
    expect(fieldLabelKey('adminUser', 'hash', exists)).toBeNull();
  });

  test('option labels for declared option values only', () => {
    expect(optionLabelKey('adminUser', 'privilege', 0, exists)).toBe('adminUser.option.privilege.0');
    expect(optionLabelKey('adminUser', 'privilege', 5, exists)).toBeNull();
    expect(optionLabelKey('adminUser', 'privilege', { x: 1 }, exists)).toBeNull();
  });
});

describe('selection and diff range', () => {
  test('older revision first whatever the order of selection', () => {
    const newer = entry(9, 2000);
    const older = entry(4, 1000);
    expect(diffRange([newer, older])).toEqual({ from: older, to: newer });
    expect(diffRange([older, newer])).toEqual({ from: older, to: newer });
  });

  test('same or unknown times fall back to the id order', () => {
    expect(diffRange([entry(10, 5), entry(9, 5)])).toMatchObject({ from: { id: 9 }, to: { id: 10 } });
    expect(diffRange([entry('b', Number.NaN), entry('a', 1)])).toMatchObject({ from: { id: 'a' }, to: { id: 'b' } });
  });

  test('a diff needs exactly two revisions', () => {
    expect(diffRange([])).toBeNull();
    expect(diffRange([entry(1, 1)])).toBeNull();
  });

  test('at most two are selected: a third drops the earliest selection', () => {
    let selected = toggleSelection([], entry(1, 1), true);
    selected = toggleSelection(selected, entry(2, 2), true);
    selected = toggleSelection(selected, entry(3, 3), true);
    expect(selected.map((e) => e.id)).toEqual([2, 3]);
    selected = toggleSelection(selected, entry('2', 2), false);
    expect(selected.map((e) => e.id)).toEqual([3]);
    expect(toggleSelection(selected, entry(3, 3), true).map((e) => e.id)).toEqual([3]);
  });
});

describe('formatting', () => {
  test('time in the console language; a missing time is a dash', () => {
    const at = Date.UTC(2024, 0, 15, 8, 30, 5);
    expect(formatTime(at, 'en-US')).toMatch(/2024/);
    expect(formatTime(at, 'zh-CN')).toMatch(/2024年/);
    expect(formatTime(Number.NaN, 'en-US')).toBe('—');
  });

  test('a revert made a revision unless the device says none was needed', () => {
    expect(revertMadeRevision({ revision: 14 })).toBe(true);
    expect(revertMadeRevision({ revision: 14, confirm: { token: 't' } })).toBe(true);
    expect(revertMadeRevision({ revision: null })).toBe(false);
    expect(revertMadeRevision(undefined)).toBe(false);
  });

  test('page count is at least one', () => {
    expect(pageCount(0, 20)).toBe(1);
    expect(pageCount(41, 20)).toBe(3);
  });
});
