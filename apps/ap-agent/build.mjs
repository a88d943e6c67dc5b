// Bundles the agent into one ESM file, dist/ap-agent.mjs, with @portico/schema, zod and execa
// inside: the access point needs Node and this file only. `node apps/ap-agent/build.mjs` from anywhere.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));

await build({
  entryPoints: [join(here, 'src', 'ap-agent-main.ts')],
  outfile: join(here, 'dist', 'ap-agent.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  // Small and ASCII-only: V8 keeps the source of a non-ASCII file as UTF-16. Stack traces map
  // back through the .map file (`node --enable-source-maps`).
  minify: true,
  charset: 'ascii',
  // execa's CommonJS dependencies call require(); give it to them inside the ESM bundle.
  banner: { js: "import { createRequire as __agent_createRequire } from 'node:module';\nconst require = __agent_createRequire(import.meta.url);" },
});
