// Bundles the agent into one ESM file, dist/ap-agent.mjs, with @portico/schema, zod and execa
// inside: the access point needs Node and this file only. `node apps/ap-agent/build.mjs` from anywhere.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { chmod, readFile } from 'node:fs/promises';

const here = dirname(fileURLToPath(import.meta.url));
// The version the agent reports when it is what gets flashed (settings `firmware.versionOf`):
// the package's, or PORTICO_AGENT_VERSION for a release; PORTICO_AGENT_OUT builds elsewhere than dist/.
const version = process.env.PORTICO_AGENT_VERSION?.trim() || JSON.parse(await readFile(join(here, 'package.json'), 'utf8')).version;
const out = process.env.PORTICO_AGENT_OUT?.trim() || join(here, 'dist');

const common = {
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
  // ws's optional native speed-ups; ws runs without them.
  external: ['bufferutil', 'utf-8-validate'],
  define: { __PORTICO_AGENT_VERSION__: JSON.stringify(version) },
};

// The library (startAgent / runAgentCli with any transport) and the executable over TLS WebSockets.
await build({ ...common, entryPoints: [join(here, 'src', 'ap-agent-main.ts')], outfile: join(out, 'ap-agent.mjs') });
await build({
  ...common,
  entryPoints: [join(here, 'src', 'ap-agent-cli.ts')],
  outfile: join(out, 'portico-agent.mjs'),
  banner: { js: `#!/usr/bin/env node\n${common.banner.js}` },
});
await chmod(join(out, 'portico-agent.mjs'), 0o755);
