import type { ApiReply } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';
import {
  parseChanges,
  parseJournalPage,
  parseRevision,
  type JournalChange,
  type JournalPage,
  type JournalRevision,
  type RevisionId,
} from './journal-model.js';

/** The change journal's calls (GET/POST /api/sysconf/journal). Failures are reported by the client. */

export const JOURNAL_PATH = 'sysconf/journal';

export async function fetchJournalPage(page: number, pageSize: number): Promise<JournalPage> {
  return parseJournalPage(await apiGet<unknown>(JOURNAL_PATH, { page, pageSize }));
}

/** One revision with its changes, or null when the daemon refused (already reported). */
export async function fetchRevision(id: RevisionId): Promise<JournalRevision | null> {
  const reply = await apiPost<unknown>(JOURNAL_PATH, { action: 'get', id });
  return reply.success ? parseRevision(reply.data) : null;
}

/** What changed from one revision to another, or null when refused. */
export async function fetchDiff(from: RevisionId, to: RevisionId): Promise<JournalChange[] | null> {
  const reply = await apiPost<{ changes?: unknown }>(JOURNAL_PATH, { action: 'diff', from, to });
  return reply.success ? parseChanges(reply.data?.changes) : null;
}

/**
 * Puts the configuration back as it was at a revision. When the revert can cut access the
 * reply carries `data.confirm`, which the client hands to the confirmation bar.
 */
export function revertToRevision(id: RevisionId): Promise<ApiReply<unknown>> {
  return apiPost<unknown>(JOURNAL_PATH, { action: 'revert', id });
}
