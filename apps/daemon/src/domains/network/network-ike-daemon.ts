import type { ChildProcess } from 'node:child_process';
import { appendFile, mkdir, rename, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ActivationError } from '../../engine/engine-types.js';
import type { DriverEnv } from '../../config/domain-module.js';
import { RESTART_BACKOFF, restartDelay, spawnService, stopChild } from './network-child-process.js';
import { NETWORK_FILES } from './network-config.js';
import { IKE_FILES, ikeViciSocket } from './network-ike.js';

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

export interface IkeDaemonOptions {
  /** charon's command (a test's stand-in); `charon-systemd` in the foreground by default. */
  charon?: readonly string[];
  now?: () => number;
}

/**
 * The one charon of the linux driver: `charon-systemd` in the foreground with the strongswan.conf
 * the IKE domain renders (STRONGSWAN_CONF), its own vici socket and no pid file, so it never
 * meets a system charon's. Its output goes to the bounded IPsec log (the one the Logs and VPN
 * client pages read).
 *
 * Every user's activation only notes what changed in a pass (`note`); the first `flush` after
 * the pass — whichever user's afterPass comes first — does it all at once: charon stopped,
 * (re)started when its own file changed, and ONE `swanctl --load-all` of the top swanctl.conf,
 * which carries every user's connections, so no user's load unloads another's. Later flushes of
 * the same pass find nothing to do. A charon that exits by itself is started again after 1 s,
 * 2 s, 4 s … at most a minute, and loaded.
 */
export class IkeDaemon {
  private readonly log: BoundedLog;
  private readonly socket: string;
  private readonly charon: readonly string[];
  private child: ChildProcess | null = null;
  private wanted = false;
  private failures = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private pending = { restart: false, load: false, enabled: null as boolean | null };
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: DriverEnv,
    options: IkeDaemonOptions = {},
  ) {
    this.log = new BoundedLog(join(env.root, NETWORK_FILES.ipsecLog), options.now);
    this.socket = ikeViciSocket(env.root);
    this.charon = options.charon ?? ['charon-systemd'];
  }

  /** What a pass changed: charon's own file (restart), any loaded file (load), the switch. */
  note(change: { restart?: boolean; load?: boolean; enabled?: boolean }): void {
    if (change.restart) this.pending.restart = true;
    if (change.load || change.restart) this.pending.load = true;
    if (change.enabled !== undefined) {
      this.pending.enabled = change.enabled;
      this.pending.load = true;
    }
  }

  /** Makes the noted changes live; resolves when charon runs with everything loaded (or is stopped). */
  flush(): Promise<void> {
    const work = this.queue.then(() => this.settle());
    this.queue = work.catch(() => undefined);
    return work;
  }

  /** The vici socket URI swanctl talks to charon on. */
  get uri(): string {
    return `unix://${this.socket}`;
  }

  running(): boolean {
    return this.child !== null;
  }

  async stop(): Promise<void> {
    await this.queue;
    this.wanted = false;
    await this.halt();
  }

  private async settle(): Promise<void> {
    const { restart, load, enabled } = this.pending;
    this.pending = { restart: false, load: false, enabled: null };
    if (!load) return;
    if (enabled === false) {
      this.wanted = false;
      await this.halt();
      return;
    }
    // A load noted before the first switch (a user's file alone) waits for charon's switch.
    if (enabled === null && !this.wanted) return;
    this.wanted = true;
    this.failures = 0;
    if (!this.child || restart) await this.launch();
    else await this.load();
  }

  private async load(): Promise<void> {
    const top = join(this.env.root, IKE_FILES.swanctl);
    const result = await this.env.run(['swanctl', '--load-all', '--noprompt', '--file', top, '--uri', this.uri], { timeoutMs: 60_000 });
    if (result.exitCode !== 0) {
      const said = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line && !line.startsWith('plugin ')).slice(-6).join(' | ');
      throw new ActivationError(IKE_FILES.swanctl, `swanctl --load-all failed: ${said.slice(0, 800)}`);
    }
  }

  private async ready(process: ChildProcess, output: () => string): Promise<void> {
    const deadline = Date.now() + READY_MS;
    let exited = false;
    process.once('exit', () => (exited = true));
    // A missing binary never exits: it fails to spawn.
    process.once('error', () => (exited = true));
    for (;;) {
      if (exited) throw new ActivationError(IKE_FILES.charon, `charon exited: ${output().slice(-800)}`);
      const probe = await this.env.run(['swanctl', '--stats', '--uri', this.uri], { timeoutMs: 5000 });
      if (probe.exitCode === 0) {
        // charon goes on running without its IKE sockets when another IKE daemon holds them.
        if (PORTS_TAKEN.test(output())) throw new ActivationError(IKE_FILES.charon, 'charon could not bind UDP 500/4500: another IKE daemon (a system charon?) holds them');
        return;
      }
      if (Date.now() > deadline) throw new ActivationError(IKE_FILES.charon, `charon did not open its vici socket: ${output().slice(-800)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async halt(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const running = this.child;
    this.child = null;
    if (running) await stopChild(running);
  }

  private async launch(): Promise<void> {
    await this.halt();
    const charonConf = join(this.env.root, IKE_FILES.charon);
    const process = spawnService(this.charon, this.env.spawnPrefix, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...globalThis.process.env, STRONGSWAN_CONF: charonConf } });
    let tail = '';
    let partial = '';
    const onData = (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      tail = (tail + chunk.toString('utf8')).slice(-4000);
      const lines = text.split('\n');
      partial = lines.pop()!.slice(-4000);
      if (lines.length) void this.log.write(lines);
    };
    process.stdout!.on('data', onData);
    process.stderr!.on('data', onData);
    process.on('error', (error) => (tail = `${tail}\n${error.message}`.slice(-4000)));
    this.child = process;
    try {
      await this.ready(process, () => tail);
      await this.load();
    } catch (error) {
      await this.halt();
      throw error;
    }
    process.once('exit', (code) => {
      if (this.child !== process) return;
      this.child = null;
      this.env.report?.(new ActivationError(IKE_FILES.charon, `charon exited (${code}): ${tail.slice(-800)}`));
      this.scheduleRestart();
    });
  }

  private scheduleRestart(): void {
    if (!this.wanted || this.restartTimer) return;
    const delay = restartDelay(this.failures, RESTART_BACKOFF);
    this.failures += 1;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.wanted) return;
      const work = this.queue.then(() => this.launch());
      this.queue = work.catch(() => undefined);
      work.then(
        () => (this.failures = 0),
        (error: unknown) => {
          this.env.report?.(error);
          this.scheduleRestart();
        },
      );
    }, delay);
    this.restartTimer.unref();
  }
}

const daemons = new WeakMap<DriverEnv, IkeDaemon>();

/**
 * The IKE daemon of one applier: every module's activation of that applier gets the same one
 * (they are all built with the same DriverEnv), so the network and the servers share one charon.
 */
export function ikeDaemonOf(env: DriverEnv, options?: IkeDaemonOptions): IkeDaemon {
  let daemon = daemons.get(env);
  if (!daemon) {
    daemon = new IkeDaemon(env, options);
    daemons.set(env, daemon);
  }
  return daemon;
}
