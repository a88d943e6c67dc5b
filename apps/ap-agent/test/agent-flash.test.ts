import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandOutput, CommandRunner } from '../src/ap-agent-command.js';
import { flashAgentImage } from '../src/ap-agent-flash.js';
import { tempDir } from './agent-fixtures.js';

const NODE = '/usr/bin/node';
const RESTART = ['systemctl', 'restart', '--no-block', 'portico-agent.service'];

/** A Debian AP's layout: the installed program and a verified image downloaded beside the state. */
function unit(versionAnswer: CommandOutput) {
  const dir = tempDir();
  mkdirSync(join(dir, 'lib'));
  mkdirSync(join(dir, 'state'));
  const program = join(dir, 'lib', 'portico-agent.mjs');
  const image = join(dir, 'state', 'firmware-1.bin');
  writeFileSync(program, 'agent 1.0');
  writeFileSync(image, 'agent 2.0');
  const calls: string[][] = [];
  const run: CommandRunner = async (argv) => {
    calls.push([...argv]);
    if (argv[2] === '--version') return versionAnswer;
    return { exitCode: 0, stdout: '', stderr: '' };
  };
  return { dir, program, image, calls, run, flash: { program, restart: RESTART } };
}

describe('the Debian flash step', () => {
  it('checks the image runs, keeps the running program beside, puts the image in its place and restarts the service', async () => {
    const u = unit({ exitCode: 0, stdout: '2.0\n', stderr: '' });
    expect(await flashAgentImage(u.image, u.flash, u.run, NODE)).toBe('2.0');
    expect(u.calls).toEqual([[NODE, join(u.dir, 'lib', '.next-portico-agent.mjs'), '--version'], RESTART]);
    expect(readFileSync(u.program, 'utf8')).toBe('agent 2.0');
    expect(readFileSync(join(u.dir, 'lib', 'portico-agent.previous.mjs'), 'utf8')).toBe('agent 1.0');
    // The downloaded image is gone and no temporary file is left.
    expect(existsSync(u.image)).toBe(false);
    expect(existsSync(join(u.dir, 'lib', '.next-portico-agent.mjs'))).toBe(false);
  });

  it('replaces nothing and restarts nothing when the image does not run or says no version', async () => {
    for (const answer of [
      { exitCode: 1, stdout: '', stderr: 'SyntaxError' },
      { exitCode: 0, stdout: '', stderr: '' },
      { exitCode: 0, stdout: '2.0\n<script>', stderr: '' },
      { exitCode: 0, stdout: '2.0\u0007', stderr: '' },
    ]) {
      const u = unit(answer);
      await expect(flashAgentImage(u.image, u.flash, u.run, NODE)).rejects.toThrow(/does not run on this unit/);
      expect(u.calls).toEqual([[NODE, join(u.dir, 'lib', '.next-portico-agent.mjs'), '--version']]);
      expect(readFileSync(u.program, 'utf8')).toBe('agent 1.0');
      expect(existsSync(join(u.dir, 'lib', 'portico-agent.previous.mjs'))).toBe(false);
      expect(existsSync(join(u.dir, 'lib', '.next-portico-agent.mjs'))).toBe(false);
      expect(existsSync(u.image)).toBe(false);
    }
  });

  it('fails without running or restarting anything when the program\'s folder cannot be written', async () => {
    const u = unit({ exitCode: 0, stdout: '2.0\n', stderr: '' });
    const flash = { program: join(u.dir, 'absent', 'portico-agent.mjs'), restart: RESTART };
    await expect(flashAgentImage(u.image, flash, u.run, NODE)).rejects.toThrow(/ENOENT/);
    expect(u.calls).toEqual([]);
    expect(existsSync(u.image)).toBe(false);
    expect(readFileSync(u.program, 'utf8')).toBe('agent 1.0');
  });
});
