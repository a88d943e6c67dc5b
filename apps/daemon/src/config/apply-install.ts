import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandRunner } from '../engine/command-runner.js';
import type { RenderedFile } from '../engine/engine-types.js';
import { FileCheckError, installFiles, LINUX_CHECKS } from '../engine/file-install.js';
import { recreatingSets, staleDeclaredSets } from './nft-runtime-sets.js';
import type { DomainRegistry } from './config-domains.js';
import type { ConfigSnapshot } from './config-types.js';

/**
 * The first half of every real applier: render the domains, create the folders their services
 * write into, and install the files under `root` after each passed its checker. Returns every
 * rendered file and the ones that changed; the driver then makes them live its own way.
 */
export async function renderAndInstall(
  options: { root: string; run: CommandRunner; domains: DomainRegistry },
  domains: readonly string[],
  snapshot: ConfigSnapshot,
): Promise<{ files: RenderedFile[]; changed: RenderedFile[] }> {
  const outputs = options.domains.render(domains, snapshot);
  const files = outputs.flatMap((output) => output.files);
  if (files.length === 0) return { files, changed: [] };
  for (const dir of outputs.flatMap((output) => output.dirs ?? [])) await mkdir(join(options.root, dir), { recursive: true });
  const install = { root: options.root, run: options.run, checks: LINUX_CHECKS };
  try {
    return { files, changed: await installFiles(files, install) };
  } catch (error) {
    // A ruleset refused because the kernel holds one of its runtime sets in an older shape
    // (nft-runtime-sets.ts): checked and installed again with those sets recreated.
    const index = error instanceof FileCheckError && error.checker === 'nft' ? files.findIndex((f) => f.target === error.target) : -1;
    const stale = index < 0 ? [] : await staleDeclaredSets(files[index]!.content, options.run);
    if (stale.length === 0) throw error;
    files[index] = { ...files[index]!, content: recreatingSets(files[index]!.content, stale) };
    return { files, changed: await installFiles(files, install) };
  }
}
