import type { ChildProcess } from 'node:child_process';
import { ActivationError, type RenderedFile } from '../../engine/engine-types.js';
import type { DriverEnv, TargetActivation } from '../../config/domain-module.js';
import { RESTART_BACKOFF, restartDelay, spawnService, stopChild } from '../network/network-public.js';
import { OPENVPN_FILES } from './vpn-server-openvpn.js';

/** How long a starting server has to finish its initialisation (or say why it cannot). */
const READY_MS = 15_000;

/**
 * The OpenVPN server on the linux driver: the daemon runs it in the foreground and restarts it
 * when its file changed; the control file stops it when the server is disabled. A server that
 * exits during start fails the apply with what it printed; one that exits later is reported
 * and started again with a growing pause.
 */
export function openvpnSupervisor(env: DriverEnv, binary = 'openvpn') {
  let child: ChildProcess | null = null;
  let desiredConf: string | null = null;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | null = null;

  async function halt(): Promise<void> {
    if (restartTimer) clearTimeout(restartTimer);
    restartTimer = null;
    const running = child;
    child = null;
    if (running) await stopChild(running);
  }

  async function stop(): Promise<void> {
    desiredConf = null;
    await halt();
  }

  /** A server that exited by itself comes back after 1 s, 2 s, 4 s … at most a minute. */
  function scheduleRestart(): void {
    if (desiredConf === null || restartTimer) return;
    const conf = desiredConf;
    const delay = restartDelay(failures, RESTART_BACKOFF);
    failures += 1;
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (desiredConf !== conf) return;
      launch(conf).then(
        () => (failures = 0),
        (error: unknown) => {
          env.report?.(error);
          scheduleRestart();
        },
      );
    }, delay);
    restartTimer.unref();
  }

  async function start(conf: string): Promise<void> {
    desiredConf = conf;
    failures = 0;
    await launch(conf);
  }

  async function launch(conf: string): Promise<void> {
    await halt();
    const process = spawnService([binary, '--config', conf], env.spawnPrefix, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ActivationError(OPENVPN_FILES.conf, `openvpn did not start: ${output.slice(-800)}`)), READY_MS);
      const onData = (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-4000);
        if (output.includes('Initialization Sequence Completed')) {
          clearTimeout(timer);
          resolve();
        }
      };
      process.stdout!.on('data', onData);
      process.stderr!.on('data', onData);
      process.once('exit', (code) => {
        clearTimeout(timer);
        reject(new ActivationError(OPENVPN_FILES.conf, `openvpn exited (${code}): ${output.slice(-800)}`));
      });
    });
    child = process;
    try {
      await ready;
    } catch (error) {
      await halt();
      throw error;
    }
    // The pipes keep being read (onData), so a full pipe never blocks it; an unexpected exit is
    // reported and the server started again.
    process.once('exit', (code) => {
      if (child === process) {
        child = null;
        env.report?.(new ActivationError(OPENVPN_FILES.conf, `openvpn exited (${code}): ${output.slice(-800)}`));
        scheduleRestart();
      }
    });
  }

  return {
    start,
    stop,
    running: () => child !== null,
    conf: () => desiredConf,
  };
}

export function openvpnLinuxActivation(env: DriverEnv): TargetActivation {
  const server = openvpnSupervisor(env);
  return {
    activate: {
      openvpn: (_file: RenderedFile, path: string) => server.start(path),
      [OPENVPN_FILES.control]: async (file: RenderedFile) => {
        const control = JSON.parse(file.content) as { enabled: boolean };
        if (!control.enabled) await server.stop();
      },
    },
    stop: () => server.stop(),
  };
}
