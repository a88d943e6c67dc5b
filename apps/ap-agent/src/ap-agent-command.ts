import { execa } from 'execa';

export interface CommandOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs one command given as an argument array. Every program the agent starts goes through one. */
export type CommandRunner = (argv: readonly string[], options?: { timeoutMs?: number }) => Promise<CommandOutput>;

/** A command that ran but did not do what was asked; the message names the program and its output. */
export class CommandFailure extends Error {
  constructor(
    readonly argv: readonly string[],
    readonly output: CommandOutput,
  ) {
    super(`${argv.slice(0, 6).join(' ')} failed (${output.exitCode}): ${(output.stderr || output.stdout).slice(0, 500)}`);
  }
}

/** execa without a shell, so no value can become syntax; NUL would cut an argument short. */
export const execaRunner: CommandRunner = async (argv, options = {}) => {
  const [file, ...args] = argv;
  if (!file || argv.some((a) => typeof a !== 'string' || a.includes('\0'))) throw new Error('a command is a non-empty array of strings without NUL');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const result = await execa(file, args, { shell: false, reject: false, timeout: timeoutMs, stripFinalNewline: true });
  // A command killed for its time limit has no exit code and often no output: say so.
  const why = result.timedOut ? `timed out after ${timeoutMs} ms` : '';
  return {
    exitCode: result.exitCode ?? (result.failed ? 1 : 0),
    stdout: String(result.stdout ?? ''),
    stderr: [String(result.stderr || (why ? '' : (result.message ?? ''))), why].filter(Boolean).join('\n'),
  };
};

/** Runs a command and returns its standard output, or throws CommandFailure when it exits non-zero. */
export async function runChecked(run: CommandRunner, argv: readonly string[]): Promise<string> {
  const output = await run(argv);
  if (output.exitCode !== 0) throw new CommandFailure(argv, output);
  return output.stdout;
}
