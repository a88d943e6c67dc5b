import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { remoteSyslog, type RemoteSyslog } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { realScheduler, type Scheduler } from '../../config/config-types.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { KmsgReader } from './remote-syslog-kmsg.js';
import { SyslogSender } from './remote-syslog-sender.js';
import type { SyslogMessage } from './remote-syslog-format.js';

export interface RemoteSyslogDeps {
  schedule?: Scheduler;
  /** Trusted authority for TLS receivers (a test's own CA). */
  ca?: string;
  /** Read the kernel log (on by default on the linux driver); a test's stand-in file. */
  kmsg?: string | false;
  /** Told once the kernel log's backlog was read (tests write after it). */
  onKmsgDrained?: () => void;
}

export function syslogSettings(ctx: Pick<AppContext, 'db'>): RemoteSyslog {
  const row = ctx.db.prepare("SELECT data FROM config_rows WHERE entity = ? AND id = ''").get(remoteSyslog.name) as { data: string } | undefined;
  return remoteSyslog.schema.parse(row ? JSON.parse(row.data) : {});
}

/** What other domains send to the remote log (diagnosis and telnet sessions). */
export interface RemoteLog {
  send(message: Omit<SyslogMessage, 'time'>): void;
}

/**
 * The remote logging service: follows the saved settings after each apply and sends the
 * kernel's messages (linux driver), each applied configuration change and a test message the
 * administrator asks for (POST /api/sysconf/syslog/test).
 */
export function registerRemoteSyslog(app: FastifyInstance, ctx: AppContext, deps: RemoteSyslogDeps = {}): { stop(): Promise<void>; log: RemoteLog } {
  const sender = new SyslogSender({
    hostname: () => hostname(),
    report: (error) => app.log.debug({ err: error }, 'remote logging'),
    schedule: deps.schedule ?? realScheduler,
    ca: deps.ca,
  });
  const log: RemoteLog = { send: (message) => void sender.send({ ...message, time: ctx.now() }) };
  const unfollow = ctx.config.onApplied((domains) => {
    sender.configure(syslogSettings(ctx));
    log.send({ facility: 'daemon', severity: 'notice', app: 'portico', msgid: 'config', text: `configuration applied: ${domains.join(', ')}` });
  });
  // Every reader of /dev/kmsg gets every record, so OpenWrt's logd reading it too takes nothing away.
  const kmsgPath = deps.kmsg ?? (ctx.settings.driver === 'sim' ? false : '/dev/kmsg');
  const kmsg = kmsgPath ? new KmsgReader(kmsgPath, (record) => log.send({ ...record, app: 'kernel', msgid: 'kern' }), (error) => app.log.warn({ err: error }, 'kernel log')) : null;

  app.post(
    '/api/sysconf/syslog/test',
    { config: { policy: { module: 'networkparameter', effect: 'action' }, doc: { summary: 'Send a test message to the saved remote log server' } } },
    async (request) => {
      const settings = syslogSettings(ctx);
      if (!settings.enabled || settings.server === '') return failure('msg.syslog.off');
      sender.configure(settings);
      const user = request.auth?.account.username ?? '';
      sender.send({ facility: 'daemon', severity: settings.severity, app: 'portico', msgid: 'test', text: `test message sent by ${user}`, time: ctx.now() });
      return success({ server: settings.server });
    },
  );
  app.addHook('onReady', async () => {
    sender.configure(syslogSettings(ctx));
    if (!kmsg) return;
    await kmsg.start().catch((error: unknown) => app.log.warn({ err: error }, 'the kernel log could not be read'));
    void kmsg.drained.then(() => deps.onKmsgDrained?.());
  });
  return {
    log,
    async stop() {
      unfollow();
      await kmsg?.stop();
      sender.close();
    },
  };
}

