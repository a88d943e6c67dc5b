// Runs one benchmark as a child process under a time limit: a benchmark that hangs (a daemon
// that never listens, a lab command that never returns) is stopped, and says so.
import { spawn } from 'node:child_process';

/** How long a stopped benchmark gets between SIGTERM and SIGKILL. */
const GRACE_MS = 5000;

/**
 * Runs `command args` in its own process group, its stdout passed through line by line. The
 * result says whether it printed its JSON line (`{"bench": …}`). Past `limitMs` the whole group
 * (the benchmark and whatever it started) gets SIGTERM, then SIGKILL.
 * Resolves `{ status, timedOut, reported }`.
 */
export function runWithTimeLimit(command, args, { limitMs, env = process.env, cwd, stdout = process.stdout } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let reported = false;
    let timedOut = false;
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      stdout.write(chunk);
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      if (lines.some((line) => line.startsWith('{"bench"'))) reported = true;
    });
    const signalGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    let killTimer;
    const limitTimer = setTimeout(() => {
      timedOut = true;
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), GRACE_MS);
    }, limitMs);
    child.once('error', (error) => {
      clearTimeout(limitTimer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(limitTimer);
      clearTimeout(killTimer);
      if (pending.startsWith('{"bench"')) reported = true;
      // Whatever the benchmark left running in its group goes with it.
      if (timedOut) signalGroup('SIGKILL');
      resolve({ status: code ?? (signal ? 128 : 1), timedOut, reported });
    });
  });
}

/**
 * Runs one benchmark under its limit. When it ran out of time, or failed without its JSON line,
 * prints that line with an `error` saying why. Resolves true when the benchmark succeeded.
 */
export async function runBenchmark(name, command, args, options) {
  const { status, timedOut, reported } = await runWithTimeLimit(command, args, options);
  const out = options.stdout ?? process.stdout;
  const seconds = Math.round(options.limitMs / 1000);
  if (timedOut) {
    out.write(`${JSON.stringify({ bench: name, error: `no result within its time limit of ${seconds} s: stopped (BENCH_TIMEOUT_SECONDS changes the limit)`, pass: false })}\n`);
    return false;
  }
  if (status !== 0 && !reported) {
    out.write(`${JSON.stringify({ bench: name, error: `exited with status ${status} before printing its result (its error output is above)`, pass: false })}\n`);
  }
  return status === 0;
}
