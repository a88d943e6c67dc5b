import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { auditQuerySchema, fieldErrors, MSG, type AuditQueryInput } from '@portico/schema';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import type { DiskLister } from './audit-disks.js';
import type { AuditRecorders } from './audit-recorder.js';
import { auditSettingsOf } from './audit-ruleset.js';
import type { AuditQuery, FlowRecord, UrlRecord } from './audit-store.js';

const MODULE = 'behavioraudit';
const DAY_MS = 86_400_000;
/** Rows one export carries at most; a narrower search gives the rest. */
export const EXPORT_MAX = 500_000;

export const AUDIT_MSG = {
  diskMissing: 'behaviourAudit.msg.diskMissing',
  diskTooSmall: 'behaviourAudit.msg.diskTooSmall',
  cleaned: 'behaviourAudit.msg.cleaned',
  unsupported: 'behaviourAudit.msg.unsupported',
} as const;

/** A spreadsheet must not read a cell as a formula; quotes and separators stay inside the cell. */
export function csvCell(value: string | number): string {
  const text = String(value);
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvLine(cells: Array<string | number>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function windowOf(input: AuditQueryInput, now: number): Omit<AuditQuery, 'offset' | 'limit'> {
  const to = input.to ?? now;
  const from = input.from ?? to - DAY_MS;
  return { client: input.client === '' ? undefined : input.client, from, to, text: input.text };
}

function stamp(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The behaviour audit's own routes beside its settings (the generic `sysconf/audit`):
 * - `sysconf/disk`: the disks records could be kept on, with the retention each gives;
 * - `sysconf/auditdisk`: the records' disk now (size, use, retention, counts); action `clean`
 *   removes every record;
 * - `sysconf/audit/urls`, `sysconf/audit/flows`: search by client, time and text, newest first;
 * - `sysconf/audit/urlexport`, `sysconf/audit/ipexport` (POST, action `download`): the same
 *   search as a CSV download.
 */
export function registerAuditRoutes(app: FastifyInstance, ctx: AppContext, disks: DiskLister, recorders: AuditRecorders): void {
  const settings = () => auditSettingsOf(ctx.config.journal.capture());
  const recorder = () => recorders.of(settings().disk);
  const readQuery = (query: unknown) => auditQuerySchema.safeParse(query ?? {});
  // An export is a POST (action download) with the search in its body: a file, not an envelope.
  const exportBody = auditQuerySchema.extend({ action: z.literal('download') });
  const readExport = (body: unknown) => exportBody.safeParse(body ?? {});

  app.get('/api/sysconf/disk', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: 'Disks the behaviour audit can keep its records on' } } }, async () =>
    success({ items: await disks() }),
  );

  async function diskStatus() {
    const current = settings();
    const rec = recorder();
    await rec.maintain();
    const status = rec.status();
    return {
      enabled: current.enabled,
      disk: current.disk,
      refused: status.refused,
      retentionDays: status.retentionDays,
      total: status.disk?.total ?? null,
      free: status.disk?.free ?? null,
      oldest: rec.store.oldest(),
      ...rec.store.counts(),
    };
  }

  app.get('/api/sysconf/auditdisk', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: "The audit records' disk: size, use, retention, counts" } } }, async () =>
    success(await diskStatus()),
  );

  const diskAction = z.object({ action: z.enum(['get', 'clean']) });
  app.post(
    '/api/sysconf/auditdisk',
    { config: { policy: { module: MODULE, effect: 'write', actionEffects: { get: 'read' } }, doc: { summary: 'action get (the status) or clean (remove every record)' } } },
    async (request) => {
      const body = diskAction.safeParse(request.body ?? {});
      if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
      if (body.data.action === 'clean') {
        const rec = recorder();
        rec.flush();
        rec.store.clear();
        return success({ ...(await diskStatus()), msg: AUDIT_MSG.cleaned });
      }
      return success(await diskStatus());
    },
  );

  app.get('/api/sysconf/audit/urls', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: 'Visited URLs by client, time and text', querystring: auditQuerySchema } } }, async (request) => {
    const query = readQuery(request.query);
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    const rec = recorder();
    rec.flush();
    const { page, pageSize } = query.data;
    return success(rec.store.urls({ ...windowOf(query.data, ctx.now()), offset: (page - 1) * pageSize, limit: pageSize }));
  });

  app.get('/api/sysconf/audit/flows', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: 'IP flows by client, time and server address or port', querystring: auditQuerySchema } } }, async (request) => {
    const query = readQuery(request.query);
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    const rec = recorder();
    rec.flush();
    const { page, pageSize } = query.data;
    return success(rec.store.flows({ ...windowOf(query.data, ctx.now()), offset: (page - 1) * pageSize, limit: pageSize }));
  });

  function download<T>(name: string, head: string[], rows: Iterable<T>, cells: (row: T) => Array<string | number>) {
    function* lines() {
      // A byte-order mark, so spreadsheet programs read the file as UTF-8.
      yield `\uFEFF${csvLine(head)}`;
      for (const row of rows) yield csvLine(cells(row));
    }
    return { name, body: Readable.from(lines()) };
  }

  app.post('/api/sysconf/audit/urlexport', { config: { policy: { module: MODULE, effect: 'write', actionEffects: { download: 'read' } }, doc: { summary: 'action download: the URL search as CSV', body: auditQuerySchema } } }, async (request, reply) => {
    const query = readExport(request.body);
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    const rec = recorder();
    rec.flush();
    const file = download('audit-urls.csv', ['time', 'client', 'server', 'port', 'kind', 'host', 'path'], rec.store.exportUrls(windowOf(query.data, ctx.now()), EXPORT_MAX), (r: UrlRecord) => [
      stamp(r.ts), r.client, r.server, r.port, r.kind, r.host, r.path,
    ]);
    return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${file.name}"`).header('cache-control', 'no-store').send(file.body);
  });

  app.post('/api/sysconf/audit/ipexport', { config: { policy: { module: MODULE, effect: 'write', actionEffects: { download: 'read' } }, doc: { summary: 'action download: the IP flow search as CSV', body: auditQuerySchema } } }, async (request, reply) => {
    const query = readExport(request.body);
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    const rec = recorder();
    rec.flush();
    const file = download('audit-flows.csv', ['time', 'client', 'client_port', 'server', 'port', 'protocol'], rec.store.exportFlows(windowOf(query.data, ctx.now()), EXPORT_MAX), (r: FlowRecord) => [
      stamp(r.ts), r.client, r.cport, r.server, r.port, r.proto,
    ]);
    return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${file.name}"`).header('cache-control', 'no-store').send(file.body);
  });
}
