import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommandRunner } from './command-runner.js';
import type { RenderedFile } from './engine-types.js';
import type { FormatRegistry } from './file-format.js';
import { readManifest, staleTargets, writeManifest, type InstallManifest } from './install-manifest.js';

export class FileCheckError extends Error {
  constructor(
    readonly target: string,
    readonly checker: string,
    readonly detail: string,
  ) {
    super(`${target} failed its ${checker} check: ${detail}`);
  }
}

export interface InstallOptions {
  root: string;
  run: CommandRunner;
  formats: FormatRegistry;
  /** Run each format's own tool (`command`) on the candidate; false: builtin checks only (sim). */
  tools: boolean;
}

async function writeDurably(path: string, content: string, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function syncDir(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function checkCandidate(file: RenderedFile, tmp: string, options: InstallOptions): Promise<void> {
  const problem = options.formats.builtinCheck(file.check, file.content);
  if (problem) throw new FileCheckError(file.target, file.check, problem);
  const argv = options.tools ? options.formats.get(file.check).command?.(tmp) : undefined;
  if (!argv) return;
  const result = await options.run(argv);
  if (result.exitCode !== 0) throw new FileCheckError(file.target, file.check, (result.stderr || result.stdout).slice(0, 2000));
}

interface Staged {
  file: RenderedFile;
  tmp: string;
  dest: string;
}

/** Writes every changed file beside its target and checks it; nothing is replaced yet. */
async function stage(files: readonly RenderedFile[], options: InstallOptions): Promise<Staged[]> {
  const staged: Staged[] = [];
  try {
    for (const file of files) {
      const dest = join(options.root, file.target);
      const current = await readFile(dest, 'utf8').catch(() => null);
      if (current === file.content) continue;
      await mkdir(dirname(dest), { recursive: true });
      const tmp = `${dest}.new-${randomBytes(4).toString('hex')}`;
      await writeDurably(tmp, file.content, file.mode ?? 0o644);
      staged.push({ file, tmp, dest });
      await checkCandidate(file, tmp, options);
    }
    return staged;
  } catch (error) {
    await Promise.all(staged.map(({ tmp }) => rm(tmp, { force: true })));
    throw error;
  }
}

async function commit(staged: readonly Staged[]): Promise<void> {
  for (const { tmp, dest } of staged) {
    await rename(tmp, dest);
    await syncDir(dirname(dest));
  }
}

/**
 * Puts rendered files in place under `root`: every changed file is written to a temporary
 * file beside its target and checked; only when ALL pass are they renamed over their targets
 * (atomic per file, fsynced). A file whose content is unchanged is left alone. Returns the
 * files that changed, in input order.
 */
export async function installFiles(files: readonly RenderedFile[], options: InstallOptions): Promise<RenderedFile[]> {
  const staged = await stage(files, options);
  await commit(staged);
  return staged.map((s) => s.file);
}

/** What one config domain rendered in an apply; `null`: it leaves what it installed as it is. */
export interface DomainFiles {
  domain: string;
  files: readonly RenderedFile[] | null;
}

/**
 * Installs what the domains rendered and removes what they installed before and render no
 * more (a deleted VPN client's secrets, a PPPoE WAN's peer file). The manifest under `root`
 * says which domain installed which file; it is rewritten, atomically, after the files. Every
 * new file passes its check before any file is replaced or removed.
 */
export async function installDomains(
  rendered: readonly DomainFiles[],
  options: InstallOptions,
): Promise<{ changed: RenderedFile[]; removed: string[] }> {
  const files = rendered.flatMap((entry) => entry.files ?? []);
  const manifest = await readManifest(options.root);
  const stale = staleTargets(manifest, rendered);
  const staged = await stage(files, options);
  await commit(staged);
  for (const target of stale) {
    const path = join(options.root, target);
    await rm(path, { force: true });
    await syncDir(dirname(path)).catch(() => undefined);
  }
  const next: Record<string, readonly string[]> = { ...manifest };
  for (const entry of rendered) if (entry.files !== null) next[entry.domain] = [...new Set(entry.files.map((file) => file.target))].sort();
  if (JSON.stringify(next) !== JSON.stringify(manifest)) await writeManifest(options.root, next);
  return { changed: staged.map((s) => s.file), removed: stale };
}
