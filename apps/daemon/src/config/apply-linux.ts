import { join } from 'node:path';
import type { CommandRunner } from '../engine/command-runner.js';
import type { DomainRegistry } from './config-domains.js';
import type { ConfigApplier } from './config-types.js';
import { activationHandlers, type TargetActivation } from './domain-module.js';
import type { RenderedFile } from '../engine/engine-types.js';
import { renderAndInstall } from './apply-install.js';

/**
 * Makes installed files live on a Debian-style system, in the order given (the renderers
 * choose it: links and addresses before routes, rules and the firewall). Each file goes to
 * the activation of the module that brought its format, or that claims its target; a file no
 * module activates (a format checked only) stays installed.
 */
export function createLinuxActivator(options: { root: string; activations: readonly TargetActivation[] }) {
  const handlerFor = activationHandlers(options.activations);
  return {
    async activate(files: readonly RenderedFile[]): Promise<void> {
      for (const file of files) {
        await handlerFor(file)?.(file, join(options.root, file.target));
      }
    },
  };
}

/**
 * Applier of the linux driver: renders the domains, installs the files under `root` (the
 * system root, `/` on a device) after each passed its real checker, removes what is no longer
 * rendered, then makes the changed ones live in render order through the modules'
 * activations (ip batches, sysctl, nft, dnsmasq, tc …).
 */
export function createLinuxApplier(options: {
  root: string;
  run: CommandRunner;
  domains: DomainRegistry;
  spawnPrefix?: readonly string[];
  report?: (error: unknown) => void;
}): ConfigApplier {
  const activations = options.domains.activations('linux', {
    root: options.root,
    run: options.run,
    spawnPrefix: options.spawnPrefix,
    report: options.report,
  });
  const activator = createLinuxActivator({ root: options.root, activations });
  return {
    async apply(domains, snapshot, applyOptions) {
      const { files, changed } = await renderAndInstall(options, domains, snapshot);
      // A format whose files build on each other (ip batches) replays them all when one changed.
      const replay = new Set(changed.map((file) => file.check).filter((check) => options.domains.formats.get(check).replayTogether));
      const live = applyOptions?.full ? files : files.filter((file) => changed.includes(file) || replay.has(file.check));
      await activator.activate(live);
      for (const activation of activations) await activation.afterPass?.(live);
    },
    async reconnect(wan) {
      for (const activation of activations) {
        const done = await activation.reconnect?.(wan);
        if (done !== undefined) return done;
      }
      return false;
    },
    async stop() {
      for (const activation of [...activations].reverse()) await activation.stop?.();
    },
  };
}
