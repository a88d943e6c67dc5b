// Compiles the health monitor's packet helper (src/domains/health/health-l2probe.c) into
// dist/portico-l2probe with the system's C compiler. `node apps/daemon/l2probe-build.mjs` from
// anywhere; build.mjs runs it too. Without a compiler nothing is built and the health monitor
// reports its LAN probes as not running (domains/health/health-sources.ts).
import { execa } from 'execa';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const L2PROBE_SOURCE = join(here, 'src', 'domains', 'health', 'health-l2probe.c');
export const L2PROBE_BUILT = join(here, 'dist', 'portico-l2probe');

export function findCompiler(path = process.env.PATH ?? '') {
  for (const name of ['cc', 'gcc', 'clang']) for (const dir of path.split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return null;
}

/**
 * Compiles one C helper unless `out` is newer than its source; resolves to its path, or null
 * without a compiler. `libs` are linker arguments after the source (e.g. -lssl).
 */
export async function compileHelper({ source, out, cc = findCompiler(), libs = [] }) {
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs) return out;
  if (!cc) return null;
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.${process.pid}.tmp`;
  await execa(cc, ['-O2', '-Wall', '-Wextra', '-Werror', '-o', partial, source, ...libs]);
  renameSync(partial, out);
  return out;
}

/** Builds the helper unless it is newer than its source; resolves to its path, or null without a compiler. */
export async function buildL2Probe({ out = L2PROBE_BUILT, cc = findCompiler() } = {}) {
  return compileHelper({ source: L2PROBE_SOURCE, out, cc });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildL2Probe();
  console.log(built ? `built ${built}` : 'no C compiler found: the health monitor packet helper is not built (LAN probes do not run)');
}
