import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { fieldErrors, MSG, revisionSummarySchema } from '@portico/schema';
import type { AppContext } from '../app-context.js';
import { envelope, failure, success } from '../plugins/api-envelope.js';
import type { RoutePolicy } from '../plugins/route-policy.js';
import { diffSnapshots, toJournalChange } from './config-diff.js';
import { actorOf, withConfirm } from './config-write.js';

export const JOURNAL_URL = '/api/sysconf/journal';

const MAX_PAGE_SIZE = 200;
const DEFAULT_PAGE_SIZE = 20;

const intField = z.coerce.number({ error: 'validation.integer' }).int({ error: 'validation.integer' });
const revisionId = intField.min(1, { error: 'validation.tooSmall' });

const listQuery = z.object({
  page: intField.min(1, { error: 'validation.tooSmall' }).default(1),
  pageSize: intField.min(1, { error: 'validation.tooSmall' }).max(MAX_PAGE_SIZE, { error: 'validation.tooBig' }).default(DEFAULT_PAGE_SIZE),
});

const actionBody = z.discriminatedUnion(
  'action',
  [
    z.object({ action: z.literal('get'), id: revisionId }),
    z.object({ action: z.literal('diff'), from: revisionId, to: revisionId }),
    z.object({ action: z.literal('revert'), id: revisionId }),
  ],
  { error: 'validation.option' },
);

const head = z.object({ id: z.number().int(), at: z.number().int(), user: z.string(), source_ip: z.string(), summary: revisionSummarySchema });
const change = z.object({
  entity: z.string(),
  id: z.string(),
  action: z.enum(['add', 'update', 'delete']),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  fields: z.array(z.string()),
});
const ticket = z.object({ token: z.string(), deadline: z.number().int(), seconds: z.number().int() });

/**
 * The change journal (spec "system maintenance"): list revisions, show one with its diff,
 * diff two, revert to one. Reverting is a configuration write like any other.
 */
export function registerJournalRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { config } = ctx;
  const read: RoutePolicy = { module: 'systemmaintain', effect: 'read' };
  // get and diff only read; revert writes (a visitor is refused).
  const write: RoutePolicy = { module: 'systemmaintain', effect: 'write', actionEffects: { get: 'read', diff: 'read' } };

  app.get(
    JOURNAL_URL,
    {
      config: { policy: read, doc: { summary: 'Revisions of the configuration, newest first' } },
      schema: { querystring: listQuery, response: { 200: envelope(z.object({ items: z.array(head), total: z.number().int() })) } },
    },
    async (request) => {
      const { page, pageSize } = request.query as z.infer<typeof listQuery>;
      return success(config.journal.list((page - 1) * pageSize, pageSize));
    },
  );

  app.post(
    JOURNAL_URL,
    {
      config: {
        policy: write,
        doc: {
          summary: 'get: one revision with its changes; diff: changes between two revisions; revert: restore a revision',
          body: actionBody,
          response: envelope(
            z.union([
              head.extend({ changes: z.array(change) }),
              z.object({ from: z.number().int(), to: z.number().int(), changes: z.array(change) }),
              z.object({ revision: z.number().int().nullable(), confirm: ticket.optional() }),
            ]),
          ),
        },
      },
    },
    async (request) => {
      const parsed = actionBody.safeParse(request.body ?? {});
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      const body = parsed.data;
      if (body.action === 'get') {
        const revision = config.journal.get(body.id);
        return revision ? success(revision) : failure(MSG.notFound);
      }
      if (body.action === 'diff') {
        const from = config.journal.snapshot(body.from);
        const to = config.journal.snapshot(body.to);
        if (!from || !to) return failure(MSG.notFound);
        const changes = diffSnapshots(from, to).map((c) => toJournalChange(config.lookup, c));
        return success({ from: body.from, to: body.to, changes });
      }
      const outcome = await config.revertTo(body.id, actorOf(request));
      if (!outcome.ok) return outcome.reply;
      return success(withConfirm({ revision: outcome.result.revision }, outcome));
    },
  );
}
