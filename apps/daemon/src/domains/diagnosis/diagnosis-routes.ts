import { networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { diagnosisStartSchema, DIAGNOSIS_TOOLS, fieldErrors, MSG } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { DiagnosisJobs, type Spawn } from './diagnosis-jobs.js';

export interface DiagnosisDeps {
  spawn?: Spawn;
}

const stopBody = z.object({ action: z.literal('stop'), id: z.string().uuid() }).strict();
const readQuery = z.object({ _: z.string().optional(), id: z.string().uuid().optional(), offset: z.coerce.number().int().min(0).max(1_000_000).default(0) });

/**
 * Network diagnosis (spec §2 /system/networkdiagnosis, §7 sysconf/diagnosis). GET: the tools
 * and the device's interfaces, or with `id` a run's lines from `offset` (the console polls it
 * for live output). POST action `start` (a run) or `stop`. Every start and stop is logged with
 * who asked.
 */
export function registerDiagnosis(app: FastifyInstance, ctx: AppContext, deps: DiagnosisDeps = {}): { stop(): Promise<void> } {
  const jobs = new DiagnosisJobs(deps.spawn);
  const policy = { module: 'networkdiagnosis', effect: 'action' } as const;

  app.get('/api/sysconf/diagnosis', { config: { policy: { module: 'networkdiagnosis', effect: 'read' } } }, async (request) => {
    const query = readQuery.safeParse(request.query ?? {});
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    if (!query.data.id) return success({ tools: DIAGNOSIS_TOOLS, interfaces: Object.keys(networkInterfaces()).sort() });
    const job = jobs.read(String(request.auth?.account.id ?? ''), query.data.id, query.data.offset);
    return job ? success(job) : failure(MSG.notFound);
  });

  app.post('/api/sysconf/diagnosis', { config: { policy, doc: { summary: 'Start, read or stop a ping or route trace' } } }, async (request) => {
    const body = (request.body ?? {}) as { action?: unknown };
    const owner = request.auth?.account.id ?? '';
    const user = request.auth?.account.username ?? '';
    if (body.action === 'start') {
      const run = diagnosisStartSchema.safeParse(body);
      if (!run.success) return failure(MSG.invalid, fieldErrors(run.error));
      const started = jobs.start(String(owner), run.data);
      if ('busy' in started) return failure('msg.diagnosis.busy');
      request.log.info({ user, tool: run.data.tool, target: run.data.target, ifname: run.data.ifname, job: started.id }, 'diagnosis started');
      return success(started);
    }
    const parsed = stopBody.safeParse(body);
    if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
    if (!jobs.stop(String(owner), parsed.data.id)) return failure(MSG.notFound);
    request.log.info({ user, job: parsed.data.id }, 'diagnosis stopped');
    return success({ id: parsed.data.id });
  });

  return { stop: () => jobs.close() };
}
