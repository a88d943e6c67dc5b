import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { fieldErrors, manualTimeSchema, MSG, systemTime, type SystemTime } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import { SntpServer, type ClockState } from './system-time-sntp.js';

export interface SystemTimeDeps {
  run?: CommandRunner;
  /** Where the LAN NTP server listens: the linux driver uses 123 on every address. */
  ntpListen?: { port: number; host: string; onBound?(port: number): void };
  /** timesyncd's flag file of a synchronised clock (under a test's folder). */
  syncFlag?: string;
}

/** The saved time settings with their defaults (the singleton's row). */
export function timeSettings(ctx: Pick<AppContext, 'db'>): SystemTime {
  const row = ctx.db.prepare("SELECT data FROM config_rows WHERE entity = ? AND id = ''").get(systemTime.name) as { data: string } | undefined;
  return systemTime.schema.parse(row ? JSON.parse(row.data) : {});
}

/** timesyncd touches this file once the clock is synchronised (systemd 246 and later). */
const SYNC_FLAG = '/run/systemd/timesync/synchronized';

/**
 * POST /api/sysconf/time/set: the clock set by hand (`date -u -s @<seconds>` on a device, an
 * argument array). Refused while the NTP client is on (it would set the clock back) and on the
 * simulator, which never touches the host's clock. Also the LAN NTP server's socket, opened
 * and closed as the saved settings say.
 */
export function registerSystemTime(app: FastifyInstance, ctx: AppContext, deps: SystemTimeDeps = {}): { stop(): Promise<void> } {
  const run = deps.run ?? runCommand;
  // Only the linux driver serves: OpenWrt has its own sysntpd, sim touches nothing.
  const listen = deps.ntpListen ?? (ctx.settings.driver === 'linux' ? { port: 123, host: '0.0.0.0' } : undefined);
  const syncFlag = deps.syncFlag ?? join(ctx.settings.systemRoot, SYNC_FLAG);
  const clock = (): ClockState => {
    const settings = timeSettings(ctx);
    if (!settings.ntp_client) return 'local';
    return existsSync(syncFlag) ? 'synchronised' : 'unsynchronised';
  };
  const sntp = new SntpServer({ now: ctx.now, clock, report: (error) => app.log.warn({ err: error }, 'LAN NTP server') });

  app.post(
    '/api/sysconf/time/set',
    { config: { policy: { module: 'clockconfiguration', effect: 'action' }, doc: { summary: 'Set the device clock by hand' } } },
    async (request) => {
      const body = manualTimeSchema.safeParse(request.body ?? {});
      if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
      if (timeSettings(ctx).ntp_client) return failure('msg.time.ntpOn');
      if (ctx.settings.driver === 'sim') return failure('msg.time.simulator');
      const result = await run(['date', '-u', '-s', `@${body.data.time}`], { timeoutMs: 10_000 });
      if (result.exitCode !== 0) {
        request.log.warn({ stderr: result.stderr.slice(0, 500) }, 'setting the clock failed');
        return failure('msg.time.setFailed');
      }
      request.log.info({ time: body.data.time, user: request.auth?.account.username }, 'clock set by hand');
      return success({ time: body.data.time });
    },
  );

  const follow = async () => {
    if (!listen) return;
    const wanted = timeSettings(ctx).ntp_server;
    if (wanted && !sntp.listening) {
      await sntp.start(listen.port, listen.host);
      listen.onBound?.(sntp.port()!);
    }
    if (!wanted && sntp.listening) await sntp.stop();
  };
  const unfollow = ctx.config.onApplied(() => follow());
  app.addHook('onReady', async () => {
    try {
      await follow();
    } catch (error) {
      app.log.error({ err: error }, 'the LAN NTP server could not open its port');
    }
  });
  return {
    async stop() {
      unfollow();
      await sntp.stop();
    },
  };
}
