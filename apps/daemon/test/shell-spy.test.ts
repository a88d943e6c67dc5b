import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../src/engine/command-runner.js';
import { startedProcesses } from '../../../tests/support/shell-spy.js';

describe('the shell spy (tests/support/shell-spy.ts) watches every process', () => {
  it('sees commands the daemon runs through execa, with no shell', async () => {
    const before = startedProcesses().length;
    const result = await runCommand(['node', '-e', 'process.stdout.write("x")']);
    expect(result.stdout).toBe('x');
    const seen = startedProcesses().slice(before);
    expect(seen.some((p) => p.file === 'node' || p.file.endsWith('/node'))).toBe(true);
    expect(seen.every((p) => !p.shell)).toBe(true);
  });

  it('sees direct spawns as well', async () => {
    const before = startedProcesses().length;
    await new Promise((done) => spawn('node', ['-e', ''], { stdio: 'ignore' }).once('exit', done));
    expect(startedProcesses().slice(before).map((p) => p.api)).toContain('spawn');
  });
});
