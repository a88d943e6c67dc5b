import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandRunner } from '../engine/command-runner.js';
import type { RenderedFile } from '../engine/engine-types.js';
import { FileCheckError, installDomains, type DomainFiles } from '../engine/file-install.js';
import { recreatingSets, staleDeclaredSets } from './nft-runtime-sets.js';
import { domainFiles, type DomainRegistry } from './config-domains.js';
import type { ConfigSnapshot } from './config-types.js';

/**
 * The first half of every applier: render the domains, create the folders their services
 * write into, install the files under `root` after each passed its checker (`tools`: the
 * formats' own tools too) and remove what the domains no longer render. Returns every
 * rendered file, the ones that changed and the targets removed; the driver then makes them
 * live its own way.
 */
export async function renderAndInstall(
  options: { root: string; run: CommandRunner; domains: DomainRegistry; tools?: boolean },
  domains: readonly string[],
  snapshot: ConfigSnapshot,
): Promise<{ files: RenderedFile[]; changed: RenderedFile[]; removed: string[] }> {
  const rendered = options.domains.renderEach(domains, snapshot);
  const outputs = rendered.flatMap((entry) => entry.outputs ?? []);
  for (const dir of outputs.flatMap((output) => output.dirs ?? [])) await mkdir(join(options.root, dir), { recursive: true });
  const perDomain = domainFiles(rendered);
  const files = perDomain.flatMap((entry) => entry.files ?? []);
  const install = { root: options.root, run: options.run, formats: options.domains.formats, tools: options.tools ?? true };
  try {
    return { files, ...(await installDomains(perDomain, install)) };
  } catch (error) {
    // A ruleset refused because the kernel holds one of its runtime sets in an older shape
    // (nft-runtime-sets.ts): checked and installed again with those sets recreated.
    const refused = error instanceof FileCheckError && error.checker === 'nft' ? files.find((f) => f.target === error.target) : undefined;
    const stale = refused ? await staleDeclaredSets(refused.content, options.run) : [];
    if (!refused || stale.length === 0) throw error;
    const fixed = { ...refused, content: recreatingSets(refused.content, stale) };
    const swap = (entry: DomainFiles): DomainFiles => ({ ...entry, files: entry.files?.map((f) => (f === refused ? fixed : f)) ?? null });
    const again = perDomain.map(swap);
    return { files: again.flatMap((entry) => entry.files ?? []), ...(await installDomains(again, install)) };
  }
}
