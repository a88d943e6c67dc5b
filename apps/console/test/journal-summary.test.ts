import { beforeAll, describe, expect, test } from 'vitest';
import type { RevisionSummary } from '@portico/schema';
import { ENTITIES } from '@portico/schema';
import { LANGUAGES } from '@portico/i18n/load';
import { i18n } from '../src/i18n/console-i18n.js';
import { parseSummary, summaryText } from '../src/pages/system-maintain/journal-summary.js';

const exists = (key: string) => i18n.exists(key);
const at = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function words(summary: RevisionSummary, lang: string): string {
  return summaryText(summary, i18n.getFixedT(lang), exists, at);
}

const route: RevisionSummary = { key: 'changes', groups: [{ entity: 'staticRoute', module: 'staticroute', action: 'add', labels: ['10.20.0.0/16'] }] };

/** Every kind of summary, with every entity the schema declares in one of them. */
const EVERY_KIND: RevisionSummary[] = [
  route,
  { key: 'changes', groups: ENTITIES.map((e) => ({ entity: e.name, module: e.module, action: 'update' as const, labels: ['x'] })) },
  { key: 'changes', groups: [{ entity: 'adminUser', module: 'usermanagement', action: 'delete', labels: ['auditor'] }], journalOnly: true },
  { key: 'changes', groups: [] },
  { key: 'outsideJournal', groups: [{ entity: 'dhcpStatic', module: 'dhcpstatic', action: 'delete', labels: ['a', 'b'] }] },
  { key: 'outsideJournal', groups: [] },
  { key: 'atStart' },
  { key: 'revertTo', revision: 12 },
  { key: 'refused', revision: 7 },
  { key: 'notConfirmed' },
  { key: 'applyFailed', reason: 'nft: syntax error' },
  { key: 'factoryReset' },
  { key: 'backupRestored', created: '2024-05-01T10:00:00.000Z' },
];

beforeAll(async () => {
  await i18n.loadLanguages([...LANGUAGES]);
});

describe('revision summaries in the reader language', () => {
  test('an entity is named by the menu label of its page, its action and rows in each language', () => {
    expect(words(route, 'en-US')).toBe('Static routes: added 10.20.0.0/16');
    expect(words(route, 'zh-CN')).toBe('静态路由：新增 10.20.0.0/16');
    expect(words(route, 'zh-TW')).toBe('靜態路由：新增 10.20.0.0/16');
  });

  test('groups, lists and counted rows use each language punctuation', () => {
    const summary: RevisionSummary = {
      key: 'changes',
      groups: [
        { entity: 'dhcpStatic', module: 'dhcpstatic', action: 'delete', labels: ['a', 'b'], more: 4 },
        { entity: 'qosBase', module: 'smartqos', action: 'update', labels: [] },
      ],
    };
    expect(words(summary, 'en-US')).toBe('DHCP static leases: deleted a, b and 4 more; Smart QoS: changed');
    expect(words(summary, 'zh-CN')).toBe('DHCP 静态分配：删除 a、b 等，另有 4 项；智能流控：修改');
    expect(words(summary, 'zh-TW')).toBe('DHCP 靜態分配：刪除 a、b 等，另有 4 項；智慧流量控制：修改');
  });

  test('reverts and system revisions', () => {
    expect(words({ key: 'notConfirmed' }, 'en-US')).toBe('Reverted automatically: the change was not confirmed in time');
    expect(words({ key: 'notConfirmed' }, 'zh-CN')).toBe('自动回滚：变更未在规定时间内确认');
    expect(words({ key: 'revertTo', revision: 12 }, 'zh-TW')).toBe('還原到版本 12');
    expect(words({ key: 'applyFailed', reason: 'nft: syntax error' }, 'zh-CN')).toBe('自动回滚：变更无法生效（nft: syntax error）');
    expect(words({ key: 'backupRestored', created: '2024-05-01T10:00:00.000Z' }, 'en-US')).toBe('Configuration restored from a backup of 2024-05-01');
  });

  test('no internal entity name or message key in any language, and every kind is worded', () => {
    const internal = ENTITIES.map((e) => e.name);
    for (const lang of LANGUAGES) {
      for (const summary of EVERY_KIND) {
        const text = words(summary, lang);
        expect(text, `${lang} ${summary.key}`).not.toBe('');
        expect(text).not.toMatch(/maintain\.|menu\./);
        for (const name of internal) expect(text, `${lang}: ${text}`).not.toMatch(new RegExp(`\\b${name}\\b`));
      }
    }
  });

  test('an entity without a page reads as other settings, not as its name', () => {
    const summary: RevisionSummary = { key: 'changes', groups: [{ entity: 'wifiSecretThing', action: 'add', labels: ['n'] }] };
    expect(words(summary, 'en-US')).toBe('Other settings: added n');
    expect(words(summary, 'zh-CN')).toBe('其他设置：新增 n');
  });

  test('the wire is read defensively: old plain text kept, unknown or broken data read as nothing', () => {
    expect(parseSummary('sampleRule add: web')).toEqual({ key: 'text', text: 'sampleRule add: web' });
    expect(parseSummary({ key: 'revertTo', revision: 'x' })).toEqual({ key: 'text', text: '' });
    expect(parseSummary({ key: 'whatever' })).toEqual({ key: 'text', text: '' });
    expect(parseSummary(null)).toEqual({ key: 'text', text: '' });
    expect(parseSummary({ key: 'changes', groups: [{ entity: 'vlan', action: 'rename', labels: [] }, { entity: 'vlan', module: 'vlan', action: 'add', labels: ['7', 8], more: 2 }] })).toEqual({
      key: 'changes',
      groups: [{ entity: 'vlan', module: 'vlan', action: 'add', labels: ['7'], more: 2 }],
    });
  });
});
