import type { FastifyInstance, FastifyReply } from 'fastify';
import { fieldErrors, LOG_PAGES, logPageSchema, logRequestSchema, MSG, type LogRequest } from '@portico/schema';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import { compileFilter } from './logs-filter.js';
import { downloadStream, readPage } from './logs-query.js';
import type { LogsService } from './logs-service.js';

/** Spec §7: every log through one call. */
export const LOG_URL = '/api/sysconf/log';

const LOG_MODULES = [...new Set(Object.values(LOG_PAGES))];

/**
 * `sysconf/log`: `action` get (a page of entries, newest first), clean, or download (the
 * matching entries as a file, `ext` txt or gz, streamed). GET reads and downloads (a link
 * the browser saves as it arrives); POST does all three. The log's own page decides the
 * permission (`pageBy`): reading is for every account that sees the page, cleaning is a write.
 */
export function registerLogRoutes(app: FastifyInstance, service: LogsService, now: () => number): void {
  const pageBy = { field: 'name', pages: LOG_PAGES };
  const readPolicy = { module: LOG_MODULES, effect: 'read', pageBy } as const;
  // A write unless its action only reads, like every POST (spec §7: action update by default).
  const postPolicy = { module: LOG_MODULES, effect: 'write', actionEffects: { get: 'read', download: 'read', clean: 'write' }, pageBy } as const;

  async function answer(request: LogRequest, reply: FastifyReply) {
    const { name } = request;
    if (request.action === 'clean') {
      await service.clean(name);
      return success({});
    }
    const source = await service.source(name);
    const filter = compileFilter(request);
    if (request.action === 'download') {
      const stamp = new Date(now()).toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
      const gz = request.ext === 'gz';
      return reply
        .header('content-type', gz ? 'application/gzip' : 'text/plain; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}-log-${stamp}.${gz ? 'txt.gz' : 'txt'}"`)
        .send(downloadStream(source, filter, gz));
    }
    const kind = (await source.present()) ? source.kind : 'absent';
    const page = await readPage(source, filter, request.page, request.size);
    return success({ ...page, cleanable: true, source: kind });
  }

  app.get(
    LOG_URL,
    { config: { policy: readPolicy, doc: { summary: 'A log: a page of entries (action get) or the file (action download, ext txt or gz)', querystring: logRequestSchema, response: envelope(logPageSchema) } } },
    async (request, reply) => {
      const query = logRequestSchema.safeParse(request.query ?? {});
      if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
      if (query.data.action === 'clean') return failure(MSG.invalid, { action: 'validation.option' });
      return answer(query.data, reply);
    },
  );
  app.post(
    LOG_URL,
    { config: { policy: postPolicy, doc: { summary: 'A log: get a page, clean it, or download it (ext txt or gz)', body: logRequestSchema, response: envelope(logPageSchema) } } },
    async (request, reply) => {
      const body = logRequestSchema.safeParse(request.body ?? {});
      if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
      return answer(body.data, reply);
    },
  );
}
