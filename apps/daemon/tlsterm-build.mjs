// Compiles the wireless controller's TLS terminator (src/domains/wireless/wireless-tlsterm.c)
// into dist/portico-tlsterm against the system's OpenSSL. `node apps/daemon/tlsterm-build.mjs`
// from anywhere; build.mjs runs it too. Without a compiler or OpenSSL's headers nothing is built
// and the device listener terminates TLS in Node (more memory per device: wireless README).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileHelper, findCompiler } from './l2probe-build.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const TLSTERM_SOURCE = join(here, 'src', 'domains', 'wireless', 'wireless-tlsterm.c');
export const TLSTERM_BUILT = join(here, 'dist', 'portico-tlsterm');

/** Builds the terminator unless it is newer than its source; resolves to its path, or null when it cannot be built here. */
export async function buildTlsTerm({ out = TLSTERM_BUILT, cc = findCompiler() } = {}) {
  if (!existsSync(out) && !existsSync('/usr/include/openssl/ssl.h')) return null;
  return compileHelper({ source: TLSTERM_SOURCE, out, cc, libs: ['-lssl', '-lcrypto'] });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildTlsTerm();
  console.log(built ? `built ${built}` : 'no C compiler or OpenSSL headers: the TLS terminator is not built (the device listener terminates TLS in Node)');
}
