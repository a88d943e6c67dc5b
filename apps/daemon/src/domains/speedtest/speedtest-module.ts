import { fieldErrors, MSG, speedTest, type AnyEntity, type SpeedTest, type SpeedTestResult } from '@portico/schema';
import { z } from 'zod';
import { defineDomain } from '../../config/domain-module.js';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { networkConfigOf, planNetwork } from '../network/network-public.js';
import { IperfFailed, runIperf } from './speedtest-iperf.js';

const MODULE = 'speedtest';
/** Results kept for the page, newest first. */
const KEEP = 20;

export const SPEEDTEST_MSG = {
  noServer: 'speedTest.msg.noServer',
  noWan: 'speedTest.msg.noWan',
  busy: 'speedTest.msg.busy',
  failed: 'speedTest.msg.failed',
  simulated: 'speedTest.msg.simulated',
} as const;

export function speedTestSettingsOf(snapshot: ConfigSnapshot): SpeedTest {
  const stored = singletonRecord(snapshot, speedTest.name);
  return speedTest.schema.parse({ ...singletonDefaults(speedTest as unknown as AnyEntity), ...stored }) as SpeedTest;
}

/** The WANs of the configuration, by name, with the device that carries their traffic. */
export function wansOf(snapshot: ConfigSnapshot): Array<{ name: string; device: string }> {
  const network = networkConfigOf(snapshot);
  if (!network.interfaces.length) return [];
  return planNetwork(network).wans.map((wan) => ({ name: wan.name, device: wan.l3 }));
}

export interface SpeedtestDeps {
  run?: CommandRunner;
}

interface Running {
  wan: string;
  phase: 'download' | 'upload';
  started: number;
}

const startBody = z.object({ action: z.literal('start'), wan: z.string().min(1).max(32) });

/**
 * Speed test (spec §2 /security/speedtest): a WAN's download, then its upload, measured with
 * iperf3 against the configured server (`sysconf/speedtest`), the socket bound to that WAN's
 * device. One test at a time; the page follows it through `security/speedtest`.
 */
export const speedtestModule = defineDomain({
  name: 'speedtest',
  pages: ['speedtest'],
  register(app, ctx, deps: SpeedtestDeps | undefined) {
    const run = deps?.run ?? runCommand;
    // The sim driver touches nothing of the host: no test leaves it unless a test's runner stands in.
    const simulated = ctx.settings.driver === 'sim' && !deps?.run;
    const results: SpeedTestResult[] = [];
    let running: Running | null = null;
    let lastError: { msg: string; detail: string } | null = null;

    async function measure(wan: { name: string; device: string }, settings: SpeedTest): Promise<void> {
      const at = ctx.now();
      const options = { server: settings.server, port: settings.port, seconds: settings.seconds, device: wan.device };
      running = { wan: wan.name, phase: 'download', started: at };
      const download = await runIperf(run, { ...options, download: true });
      running = { wan: wan.name, phase: 'upload', started: at };
      const upload = await runIperf(run, { ...options, download: false });
      results.unshift({ wan: wan.name, server: settings.server, port: settings.port, at, download, upload });
      results.splice(KEEP);
    }

    app.get('/api/security/speedtest', { config: { policy: { module: MODULE, effect: 'read' }, doc: { summary: 'WANs, the test running and the last results' } } }, async () => {
      const snapshot = ctx.config.journal.capture();
      return success({ wans: wansOf(snapshot), server: speedTestSettingsOf(snapshot).server, running, results, error: lastError });
    });

    app.post('/api/security/speedtest', { config: { policy: { module: MODULE, effect: 'write' }, doc: { summary: 'action start: measure a WAN', body: startBody } } }, async (request) => {
      const body = startBody.safeParse(request.body ?? {});
      if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
      if (simulated) return failure(SPEEDTEST_MSG.simulated);
      if (running) return failure(SPEEDTEST_MSG.busy);
      const snapshot = ctx.config.journal.capture();
      const settings = speedTestSettingsOf(snapshot);
      if (settings.server === '') return failure(SPEEDTEST_MSG.noServer);
      const wan = wansOf(snapshot).find((w) => w.name === body.data.wan);
      if (!wan) return failure(SPEEDTEST_MSG.noWan, { wan: SPEEDTEST_MSG.noWan });
      lastError = null;
      running = { wan: wan.name, phase: 'download', started: ctx.now() };
      void measure(wan, settings)
        .catch((error: unknown) => {
          // The key is the page's message; iperf3's own words go beside it as the detail.
          lastError = { msg: SPEEDTEST_MSG.failed, detail: error instanceof IperfFailed ? error.message : '' };
          if (!(error instanceof IperfFailed)) app.log.warn({ err: error }, 'speed test');
        })
        .finally(() => (running = null));
      return success({ running });
    });
  },
});
