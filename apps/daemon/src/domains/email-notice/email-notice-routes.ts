import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { emailTestBody, fieldErrors, MSG, type LogEntry } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { decodeLogLine } from '../../config/log-book.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { EMAIL_LOG, type EmailNotifier } from './email-notice-service.js';

export const EMAIL_TEST_URL = '/api/sysconf/emailinfo/test';
export const EMAIL_STATUS_URL = '/api/sysconf/emailinfo/status';
/** Newest results shown on the page. */
const RECENT = 20;

/** The newest entries of the e-mail log, newest first (the last segment holds them). */
function recentResults(ctx: AppContext): LogEntry[] {
  const files = ctx.logs.files(EMAIL_LOG);
  const newest = files[files.length - 1];
  if (!newest) return [];
  let text = '';
  try {
    text = readFileSync(newest, 'utf8');
  } catch {
    return [];
  }
  const out: LogEntry[] = [];
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && out.length < RECENT; i--) {
    const entry = lines[i] ? decodeLogLine(lines[i]!) : null;
    if (entry) out.push(entry);
  }
  return out;
}

/**
 * POST sysconf/emailinfo/test sends one message with the saved settings (save first) and
 * answers whether the server took it, or its error; GET sysconf/emailinfo/status: the queue
 * and the latest results.
 */
export function registerEmailRoutes(app: FastifyInstance, ctx: AppContext, notifier: EmailNotifier): void {
  app.post(EMAIL_TEST_URL, { config: { policy: { module: 'emailnotice', effect: 'action' }, doc: { summary: 'Send a test e-mail with the saved SMTP settings' } } }, async (request) => {
    const body = emailTestBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    const result = await notifier.test(body.data.address);
    if (!result) return failure('msg.email.off');
    return success({ delivered: result.delivered, error: result.error });
  });
  app.get(EMAIL_STATUS_URL, { config: { policy: { module: 'emailnotice', effect: 'read' }, doc: { summary: 'Outgoing e-mail notices: waiting, sent, dropped, and the latest results' } } }, async () =>
    success({ ...notifier.status(), results: recentResults(ctx) }),
  );
}
