import type { TFunction } from 'i18next';
import type { RevisionSummary, SummaryAction, SummaryGroup } from '@portico/schema';

/**
 * A revision's summary in the reader's language. The daemon sends it as data (a key and its
 * parameters); entities are named by the menu label of their page, row labels and the revert
 * reason are shown as they are (text, never markup). The wire is read defensively: a summary
 * of an older daemon (plain text) is shown as its text, anything unreadable as nothing.
 */

/** What a change does to a row: the same three in summaries and in changes. */
export const CHANGE_ACTIONS: readonly string[] = ['add', 'update', 'delete'] satisfies SummaryAction[];

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

const isText = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

function parseGroup(value: unknown): SummaryGroup | null {
  const row = record(value);
  if (!row || !isText(row.entity) || !CHANGE_ACTIONS.includes(row.action as string)) return null;
  return {
    entity: row.entity,
    ...(isText(row.module) ? { module: row.module } : {}),
    action: row.action as SummaryAction,
    labels: Array.isArray(row.labels) ? row.labels.filter(isText) : [],
    ...(isCount(row.more) && row.more > 0 ? { more: row.more } : {}),
  };
}

function parseGroups(value: unknown): SummaryGroup[] {
  return Array.isArray(value) ? value.map(parseGroup).filter((g): g is SummaryGroup => g !== null) : [];
}

export function parseSummary(value: unknown): RevisionSummary {
  if (isText(value)) return { key: 'text', text: value };
  const row = record(value);
  switch (row?.key) {
    case 'changes':
      return { key: 'changes', groups: parseGroups(row.groups), ...(row.journalOnly === true ? { journalOnly: true } : {}) };
    case 'outsideJournal':
      return { key: 'outsideJournal', groups: parseGroups(row.groups) };
    case 'atStart':
    case 'notConfirmed':
    case 'factoryReset':
      return { key: row.key };
    case 'revertTo':
    case 'refused':
      if (isCount(row.revision)) return { key: row.key, revision: row.revision };
      break;
    case 'applyFailed':
      if (isText(row.reason)) return { key: 'applyFailed', reason: row.reason };
      break;
    case 'backupRestored':
      if (isText(row.created)) return { key: 'backupRestored', created: row.created };
      break;
  }
  return { key: 'text', text: '' };
}

type Exists = (key: string) => boolean;

/** The label the menu shows for the entity's page; entities without a page read as "other settings". */
export function entityLabelKey(group: Pick<SummaryGroup, 'module'>, exists: Exists): string {
  const key = group.module ? `menu.${group.module}` : '';
  return key && exists(key) ? key : 'maintain.summary.otherEntity';
}

function groupText(group: SummaryGroup, t: TFunction, exists: Exists): string {
  const entity = t(entityLabelKey(group, exists));
  const action = t(`maintain.summary.action.${group.action}`);
  if (group.labels.length === 0) return t('maintain.summary.groupOnly', { entity, action });
  const listed = group.labels.join(t('maintain.summary.labelSeparator'));
  const labels = group.more ? t('maintain.summary.labelsMore', { labels: listed, count: group.more }) : listed;
  return t('maintain.summary.group', { entity, action, labels });
}

function groupsText(groups: readonly SummaryGroup[], t: TFunction, exists: Exists): string {
  return groups.map((g) => groupText(g, t, exists)).join(t('maintain.summary.groupSeparator'));
}

/** `formatAt` words a time (ms since the epoch) in the reader's language. */
export function summaryText(summary: RevisionSummary, t: TFunction, exists: Exists, formatAt: (at: number) => string): string {
  switch (summary.key) {
    case 'changes': {
      if (summary.groups.length === 0) return t('maintain.summary.noChange');
      const changes = groupsText(summary.groups, t, exists);
      return summary.journalOnly ? t('maintain.summary.journalOnly', { changes }) : changes;
    }
    case 'outsideJournal':
      return summary.groups.length === 0
        ? t('maintain.summary.outsideJournal')
        : t('maintain.summary.outsideJournalChanges', { changes: groupsText(summary.groups, t, exists) });
    case 'revertTo':
    case 'refused':
      return t(`maintain.summary.${summary.key}`, { revision: summary.revision });
    case 'applyFailed':
      return t('maintain.summary.applyFailed', { reason: summary.reason });
    case 'backupRestored': {
      const at = Date.parse(summary.created);
      return t('maintain.summary.backupRestored', { created: Number.isNaN(at) ? summary.created : formatAt(at) });
    }
    case 'text':
      // An older daemon's line, shown as it was written.
      return summary.text;
    default:
      return t(`maintain.summary.${summary.key}`);
  }
}
