import { z } from 'zod';

/**
 * The summary of a configuration revision as data: a key and its parameters, which the console
 * words in the reader's language. Entities are named by their declaration name; `module` (the
 * menu key of the entity's page, whose label the console shows) is added when the daemon reads
 * the journal, so a renamed menu never leaves stale text in old revisions.
 */

export const SUMMARY_ACTIONS = ['add', 'update', 'delete'] as const;
export type SummaryAction = (typeof SUMMARY_ACTIONS)[number];

/** Labels kept per group; the rest are only counted. */
export const SUMMARY_LABEL_LIMIT = 5;

/** The rows of one entity changed one way: `labels` name them (user data, shown as text). */
export interface SummaryGroup {
  entity: string;
  /** Menu key of the entity's page, when the entity is declared. */
  module?: string;
  action: SummaryAction;
  labels: string[];
  /** Rows beyond the labels kept. */
  more?: number;
}

export type RevisionSummary =
  /** Rows written through the console or the API; no group: nothing changed. */
  | { key: 'changes'; groups: SummaryGroup[]; journalOnly?: boolean }
  /** The configuration found at the first start. */
  | { key: 'atStart' }
  /** Rows that differed from the journal's last snapshot (changed outside the daemon). */
  | { key: 'outsideJournal'; groups: SummaryGroup[] }
  | { key: 'revertTo'; revision: number }
  /** The holder of a confirmation token refused the change of `revision`. */
  | { key: 'refused'; revision: number }
  /** A change that can cut access was not confirmed in time. */
  | { key: 'notConfirmed' }
  /** The apply failed; `reason` is the first line of the error (system text, as reported). */
  | { key: 'applyFailed'; reason: string }
  | { key: 'factoryReset' }
  /** `created`: when the backup was made (ISO 8601, from its manifest). */
  | { key: 'backupRestored'; created: string }
  /** A summary of an older release that reads as none of the above: its text, as stored. */
  | { key: 'text'; text: string };

export type RevisionSummaryKey = RevisionSummary['key'];

const summaryGroup = z.object({
  entity: z.string(),
  module: z.string().optional(),
  action: z.enum(SUMMARY_ACTIONS),
  labels: z.array(z.string()),
  more: z.number().int().optional(),
});

/** The wire form of a summary (journal list, revision, pending confirmation). */
export const revisionSummarySchema = z.discriminatedUnion('key', [
  z.object({ key: z.literal('changes'), groups: z.array(summaryGroup), journalOnly: z.boolean().optional() }),
  z.object({ key: z.literal('atStart') }),
  z.object({ key: z.literal('outsideJournal'), groups: z.array(summaryGroup) }),
  z.object({ key: z.literal('revertTo'), revision: z.number().int() }),
  z.object({ key: z.literal('refused'), revision: z.number().int() }),
  z.object({ key: z.literal('notConfirmed') }),
  z.object({ key: z.literal('applyFailed'), reason: z.string() }),
  z.object({ key: z.literal('factoryReset') }),
  z.object({ key: z.literal('backupRestored'), created: z.string() }),
  z.object({ key: z.literal('text'), text: z.string() }),
]);
