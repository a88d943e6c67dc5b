import { ENTITIES, revisionSummarySchema, type RevisionSummary, type SummaryAction, type SummaryGroup } from '@portico/schema';

/**
 * How a revision's summary is stored (JSON in `revisions.summary`) and read back. Revisions of
 * older releases hold an English line instead (`staticRoute add: office`, `automatic revert:
 * not confirmed`); the reader turns those into the same data, so every revision is worded in
 * the reader's language, and keeps a line it cannot read as `text`.
 */

export function storedSummary(summary: RevisionSummary): string {
  return JSON.stringify(summary);
}

const MODULES = new Map(ENTITIES.map((e) => [e.name, e.module]));

/** The summary with the menu key of each group's entity, for the console's label. */
function withModules(summary: RevisionSummary): RevisionSummary {
  if (summary.key !== 'changes' && summary.key !== 'outsideJournal') return summary;
  const groups = summary.groups.map((g): SummaryGroup => {
    const module = MODULES.get(g.entity);
    return module ? { ...g, module } : g;
  });
  return { ...summary, groups };
}

export function readSummary(stored: string): RevisionSummary {
  if (stored.startsWith('{')) {
    try {
      const parsed = revisionSummarySchema.safeParse(JSON.parse(stored));
      if (parsed.success) return withModules(parsed.data as RevisionSummary);
    } catch {
      // Not JSON after all: read as a line of an older release.
    }
  }
  return withModules(legacySummary(stored));
}

/** Suffix older releases put on account changes (journalled only). */
const LEGACY_JOURNAL_ONLY = ' (account change: journalled only, not restored by revert)';
const LEGACY_GROUP = /^([a-z][A-Za-z0-9]*) (add|update|delete)(?:: (.*))?$/s;

/** Reads a summary line of an older release. */
export function legacySummary(line: string): RevisionSummary {
  if (line === 'no change') return { key: 'changes', groups: [] };
  if (line === 'configuration at start') return { key: 'atStart' };
  if (line === 'configuration changed outside the journal') return { key: 'outsideJournal', groups: [] };
  if (line === 'factory reset') return { key: 'factoryReset' };
  if (line === 'automatic revert: not confirmed') return { key: 'notConfirmed' };
  let match = /^configuration restored from a backup of (.+)$/s.exec(line);
  if (match) return { key: 'backupRestored', created: match[1]! };
  match = /^revert to revision (\d+)$/.exec(line);
  if (match) return { key: 'revertTo', revision: Number(match[1]) };
  match = /^revert of revision (\d+): refused at confirmation$/.exec(line);
  if (match) return { key: 'refused', revision: Number(match[1]) };
  match = /^automatic revert: (.*)$/s.exec(line);
  if (match) return { key: 'applyFailed', reason: match[1]! };
  const journalOnly = line.endsWith(LEGACY_JOURNAL_ONLY);
  const groups = legacyGroups(journalOnly ? line.slice(0, -LEGACY_JOURNAL_ONLY.length) : line);
  if (!groups) return { key: 'text', text: line };
  return journalOnly ? { key: 'changes', groups, journalOnly } : { key: 'changes', groups };
}

/** `staticRoute update: office; dhcpStatic delete: a, b`, or null when the line is not of that form. */
function legacyGroups(line: string): SummaryGroup[] | null {
  const groups: SummaryGroup[] = [];
  for (const part of line.split('; ')) {
    const match = LEGACY_GROUP.exec(part);
    if (!match) return null;
    groups.push({ entity: match[1]!, action: match[2] as SummaryAction, labels: match[3] ? match[3].split(', ') : [] });
  }
  return groups;
}
