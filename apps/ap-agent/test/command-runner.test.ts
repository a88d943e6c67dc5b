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
