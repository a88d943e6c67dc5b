import { networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { diagnosisStartSchema, DIAGNOSIS_TOOLS, fieldErrors, MSG, telnetOpenSchema, telnetSendSchema } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { DiagnosisJobs, type Spawn } from './diagnosis-jobs.js';
import { TelnetSessions } from './diagnosis-telnet.js';

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

  const telnet = registerTelnet(app);
  return {
    async stop() {
      telnet.closeAll();
      await jobs.close();
    },
  };
}

const closeBody = z.object({ action: z.literal('close'), id: z.string().uuid() }).strict();

/**
 * The telnet client (spec §2 /system/telnetclient): POST sysconf/telnet `open` (host, port),
 * `send` (one line), `close`; GET sysconf/telnet?id=&offset= reads the output from an offset.
 * Every session is journalled in the daemon's log: who, from where, to which host and port,
 * how it ended and how many bytes went each way.
 */
function registerTelnet(app: FastifyInstance): TelnetSessions {
  const sessions = new TelnetSessions({
    opened: (s) => app.log.info({ session: s.id, account: s.owner, host: s.host, port: s.port }, 'telnet session opened'),
    closed: (s) => app.log.info({ session: s.id, account: s.owner, host: s.host, port: s.port, reason: s.reason, bytesIn: s.bytesIn, bytesOut: s.bytesOut }, 'telnet session closed'),
  });
  const readQuery = z.object({ _: z.string().optional(), id: z.string().uuid(), offset: z.coerce.number().int().min(0).default(0) });

  app.get('/api/sysconf/telnet', { config: { policy: { module: 'telnetclient', effect: 'read' } } }, async (request) => {
    const query = readQuery.safeParse(request.query ?? {});
    if (!query.success) return failure(MSG.invalid, fieldErrors(query.error));
    const view = sessions.read(String(request.auth?.account.id ?? ''), query.data.id, query.data.offset);
    return view ? success(view) : failure(MSG.notFound);
  });

  app.post('/api/sysconf/telnet', { config: { policy: { module: 'telnetclient', effect: 'action' }, doc: { summary: 'Open, write to or close a telnet session' } } }, async (request) => {
    const body = (request.body ?? {}) as { action?: unknown };
    const owner = String(request.auth?.account.id ?? '');
    if (body.action === 'open') {
      const open = telnetOpenSchema.safeParse(body);
      if (!open.success) return failure(MSG.invalid, fieldErrors(open.error));
      const opened = sessions.open(owner, open.data.host, open.data.port);
      if ('busy' in opened) return failure('msg.telnet.busy');
      request.log.info({ session: opened.id, user: request.auth?.account.username, from: request.ip, host: open.data.host, port: open.data.port }, 'telnet session requested');
      return success(opened);
    }
    if (body.action === 'send') {
      const send = telnetSendSchema.safeParse(body);
      if (!send.success) return failure(MSG.invalid, fieldErrors(send.error));
      const outcome = sessions.send(owner, send.data.id, send.data.line);
      return outcome === 'sent' ? success({ id: send.data.id }) : failure(outcome === 'closed' ? 'msg.telnet.closed' : MSG.notFound);
    }
    const close = closeBody.safeParse(body);
    if (!close.success) return failure(MSG.invalid, fieldErrors(close.error));
    return sessions.close(owner, close.data.id) ? success({ id: close.data.id }) : failure(MSG.notFound);
  });
  return sessions;
}
