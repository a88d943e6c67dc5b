import { join } from 'node:path';
import type { CommandRunner } from '../engine/command-runner.js';
import type { FileChecker } from '../engine/engine-types.js';
import { installFiles, LINUX_CHECKS, type CheckCommand } from '../engine/file-install.js';
import type { DomainRegistry } from './config-domains.js';
import type { ConfigApplier } from './config-types.js';

/** The sim driver touches nothing on the host: every checker is the daemon's own. */
const SIM_CHECKS = Object.fromEntries(Object.keys(LINUX_CHECKS).map((checker) => [checker, 'builtin'])) as Record<
  FileChecker,
  CheckCommand | 'builtin'
>;

const noCommands: CommandRunner = async (argv) => {
  throw new Error(`the sim driver runs no commands (asked for ${argv[0] ?? '?'})`);
};

/**
 * Applier of the sim driver: renders the domains and keeps the files under
 * `<stateDir>/rendered/<target>`, checked and replaced atomically like the real ones, so what
 * the device would run can be read on any machine.
 */
export function createSimApplier(options: { stateDir: string; domains: DomainRegistry }): ConfigApplier {
  const root = join(options.stateDir, 'rendered');
  return {
    async apply(domains, snapshot) {
      const files = options.domains.render(domains, snapshot).flatMap((output) => output.files);
      if (files.length === 0) return;
      await installFiles(files, { root, run: noCommands, checks: SIM_CHECKS });
    },
  };
}
