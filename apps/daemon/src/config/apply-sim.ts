import { join } from 'node:path';
import type { CommandRunner } from '../engine/command-runner.js';
import type { DomainRegistry } from './config-domains.js';
import type { ConfigApplier } from './config-types.js';
import { renderAndInstall } from './apply-install.js';

const noCommands: CommandRunner = async (argv) => {
  throw new Error(`the sim driver runs no commands (asked for ${argv[0] ?? '?'})`);
};

/**
 * Applier of the sim driver: renders the domains and keeps the files under
 * `<stateDir>/rendered/<target>`, checked (by the formats' builtin checks: the host's tools are
 * not asked), replaced atomically and removed when no longer rendered, like the real ones, so
 * what the device would run can be read on any machine.
 */
export function createSimApplier(options: { stateDir: string; domains: DomainRegistry }): ConfigApplier {
  const root = join(options.stateDir, 'rendered');
  return {
    async apply(domains, snapshot) {
      await renderAndInstall({ root, run: noCommands, domains: options.domains, tools: false }, domains, snapshot);
    },
  };
}
