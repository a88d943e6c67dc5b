import type { ChildProcess } from 'node:child_process';
import { ActivationError, type RenderedFile } from '../../engine/engine-types.js';
import type { DriverEnv, TargetActivation } from '../../config/domain-module.js';
import { spawnService, stopChild } from '../network/network-public.js';
import { OPENVPN_FILES } from './vpn-server-openvpn.js';

/** How long a starting server has to finish its initialisation (or say why it cannot). */
const READY_MS = 15_000;

/**
 * The OpenVPN server on the linux driver: the daemon runs it in the foreground and restarts it
 * when its file changed; the control file stops it when the server is disabled. A server that
 * exits during start fails the apply with what it printed.
 */
export function openvpnSupervisor(env: DriverEnv, binary = 'openvpn') {
  let child: ChildProcess | null = null;
  let desiredConf: string | null = null;

  async function stop(): Promise<void> {
    const running = child;
    child = null;
    if (running) await stopChild(running);
  }

  async function start(conf: string): Promise<void> {
    await stop();
    desiredConf = conf;
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
      await stop();
      throw error;
    }
    // Keep reading so a full pipe never blocks it; an unexpected exit is reported.
    process.once('exit', (code) => {
      if (child === process) {
        child = null;
        env.report?.(new ActivationError(OPENVPN_FILES.conf, `openvpn exited (${code}): ${output.slice(-800)}`));
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
