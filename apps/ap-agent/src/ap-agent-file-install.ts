import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Writes files so that a reader sees the old content or the new, never part of either, and
 * after a power cut finds one of the two: the new content goes to a temporary file in the same
 * directory, is flushed to disk, renamed over the target, and the directory is flushed.
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface InstallResult {
  /** Paths whose content changed (new files included). */
  written: string[];
  removed: string[];
}

/**
 * Makes `dir` hold exactly `files`: each changed file is replaced atomically, unchanged ones are
 * not touched, and anything else in the directory (what an older configuration rendered) is
 * removed. The directory belongs to the agent.
 */
export async function installFiles(dir: string, files: ReadonlyArray<{ path: string; content: string; mode: number }>): Promise<InstallResult> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const written: string[] = [];
  for (const file of files) {
    if (dirname(file.path) !== dir) throw new Error(`${file.path} is outside ${dir}`);
    const current = await readFile(file.path, 'utf8').catch(() => null);
    if (current === file.content) continue;
    await writeFileAtomic(file.path, file.content, file.mode);
    written.push(file.path);
  }
  const wanted = new Set(files.map((f) => f.path));
  const removed: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    if (wanted.has(path)) continue;
    await rm(path, { force: true, recursive: true });
    removed.push(path);
  }
  return { written, removed };
}
