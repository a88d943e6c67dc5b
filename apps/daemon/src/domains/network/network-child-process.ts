import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import type { Writable } from 'node:stream';

/**
 * What the network domain's supervised services share: starting a service behind the driver's
 * spawn prefix (the lab runs them inside a network namespace), stopping one within a bound,
 * and keeping one running with a bounded restart backoff.
 */

/** Starts `argv` (an argument array, never a shell), behind `spawnPrefix` when there is one. */
export function spawnService(
  argv: readonly string[],
  spawnPrefix: readonly string[] | undefined,
  options: { stdio: StdioOptions; env?: NodeJS.ProcessEnv },
): ChildProcess {
  const [command, ...prefix] = spawnPrefix ?? [];
  return spawn(command ?? argv[0]!, command ? [...prefix, ...argv] : argv.slice(1), options);
}

/** How long a service has to end after SIGTERM before it is killed. */
export const STOP_GRACE_MS = 3000;

function ended(child: ChildProcess): boolean {
  return child.pid === undefined || child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM, then SIGKILL if it has not exited within the grace period; resolves once it exited. */
export function stopChild(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (ended(child)) return Promise.resolve();
  return new Promise<void>((done) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    kill.unref();
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** Timers of the restart policy; tests replace it to fire them at will. */
export interface Scheduler {
  /** Runs `task` after `ms`; the returned function cancels it. */
  after(ms: number, task: () => void): () => void;
  now(): number;
}

export const TIMER_SCHEDULER: Scheduler = {
  after(ms, task) {
    const timer = setTimeout(task, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
  now: () => Date.now(),
};

/**
 * Restart pacing of a service that exited: the first restart after `firstMs`, each further one
 * after twice the last, at most `maxMs`. A run that lasted `maxMs` or more counts as healthy and
 * starts the pacing over.
 */
export interface RestartBackoff {
  firstMs: number;
  maxMs: number;
}

export const RESTART_BACKOFF: RestartBackoff = { firstMs: 1000, maxMs: 60_000 };

export function restartDelay(failures: number, backoff: RestartBackoff): number {
  return Math.min(backoff.firstMs * 2 ** Math.min(failures, 30), backoff.maxMs);
}

export interface SupervisedSpec {
  /** Names the service in reports. */
  name: string;
  argv: readonly string[];
  spawnPrefix?: readonly string[];
  /** Runs before each start (removing what a previous run left behind). A throw fails the start. */
  beforeStart?: () => void;
  /**
   * Text handed to the service on file descriptor 3, written then closed (pppd's passwordfd
   * plugin reads a password there), asked for anew at each start. A throw fails the start.
   */
  fd3?: () => string;
  /** Runs after each start (a service's own readiness and requests). */
  started?: (child: ChildProcess) => void;
  /** Its standard output piped for `started` to read (a reader of events); ignored otherwise. */
  stdout?: boolean;
  report?: (error: unknown) => void;
  scheduler?: Scheduler;
  backoff?: RestartBackoff;
}

/**
 * One service kept running in the foreground: started, restarted after the backoff when it
 * exits by itself, restarted at once on request, stopped within a bound. Its standard error's
 * last lines go into the report of an exit.
 */
export class SupervisedProcess {
  private child: ChildProcess | null = null;
  private cancelRestart: (() => void) | null = null;
  private failures = 0;
  private wanted = false;
  private readonly scheduler: Scheduler;
  private readonly backoff: RestartBackoff;

  constructor(private readonly spec: SupervisedSpec) {
    this.scheduler = spec.scheduler ?? TIMER_SCHEDULER;
    this.backoff = spec.backoff ?? RESTART_BACKOFF;
  }

  /** The running process, or null (stopped, or waiting for its restart). */
  get process(): ChildProcess | null {
    return this.child;
  }

  start(): void {
    this.wanted = true;
    if (this.child || this.cancelRestart) return;
    this.launch();
  }

  /** Stops it and starts it again now, with the backoff started over. */
  async restart(): Promise<void> {
    await this.halt();
    this.failures = 0;
    this.start();
  }

  async stop(): Promise<void> {
    this.wanted = false;
    await this.halt();
  }

  private async halt(): Promise<void> {
    this.cancelRestart?.();
    this.cancelRestart = null;
    const child = this.child;
    this.child = null;
    if (child) await stopChild(child);
  }

  private launch(): void {
    let input: string | undefined;
    try {
      this.spec.beforeStart?.();
      input = this.spec.fd3?.();
    } catch (error) {
      this.spec.report?.(error);
      this.scheduleRestart(this.scheduler.now(), 'could not start');
      return;
    }
    const out = this.spec.stdout ? 'pipe' : 'ignore';
    const stdio: StdioOptions = input === undefined ? ['ignore', out, 'pipe'] : ['ignore', out, 'pipe', 'pipe'];
    const child = spawnService(this.spec.argv, this.spec.spawnPrefix, { stdio });
    const startedAt = this.scheduler.now();
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    let done = false;
    const exited = (how: string) => {
      if (done) return;
      done = true;
      // A process stopped on purpose is no longer this.child: nothing to restart.
      if (this.child !== child) return;
      this.child = null;
      if (this.wanted) this.scheduleRestart(startedAt, `${how}${stderr ? `: ${stderr.trim()}` : ''}`);
    };
    child.once('error', (error) => exited(error.message));
    child.once('exit', (code, signal) => exited(signal ? `signal ${signal}` : `exit ${code}`));
    if (input !== undefined) {
      const pipe = child.stdio[3] as Writable;
      // A service that exits before reading makes the write fail; its exit is what counts.
      pipe.on('error', () => undefined);
      pipe.end(input);
    }
    this.spec.started?.(child);
  }

  private scheduleRestart(startedAt: number, how: string): void {
    if (this.scheduler.now() - startedAt >= this.backoff.maxMs) this.failures = 0;
    const delay = restartDelay(this.failures++, this.backoff);
    this.spec.report?.(new Error(`${this.spec.name} ended (${how}); restarting in ${delay} ms`));
    this.cancelRestart = this.scheduler.after(delay, () => {
      this.cancelRestart = null;
      if (this.wanted && !this.child) this.launch();
    });
  }
}
