import { readFile } from 'node:fs/promises';
import { setTimeout as pause } from 'node:timers/promises';
import { STOP_GRACE_MS } from './network-child-process.js';

/**
 * Dialled services a previous run of the daemon started and could not stop: killed with
 * SIGKILL (or crashed), the daemon leaves its pppd and xl2tpd running, and a new start would
 * dial a second session beside each. At its first activation the daemon looks for them by the
 * pid files they write and stops those that really are what it would have run: a pid file may
 * be stale and its pid reused by an unrelated process, which is left alone.
 */

/** A service the daemon runs: the pid file it writes and the argument vector it is started with. */
export interface DialledService {
  pidFile: string;
  argv: readonly string[];
}

const POLL_MS = 20;
/** How long a process has to disappear after SIGKILL. */
const KILL_WAIT_MS = 2000;

/** The pid on the first line of a pid file, or null. */
async function pidIn(pidFile: string): Promise<number | null> {
  const text = await readFile(pidFile, 'utf8').catch(() => '');
  const first = text.split('\n', 1)[0]!.trim();
  return /^[1-9]\d{0,9}$/.test(first) ? Number(first) : null;
}

/** A process's argument vector, or null once it is gone (or a zombie, whose is empty). */
async function commandLineOf(pid: number): Promise<string[] | null> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return raw === '' ? null : raw.replace(/\0$/, '').split('\0');
}

/** Whether `cmdline` is `argv` as the daemon starts it: directly, or behind its spawn prefix. */
function isRunOf(cmdline: readonly string[] | null, argv: readonly string[], spawnPrefix: readonly string[]): boolean {
  if (!cmdline) return false;
  const same = (expected: readonly string[]) => expected.length === cmdline.length && expected.every((word, at) => word === cmdline[at]);
  return same(argv) || (spawnPrefix.length > 0 && same([...spawnPrefix, ...argv]));
}

/** Resolves true once the process is no longer `service` (gone, or its pid reused), false at the deadline. */
async function ended(pid: number, service: DialledService, spawnPrefix: readonly string[], withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (!isRunOf(await commandLineOf(pid), service.argv, spawnPrefix)) return true;
    if (Date.now() >= deadline) return false;
    await pause(POLL_MS);
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    // It ended meanwhile.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Stops a leftover `service`, if its pid file names a process running exactly its argument
 * vector: SIGTERM (pppd then ends its session and runs its link-down hook), SIGKILL if it is
 * still there after `graceMs`. Answers the pid stopped, or null when there was none.
 */
export async function stopLeftover(
  service: DialledService,
  options: { spawnPrefix?: readonly string[]; graceMs?: number } = {},
): Promise<number | null> {
  const spawnPrefix = options.spawnPrefix ?? [];
  const pid = await pidIn(service.pidFile);
  if (pid === null || pid === process.pid || !isRunOf(await commandLineOf(pid), service.argv, spawnPrefix)) return null;
  signal(pid, 'SIGTERM');
  if (await ended(pid, service, spawnPrefix, options.graceMs ?? STOP_GRACE_MS)) return pid;
  // Checked again just before: the pid is still that service's, not a newcomer's.
  if (isRunOf(await commandLineOf(pid), service.argv, spawnPrefix)) signal(pid, 'SIGKILL');
  if (!(await ended(pid, service, spawnPrefix, KILL_WAIT_MS))) throw new Error(`${service.argv[0]} (pid ${pid}) left by an earlier run did not end`);
  return pid;
}
