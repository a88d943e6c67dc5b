import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Which config domain installed which files (target paths), kept under the install root so
 * an apply can remove what a domain no longer renders, whatever the driver.
 */
export type InstallManifest = Readonly<Record<string, readonly string[]>>;

/**
 * Where the manifest lives, relative to the install root (`/` on a device): beside the files it
 * lists, under /etc, which survives a reboot on every target (OpenWrt's /var is a tmpfs, and a
 * manifest lost there would leave a removed row's files behind for good).
 */
export const MANIFEST_TARGET = '/etc/portico/installed-files.json';

const TARGET = /^\/[A-Za-z0-9._@/+-]{1,255}$/;

/** The manifest, or an empty one; entries that are not plain absolute paths are dropped. */
export async function readManifest(root: string): Promise<InstallManifest> {
  const text = await readFile(join(root, MANIFEST_TARGET), 'utf8').catch(() => null);
  if (text === null) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const out: Record<string, string[]> = {};
    for (const [domain, targets] of Object.entries(parsed)) {
      if (!Array.isArray(targets)) continue;
      // `..` never names a file of ours: a tampered manifest cannot make an apply remove others.
      out[domain] = targets.filter((t): t is string => typeof t === 'string' && TARGET.test(t) && !t.split('/').includes('..'));
    }
    return out;
  } catch {
    return {};
  }
}

/** Targets the rendered domains installed before and no domain renders now. */
export function staleTargets(
  manifest: InstallManifest,
  rendered: ReadonlyArray<{ domain: string; files: ReadonlyArray<{ target: string }> | null }>,
): string[] {
  const kept = new Set(rendered.flatMap((entry) => (entry.files ?? []).map((file) => file.target)));
  // A file another domain still claims (one that was not rendered in this apply) stays.
  const renderedNames = new Set(rendered.filter((entry) => entry.files !== null).map((entry) => entry.domain));
  for (const [domain, targets] of Object.entries(manifest)) if (!renderedNames.has(domain)) for (const t of targets) kept.add(t);
  const stale = new Set<string>();
  for (const domain of renderedNames) for (const target of manifest[domain] ?? []) if (!kept.has(target)) stale.add(target);
  return [...stale].sort();
}

export async function writeManifest(root: string, manifest: InstallManifest): Promise<void> {
  const path = join(root, MANIFEST_TARGET);
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.new-${randomBytes(4).toString('hex')}`;
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(manifest, null, 1)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}
