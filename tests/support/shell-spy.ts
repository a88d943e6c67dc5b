import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';
import { afterAll, expect } from 'vitest';

/**
 * Watches every process started in this test file, by the daemon or by the test itself, and
 * fails the file if one went through a shell: `exec`/`execSync` (always a shell), a `shell`
 * option, or a shell binary as the command. Installed as a vitest setup file, so every suite
 * that runs it — daemon, lab — checks the rule on everything it exercises.
 *
 * The builtin's functions are replaced on the module object and pushed to ESM importers with
 * `syncBuiltinESMExports`, so `import { spawn } from 'node:child_process'` (execa included)
 * sees the wrapper too.
 */

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash', 'busybox-sh', 'cmd.exe', 'powershell']);

interface Started {
  api: string;
  file: string;
  shell: boolean;
}

const started: Started[] = [];
const violations: string[] = [];

function record(api: string, file: unknown, args: unknown, options: unknown): void {
  const name = String(file ?? '');
  const opts = (Array.isArray(args) ? options : args) as { shell?: unknown } | undefined;
  const argv = Array.isArray(args) ? args.map(String) : [];
  const throughShell = api === 'exec' || api === 'execSync' || Boolean(opts && opts.shell);
  // busybox is a multi-call binary: `busybox sh …` is a shell, `busybox wget …` is not.
  const shellBinary = SHELLS.has(basename(name)) || (basename(name) === 'busybox' && SHELLS.has(argv[0] ?? ''));
  started.push({ api, file: name, shell: throughShell || shellBinary });
  if (throughShell || shellBinary) violations.push(`${api}(${JSON.stringify(name)}${argv.length ? `, ${JSON.stringify(argv.slice(0, 4))}` : ''})`);
}

type AnyFn = (...args: unknown[]) => unknown;
const target = childProcess as unknown as Record<string, AnyFn>;
for (const api of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork']) {
  const original = target[api]!;
  if ((original as { shellSpy?: boolean }).shellSpy) continue;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    record(api, args[0], args[1], args[2]);
    return original.apply(this, args);
  };
  Object.assign(wrapped, original, { shellSpy: true });
  target[api] = wrapped;
}
syncBuiltinESMExports();

/** What the spy saw in this file so far (for the test that proves it is watching). */
export function startedProcesses(): readonly Started[] {
  return started;
}

afterAll(() => {
  expect(violations, 'a process was started through a shell').toEqual([]);
});
