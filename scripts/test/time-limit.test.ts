import { describe, expect, test, vi } from 'vitest';
import { runBenchmark } from '../time-limit.mjs';

/** Collects what the runner passes through and prints. */
function output() {
  let text = '';
  return { stream: { write: (chunk: string) => ((text += chunk), true) }, lines: () => text.split('\n').filter(Boolean) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const node = (script: string) => [process.execPath, ['-e', script]] as const;
// Generous for the children that end by themselves: the machine may be loaded.
const ROOMY = { limitMs: 120_000 };

describe('benchmarks under a time limit', () => {
  test('a benchmark that hangs is stopped with what it started, and its line says why', async () => {
    // The limit's clock is fake: it runs out when the test says, once the benchmark is under way.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const out = output();
      // A benchmark stuck waiting, with a child of its own that would outlive it.
      const [command, args] = node(
        "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log('child ' + c.pid); setInterval(() => {}, 1000);",
      );
      const done = runBenchmark('stuck', command, [...args], { limitMs: 1000, stdout: out.stream });
      while (!out.lines().some((line) => line.startsWith('child '))) await new Promise((r) => setImmediate(r));
      const grandchild = Number(/child (\d+)/.exec(out.lines()[0]!)![1]);
      expect(alive(grandchild)).toBe(true);
      vi.advanceTimersByTime(1000);
      expect(await done).toBe(false);
      const last = JSON.parse(out.lines().at(-1)!);
      expect(last).toMatchObject({ bench: 'stuck', pass: false });
      expect(last.error).toMatch(/time limit of 1 s: stopped/);
      // The whole group was killed once the benchmark was gone; the kernel reaps it at once.
      await vi.waitFor(() => expect(alive(grandchild)).toBe(false), { timeout: 30_000 });
    } finally {
      vi.useRealTimers();
    }
  }, 60_000);

  test('a benchmark that fails before its result gets a line with an error', async () => {
    const out = output();
    const [command, args] = node("console.error('no build'); process.exit(3);");
    expect(await runBenchmark('broken', command, [...args], { ...ROOMY, stdout: out.stream })).toBe(false);
    expect(JSON.parse(out.lines().at(-1)!)).toEqual({ bench: 'broken', error: expect.stringMatching(/status 3 before printing its result/), pass: false });
  }, 60_000);

  test('a benchmark that prints its own line keeps it, whatever its status', async () => {
    const out = output();
    const [command, args] = node('console.log(JSON.stringify({ bench: "fine", value: 1, pass: true }));');
    expect(await runBenchmark('fine', command, [...args], { ...ROOMY, stdout: out.stream })).toBe(true);
    expect(out.lines()).toEqual(['{"bench":"fine","value":1,"pass":true}']);

    const failed = output();
    const [command2, args2] = node('console.log(JSON.stringify({ bench: "over", pass: false })); process.exitCode = 1;');
    expect(await runBenchmark('over', command2, [...args2], { ...ROOMY, stdout: failed.stream })).toBe(false);
    expect(failed.lines()).toEqual(['{"bench":"over","pass":false}']);
  }, 60_000);
});
