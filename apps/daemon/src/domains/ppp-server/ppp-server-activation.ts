import { PPP_SERVER_KINDS, type PppServerKind } from '@portico/schema';
import type { RenderedFile } from '../../engine/engine-types.js';
import type { DriverEnv, TargetActivation } from '../../config/domain-module.js';
import { SupervisedProcess } from '../network/network-public.js';
import { parsePppoeArgs, pppoeServerArgv, PPP_SERVER_FILES } from './ppp-server-files.js';
import { kickPppSession, pppSessions } from './ppp-server-sessions.js';

/** pptpd, xl2tpd and pppoe-server as the daemon runs them, each in the foreground. */
function serverArgv(kind: PppServerKind, root: string, file: RenderedFile): string[] | null {
  const path = (target: string) => `${root.replace(/\/$/, '')}${target}`;
  if (kind === 'pptp') return ['pptpd', '--fg', '-c', path(PPP_SERVER_FILES.pptpd)];
  if (kind === 'l2tp') return ['xl2tpd', '-D', '-c', path(PPP_SERVER_FILES.xl2tpd), '-p', '/run/portico-xl2tpd.pid', '-C', '/run/portico-xl2tpd.control'];
  const args = parsePppoeArgs(file.content);
  return args ? pppoeServerArgv(args) : null;
}

/** The servers the daemon runs, by install root: the status routes ask whether one runs. */
const running = new Map<string, Map<PppServerKind, SupervisedProcess>>();

export function pppServerRunning(root: string, kind: PppServerKind): boolean {
  return running.get(root)?.get(kind)?.process != null;
}

/**
 * The PPP servers on the linux driver: each is a SupervisedProcess (restarted after a growing
 * pause when it dies), started again when its file changed, stopped when the server is
 * disabled; stopping one also ends its sessions (their pppd outlive the server that spawned them).
 */
export function pppServerLinuxActivation(env: DriverEnv): TargetActivation {
  const processes = new Map<PppServerKind, SupervisedProcess>();
  running.set(env.root, processes);
  const configFile: Record<PppServerKind, string> = { pptp: PPP_SERVER_FILES.pptpd, l2tp: PPP_SERVER_FILES.xl2tpd, pppoe: PPP_SERVER_FILES.pppoe };

  async function stop(kind: PppServerKind): Promise<void> {
    const process = processes.get(kind);
    processes.delete(kind);
    await process?.stop();
    for (const session of pppSessions({ root: env.root }, kind)) kickPppSession({ root: env.root }, kind, session.ifname);
  }

  async function start(kind: PppServerKind, file: RenderedFile): Promise<void> {
    const argv = serverArgv(kind, env.root, file);
    if (!argv) throw new Error(`${file.target} is not a PPPoE server's settings`);
    await processes.get(kind)?.stop();
    const process = new SupervisedProcess({ name: `${kind} server`, argv, spawnPrefix: env.spawnPrefix, report: env.report });
    processes.set(kind, process);
    process.start();
  }

  const activate: Record<string, (file: RenderedFile, path: string) => Promise<void>> = {
    [PPP_SERVER_FILES.control]: async (file) => {
      const enabled = JSON.parse(file.content) as Partial<Record<PppServerKind, boolean>>;
      for (const kind of PPP_SERVER_KINDS) if (!enabled[kind]) await stop(kind);
    },
  };
  for (const kind of PPP_SERVER_KINDS) activate[configFile[kind]] = (file) => start(kind, file);
  // pppd reads its options file afresh for every session: nothing to restart.
  for (const kind of PPP_SERVER_KINDS) activate[PPP_SERVER_FILES.options(kind)] = async () => undefined;
  return {
    activate,
    async stop() {
      await Promise.all(PPP_SERVER_KINDS.map((kind) => processes.get(kind)?.stop()));
      processes.clear();
      running.delete(env.root);
    },
  };
}
