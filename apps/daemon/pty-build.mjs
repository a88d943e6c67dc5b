// Compiles the browser terminal's PTY helper (src/domains/rtty/rtty-pty.c) into dist/portico-pty
// with the system's C compiler. `node apps/daemon/pty-build.mjs` from anywhere; build.mjs runs
// it too. Without a compiler nothing is built and /rtty says the terminal is not available.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileHelper, findCompiler } from './l2probe-build.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const PTY_SOURCE = join(here, 'src', 'domains', 'rtty', 'rtty-pty.c');
export const PTY_BUILT = join(here, 'dist', 'portico-pty');

/** Builds the helper unless it is newer than its source; resolves to its path, or null without a compiler. */
export async function buildPty({ out = PTY_BUILT, cc = findCompiler() } = {}) {
  // forkpty lives in libutil on older glibc; newer glibc and musl keep an empty libutil for it.
  return compileHelper({ source: PTY_SOURCE, out, cc, libs: ['-lutil'] });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildPty();
  console.log(built ? `built ${built}` : 'no C compiler found: the browser terminal helper is not built (/rtty is not available)');
}
