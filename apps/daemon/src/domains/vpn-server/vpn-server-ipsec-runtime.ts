import type { ChildProcess } from 'node:child_process';
import { appendFile, mkdir, open, rename, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { IPSEC_LOG_LINES_MAX } from '@portico/schema';
import { ActivationError, type RenderedFile } from '../../engine/engine-types.js';
import type { DriverEnv, TargetActivation } from '../../config/domain-module.js';
import { RESTART_BACKOFF, restartDelay, spawnService, stopChild } from '../network/network-public.js';
import { IPSEC_FILES } from './vpn-server-ipsec.js';

/** What charon logs (before its vici socket opens) when it has no IPv4 IKE socket. */
const PORTS_TAKEN = /could not open IPv4 socket|could not create any sockets/;
/** How long charon has to open its vici socket. */
const READY_MS = 15_000;
/** The log file is cut over to `<file>.1` past this size: at most twice this on disk. */
export const IPSEC_LOG_MAX_BYTES = 256 * 1024;

/**
 * charon's log as a bounded file: each line stamped with the daemon's clock (ISO 8601), written
 * in order; past IPSEC_LOG_MAX_BYTES the file becomes `<file>.1` (the older one dropped).
 */
export class BoundedLog {
  private size = -1;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly now: () => number = Date.now,
    private readonly maxBytes = IPSEC_LOG_MAX_BYTES,
  ) {}

  write(lines: readonly string[]): Promise<void> {
    const stamp = new Date(this.now()).toISOString();
    // eslint-disable-next-line no-control-regex
    const text = lines.map((line) => `${stamp} ${line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '?').slice(0, 1000)}\n`).join('');
    this.queue = this.queue.then(() => this.append(text)).catch(() => undefined);
    return this.queue;
  }

  private async append(text: string): Promise<void> {
    if (this.size < 0) {
      await mkdir(dirname(this.path), { recursive: true });
      this.size = await stat(this.path).then((s) => s.size, () => 0);
    }
    if (this.size + text.length > this.maxBytes && this.size > 0) {
      await rename(this.path, `${this.path}.1`);
      this.size = 0;
    }
    await appendFile(this.path, text, { mode: 0o640 });
    this.size += Buffer.byteLength(text);
  }
}

export interface IpsecLogText {
  present: boolean;
  lines: string[];
  truncated: boolean;
}

/** The newest lines of the IPsec server's log (oldest first), at most `max`. */
export async function readIpsecServerLog(root: string, max = IPSEC_LOG_LINES_MAX): Promise<IpsecLogText> {
  const path = join(root, IPSEC_FILES.log);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { present: false, lines: [], truncated: false };
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - 64 * 1024);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    if (start > 0) lines.shift();
    return { present: true, lines: lines.slice(-max), truncated: start > 0 || lines.length > max };
  } finally {
    await handle.close();
  }
}

/**
 * The daemon's charon on the linux driver: `charon-systemd` in the foreground with its own
 * strongswan.conf (STRONGSWAN_CONF), its own vici socket and no pid file, so it never meets
 * another charon's. Its output goes to the bounded log. When the configuration changed, ONE
 * `swanctl --load-all` loads every connection and key (and unloads what is gone). A charon
 * that exits by itself is started again after 1 s, 2 s, 4 s … at most a minute, and loaded.
 */
export function ipsecSupervisor(env: DriverEnv, socket: string, options: { charon?: readonly string[]; now?: () => number } = {}) {
  const charon = options.charon ?? ['charon-systemd'];
  const log = new BoundedLog(join(env.root, IPSEC_FILES.log), options.now);
  const charonConf = join(env.root, IPSEC_FILES.charon);
  const connections = join(env.root, IPSEC_FILES.connections);
  let child: ChildProcess | null = null;
  let wanted = false;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | null = null;

  async function load(): Promise<void> {
    const result = await env.run(['swanctl', '--load-all', '--noprompt', '--file', connections, '--uri', `unix://${socket}`], { timeoutMs: 60_000 });
    if (result.exitCode !== 0) {
      const said = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line && !line.startsWith('plugin ')).slice(-6).join(' | ');
      throw new ActivationError(IPSEC_FILES.connections, `swanctl --load-all failed: ${said.slice(0, 800)}`);
    }
  }

  async function ready(process: ChildProcess, output: () => string): Promise<void> {
    const deadline = Date.now() + READY_MS;
    let exited = false;
    process.once('exit', () => (exited = true));
    // A missing binary never exits: it fails to spawn.
    process.once('error', () => (exited = true));
    for (;;) {
      if (exited) throw new ActivationError(IPSEC_FILES.charon, `charon exited: ${output().slice(-800)}`);
      const probe = await env.run(['swanctl', '--stats', '--uri', `unix://${socket}`], { timeoutMs: 5000 });
      if (probe.exitCode === 0) {
        // charon goes on running without its IKE sockets when another IKE daemon holds them.
        if (PORTS_TAKEN.test(output())) throw new ActivationError(IPSEC_FILES.charon, 'charon could not bind UDP 500/4500: another IKE daemon (a system charon?) holds them');
        return;
      }
      if (Date.now() > deadline) throw new ActivationError(IPSEC_FILES.charon, `charon did not open its vici socket: ${output().slice(-800)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function halt(): Promise<void> {
    if (restartTimer) clearTimeout(restartTimer);
    restartTimer = null;
    const running = child;
    child = null;
    if (running) await stopChild(running);
  }

  async function launch(): Promise<void> {
    await halt();
    const process = spawnService(charon, env.spawnPrefix, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...globalThis.process.env, STRONGSWAN_CONF: charonConf } });
    let tail = '';
    let partial = '';
    const onData = (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      tail = (tail + chunk.toString('utf8')).slice(-4000);
      const lines = text.split('\n');
      partial = lines.pop()!.slice(-4000);
      if (lines.length) void log.write(lines);
    };
    process.stdout!.on('data', onData);
    process.stderr!.on('data', onData);
    process.on('error', (error) => (tail = `${tail}\n${error.message}`.slice(-4000)));
    child = process;
    try {
      await ready(process, () => tail);
      await load();
    } catch (error) {
      await halt();
      throw error;
    }
    process.once('exit', (code) => {
      if (child !== process) return;
      child = null;
      env.report?.(new ActivationError(IPSEC_FILES.charon, `charon exited (${code}): ${tail.slice(-800)}`));
      scheduleRestart();
    });
  }

  function scheduleRestart(): void {
    if (!wanted || restartTimer) return;
    const delay = restartDelay(failures, RESTART_BACKOFF);
    failures += 1;
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (!wanted) return;
      launch().then(
        () => (failures = 0),
        (error: unknown) => {
          env.report?.(error);
          scheduleRestart();
        },
      );
    }, delay);
    restartTimer.unref();
  }

  return {
    /** Makes the installed files live: charon (re)started when its own file changed, then one load. */
    async apply(charonChanged: boolean): Promise<void> {
      wanted = true;
      failures = 0;
      if (!child || charonChanged) await launch();
      else await load();
    },
    async stop(): Promise<void> {
      wanted = false;
      await halt();
    },
    running: () => child !== null,
  };
}

/**
 * The activation: each of the server's files only notes what changed; after the pass, ONE
 * start-or-load (or a stop when the control file says the server is off).
 */
export function ipsecLinuxActivation(socket: string, options: { charon?: readonly string[] } = {}) {
  return (env: DriverEnv): TargetActivation => {
    const server = ipsecSupervisor(env, socket, options);
    let charonChanged = false;
    let loadNeeded = false;
    let enabled: boolean | null = null;
    const note = (what: 'charon' | 'load') => async () => {
      if (what === 'charon') charonChanged = true;
      loadNeeded = true;
    };
    return {
      activate: {
        [IPSEC_FILES.charon]: note('charon'),
        [IPSEC_FILES.connections]: note('load'),
        [IPSEC_FILES.secrets]: note('load'),
        [IPSEC_FILES.control]: async (file: RenderedFile) => {
          enabled = (JSON.parse(file.content) as { enabled: boolean }).enabled;
          loadNeeded = true;
        },
      },
      async afterPass() {
        if (!loadNeeded) return;
        const restart = charonChanged;
        loadNeeded = false;
        charonChanged = false;
        if (enabled === false) await server.stop();
        else await server.apply(restart);
      },
      stop: () => server.stop(),
    };
  };
}
