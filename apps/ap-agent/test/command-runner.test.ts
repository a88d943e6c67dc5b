import { expect, test } from 'vitest';
import { CommandFailure, execaRunner, runChecked } from '../src/ap-agent-command.js';

test('a command killed for its time limit fails with a message that says so', async () => {
  const output = await execaRunner(['sleep', '5'], { timeoutMs: 100 });
  expect(output.exitCode).not.toBe(0);
  expect(output.stderr).toContain('timed out after 100 ms');
  await expect(runChecked((argv) => execaRunner(argv, { timeoutMs: 100 }), ['sleep', '5'])).rejects.toThrow(CommandFailure);
});

test('a command that fails keeps its own output', async () => {
  const output = await execaRunner(['ls', '/nonexistent-portico-path']);
  expect(output.exitCode).not.toBe(0);
  expect(output.stderr).toMatch(/nonexistent-portico-path/);
  expect(output.stderr).not.toContain('timed out');
});

test('a scan the radio refuses as busy is tried again; anything else fails at once', async () => {
  const { IwControl, SCAN_BUSY_TRIES } = await import('../src/ap-agent-iw.js');
  const busy = { exitCode: 240, stdout: '', stderr: 'command failed: Device or resource busy (-16)' };
  const calls: string[][] = [];
  let left = 2;
  const iw = new IwControl(async (argv) => {
    calls.push([...argv]);
    return left-- > 0 ? busy : { exitCode: 0, stdout: '', stderr: '' };
  }, 0);
  expect(await iw.scan('wlan0', { active: true })).toEqual([]);
  expect(calls).toHaveLength(3);
  expect(calls[0]).toEqual(['iw', 'dev', 'wlan0', 'scan', 'ap-force']);

  const always = new IwControl(async () => busy, 0);
  await expect(always.scan('wlan0', { active: true })).rejects.toThrow(/-16/);
  let other = 0;
  const refused = new IwControl(async () => {
    other += 1;
    return { exitCode: 237, stdout: '', stderr: 'command failed: Operation not supported (-95)' };
  }, 0);
  await expect(refused.scan('wlan0', { active: true })).rejects.toThrow(/-95/);
  expect(other).toBe(1);
  expect(SCAN_BUSY_TRIES).toBeGreaterThan(1);
});
