import { execa } from 'execa';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs one command. Every command the daemon starts goes through a runner. */
export type CommandRunner = (argv: readonly string[], options?: { input?: string; timeoutMs?: number }) => Promise<CommandResult>;

/**
 * The real runner: execa with an argument array and never a shell, so no value can become
 * syntax. Arguments are checked to be plain strings without NUL.
 */
export const runCommand: CommandRunner = async (argv, options = {}) => {
  const [file, ...args] = argv;
  if (!file || argv.some((a) => typeof a !== 'string' || a.includes('\0'))) {
    throw new Error('a command is a non-empty array of strings without NUL');
  }
  const result = await execa(file, args, {
    shell: false,
    reject: false,
    input: options.input,
    timeout: options.timeoutMs ?? 30_000,
    stripFinalNewline: true,
  });
  return {
    exitCode: result.exitCode ?? (result.failed ? 1 : 0),
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? result.message ?? ''),
  };
};
