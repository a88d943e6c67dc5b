import { describe, expect, test } from 'vitest';
import { summarise } from '../src/config/config-diff.js';
import { legacySummary, readSummary, storedSummary } from '../src/config/journal-summary.js';

describe('revision summaries as data', () => {
  test('changes are grouped by entity and action, each row named by its label', () => {
    const groups = summarise([
      { entity: 'staticRoute', id: '1', action: 'add', after: { target: '10.20.0.0/16' } },
      { entity: 'staticRoute', id: '2', action: 'add', after: { target: '10.30.0.0/16' } },
      { entity: 'dhcpStatic', id: '3', action: 'delete', before: { name: 'printer' } },
      { entity: 'qosBase', id: '', action: 'update', before: { enabled: false }, after: { enabled: true } },
    ]);
    expect(groups).toEqual([
      { entity: 'staticRoute', action: 'add', labels: ['10.20.0.0/16', '10.30.0.0/16'] },
      { entity: 'dhcpStatic', action: 'delete', labels: ['printer'] },
      { entity: 'qosBase', action: 'update', labels: [] },
    ]);
  });

  test('past five rows a group only counts them; a long label is cut', () => {
    const rows = Array.from({ length: 8 }, (_, i) => ({ entity: 'dhcpStatic', id: String(i), action: 'add' as const, after: { name: `host${i}` } }));
    expect(summarise(rows)).toEqual([{ entity: 'dhcpStatic', action: 'add', labels: ['host0', 'host1', 'host2', 'host3', 'host4'], more: 3 }]);
    const [long] = summarise([{ entity: 'dhcpStatic', id: '1', action: 'add', after: { name: 'x'.repeat(100) } }]);
    expect(long!.labels[0]).toHaveLength(64);
    expect(long!.labels[0]!.endsWith('…')).toBe(true);
  });

  test('stored as JSON and read back with the menu key of each declared entity', () => {
    const stored = storedSummary({ key: 'changes', groups: [{ entity: 'staticRoute', action: 'add', labels: ['10.20.0.0/16'] }, { entity: 'sampleRule', action: 'delete', labels: [] }] });
    expect(readSummary(stored)).toEqual({
      key: 'changes',
      groups: [
        { entity: 'staticRoute', module: 'staticroute', action: 'add', labels: ['10.20.0.0/16'] },
        { entity: 'sampleRule', action: 'delete', labels: [] },
      ],
    });
    expect(readSummary(storedSummary({ key: 'applyFailed', reason: 'nft: syntax error' }))).toEqual({ key: 'applyFailed', reason: 'nft: syntax error' });
  });

  test('the lines of older releases read as the same data', () => {
    expect(readSummary('staticRoute add: 10.20.0.0/16; dhcpStatic delete: a, b')).toEqual({
      key: 'changes',
      groups: [
        { entity: 'staticRoute', module: 'staticroute', action: 'add', labels: ['10.20.0.0/16'] },
        { entity: 'dhcpStatic', module: 'dhcpstatic', action: 'delete', labels: ['a', 'b'] },
      ],
    });
    expect(readSummary('qosBase update')).toEqual({ key: 'changes', groups: [{ entity: 'qosBase', module: 'smartqos', action: 'update', labels: [] }] });
    expect(legacySummary('adminUser add: auditor (account change: journalled only, not restored by revert)')).toEqual({
      key: 'changes',
      groups: [{ entity: 'adminUser', action: 'add', labels: ['auditor'] }],
      journalOnly: true,
    });
    expect(legacySummary('no change')).toEqual({ key: 'changes', groups: [] });
    expect(legacySummary('configuration at start')).toEqual({ key: 'atStart' });
    expect(legacySummary('configuration changed outside the journal')).toEqual({ key: 'outsideJournal', groups: [] });
    expect(legacySummary('factory reset')).toEqual({ key: 'factoryReset' });
    expect(legacySummary('configuration restored from a backup of 2024-05-01T10:00:00.000Z')).toEqual({ key: 'backupRestored', created: '2024-05-01T10:00:00.000Z' });
    expect(legacySummary('revert to revision 12')).toEqual({ key: 'revertTo', revision: 12 });
    expect(legacySummary('revert of revision 7: refused at confirmation')).toEqual({ key: 'refused', revision: 7 });
    expect(legacySummary('automatic revert: not confirmed')).toEqual({ key: 'notConfirmed' });
    expect(legacySummary('automatic revert: nft: syntax error')).toEqual({ key: 'applyFailed', reason: 'nft: syntax error' });
  });

  test('a line that reads as none of those is kept as its text, and broken JSON too', () => {
    expect(readSummary('something else entirely')).toEqual({ key: 'text', text: 'something else entirely' });
    expect(readSummary('{"key":"nothing"}')).toEqual({ key: 'text', text: '{"key":"nothing"}' });
    expect(readSummary('{not json')).toEqual({ key: 'text', text: '{not json' });
  });
});
