import type { CommandRunner } from './command-runner.js';

/**
 * The config engine's vocabulary (DESIGN §5). A domain renders typed configuration into files,
 * purely; a driver decides where the files go, checks them with their own checker, replaces
 * them atomically and runs the commands that make them live.
 */

/** The name of a registered file format (engine/file-format.ts), e.g. `nft`, `tc`, `none`. */
export type FileChecker = string;

export interface RenderedFile {
  /** Absolute path on the target system, e.g. `/etc/portico/nftables.nft`. */
  target: string;
  content: string;
  /** File mode; secrets are 0o600. */
  mode?: number;
  check: FileChecker;
}

/** What a domain renders for one driver: its files, in the order they must be applied. */
export interface RenderOutput {
  domain: string;
  files: RenderedFile[];
  /** Folders (absolute on the target) the domain's services write into. */
  dirs?: string[];
}

/** Every value that reaches a rendered file passes this first: no control characters ever. */
export function assertInert(value: string, what: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(value)) {
    throw new Error(`${what} carries a control character and cannot be rendered`);
  }
  return value;
}

/** Runs the command that makes `target` live; a failure names the file and what the command said. */
export async function activateWith(run: CommandRunner, target: string, argv: readonly string[]): Promise<void> {
  const result = await run(argv);
  if (result.exitCode !== 0) throw new ActivationError(target, (result.stderr || result.stdout).slice(0, 2000));
}

/** A file that passed its check but could not be made live (its command or service failed). */
export class ActivationError extends Error {
  constructor(
    readonly target: string,
    readonly detail: string,
  ) {
    super(`applying ${target} failed: ${detail}`);
  }
}
