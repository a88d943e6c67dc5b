// Bundles the daemon into one ESM file: dist/main.mjs. better-sqlite3 stays external (native
// addon); @portico/schema is bundled from source. `node apps/daemon/build.mjs` from anywhere.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { chmodSync, copyFileSync, cpSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { buildQosIngressObject } from './bpf-build.mjs';
import { buildL2Probe } from './l2probe-build.mjs';
import { buildTlsTerm } from './tlsterm-build.mjs';
import { buildPty } from './pty-build.mjs';
import { NETWORK_HOOK_FILES } from './dist-files.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Leaves out code the daemon never runs, so it is neither parsed at start nor kept in memory:
 * - Fastify's Ajv and fast-json-stringify compilers: the daemon installs its own zod validator
 *   and JSON serialiser through `schemaController` (plugins/api-envelope.ts).
 * - glob: @fastify/static only uses it to pre-register one route per file (`wildcard: false`);
 *   the daemon serves files through reply.sendFile.
 * - zod's translations of its default messages: the daemon's messages are i18n keys.
 * - light-my-request: Fastify's `inject()`, which only tests call (on the sources, not the bundle).
 * - thread-stream: pino's worker-thread transports; the daemon logs to stdout, with no transport.
 * Each stand-in fails loudly if it is ever reached. The last two are required at the top of
 * modules that call them only on those paths, so their stand-in is a function that throws
 * when called or constructed, not when required.
 */
const leaveOutUnused = {
  name: 'leave-out-unused',
  setup(b) {
    b.onResolve({ filter: /^@fastify\/(ajv-compiler|fast-json-stringify-compiler)$/ }, (args) => ({ path: args.path, namespace: 'absent' }));
    b.onResolve({ filter: /^glob$/ }, (args) => ({ path: args.path, namespace: 'absent-glob' }));
    b.onResolve({ filter: /^(light-my-request|thread-stream)$/ }, (args) => ({ path: args.path, namespace: 'absent-when-called' }));
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'zod-locales', pluginData: args.resolveDir } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not part of the daemon bundle`)});`,
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'absent-when-called' }, (args) => ({
      contents: `module.exports = function absent() { throw new Error(${JSON.stringify(`${args.path} is not part of the daemon bundle`)}); };`,
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'absent-glob' }, () => ({
      contents: "module.exports = { glob() { throw new Error('glob is not part of the daemon bundle'); } };",
      loader: 'js',
    }));
    // Importers live in zod/v4/{classic,core}; the English messages are the default ones.
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from '../locales/en.js';",
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};

/**
 * node-radius reads its RFC dictionaries from `__dirname/../dictionaries` at first use; inside
 * the bundle that would be beside apps/daemon, so the bundle reads them from
 * `radius-dictionaries/` beside itself, where the build copies them (the hotspot's RADIUS).
 */
const radiusPackage = dirname(createRequire(import.meta.url).resolve('radius/package.json'));
const radiusDictionaries = {
  name: 'radius-dictionaries',
  setup(b) {
    b.onLoad({ filter: /[\\/]radius[\\/]lib[\\/]radius\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const from = 'path.normalize(__dirname + "/../dictionaries")';
      if (!source.includes(from)) throw new Error('node-radius no longer reads its dictionaries from where the build expects');
      return { contents: source.replace(from, 'path.normalize(__dirname + "/radius-dictionaries")'), loader: 'js' };
    });
  },
};

/**
 * find-my-way (Fastify's router) compiles, for every static segment of every route, a matcher
 * with `new Function`: each is a script of its own that V8 parses, compiles and keeps (its
 * source, function info and bytecode), a thousand of them for the daemon's routes, all made at
 * start. A closure over the segment compares the same characters with `startsWith`, which is
 * as exact (the compiled check skips the first character only because the caller has matched
 * it already) and costs one function for all; routing a request stays a few string compares.
 */
const routerPrefixMatch = {
  name: 'router-prefix-match',
  setup(b) {
    b.onLoad({ filter: /[\\/]find-my-way[\\/]lib[\\/]node\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const from = "return new Function('path', 'i', `'use strict'\\nreturn ${lines.join(' && ')}`) // eslint-disable-line";
      if (!source.includes(from)) throw new Error('find-my-way no longer compiles its prefix matchers where the build expects');
      return { contents: source.replace(from, 'return function matchPrefix (path, i) { return path.startsWith(prefix, i) }'), loader: 'js' };
    });
  },
};

/** The daemon, and the stack-floor server the idle-memory benchmark compares it with. */
const bundles = [
  ['main.ts', 'main.mjs'],
  ['floor/stack-floor-server.ts', 'stack-floor-server.mjs'],
];

/**
 * What the daemon imports only at first use (`import()`: the X.509 library, jose, the zip and
 * tar readers) is split into files under dist/lazy/, so a start neither parses nor compiles
 * it. Only libraries go there: a module of the daemon that finds files beside itself through
 * import.meta.url is reached from main.mjs and stays in it. Cleared first: chunk names carry a
 * hash, and a file left from an earlier build would ship for nothing.
 */
rmSync(join(here, 'dist', 'lazy'), { recursive: true, force: true });

for (const [entry, out] of bundles) await build({
  entryPoints: { [out.replace(/\.mjs$/, '')]: join(here, 'src', entry) },
  outdir: join(here, 'dist'),
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'lazy/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  plugins: [leaveOutUnused, radiusDictionaries, routerPrefixMatch],
  sourcemap: 'linked',
  legalComments: 'none',
  // V8 keeps the whole source in memory, as UTF-16 if a single comment holds a non-ASCII
  // character: minified and ASCII-only, it costs a fraction. Names are not kept: keepNames
  // wraps every function and class in a defineProperty call at start-up, which costs heap
  // (an own `name` property on thousands of functions) and runs hot enough to bring in the
  // optimising compiler. Stack traces map back to the sources through the .map file
  // (`node --enable-source-maps`).
  minify: true,
  keepNames: false,
  charset: 'ascii',
  // CommonJS dependencies call require() and use __dirname; give them both inside the ESM bundle.
  banner: {
    js: [
      "import { createRequire as __portico_createRequire } from 'node:module';",
      "import { fileURLToPath as __portico_fileURLToPath } from 'node:url';",
      "import { dirname as __portico_dirname } from 'node:path';",
      'const require = __portico_createRequire(import.meta.url);',
      'const __filename = __portico_fileURLToPath(import.meta.url);',
      'const __dirname = __portico_dirname(__filename);',
    ].join('\n'),
  },
});

// The network domain's hooks, beside the bundle (dist-files.mjs says which and why).
for (const { file, executable, domain = 'network' } of NETWORK_HOOK_FILES) {
  copyFileSync(join(here, 'src', 'domains', domain, file), join(here, 'dist', file));
  chmodSync(join(here, 'dist', file), executable ? 0o755 : 0o644);
}

// The operator definition files the device ships (domains/qos/qos-isp-defaults.ts reads them
// from isp/ beside the bundle).
cpSync(join(here, 'src', 'domains', 'qos', 'isp'), join(here, 'dist', 'isp'), { recursive: true, filter: (path) => !path.endsWith('.md') });

// node-radius's RFC dictionaries (see radiusDictionaries above).
cpSync(join(radiusPackage, 'dictionaries'), join(here, 'dist', 'radius-dictionaries'), { recursive: true });

// The eBPF classifier of `ifb-bpf` download shaping, when clang is there (bpf-build.mjs).
const ingressObject = await buildQosIngressObject();
if (!ingressObject) console.warn('clang not found: dist/qos-ingress-mark.o is not built; Smart QoS shapes download with ctinfo or on the LAN side');

// The health monitor's packet helper, when a C compiler is there (l2probe-build.mjs).
if (!(await buildL2Probe())) console.warn('no C compiler found: dist/portico-l2probe is not built; the health monitor does not probe the LANs');

// The wireless controller's TLS terminator, when a C compiler and OpenSSL's headers are there (tlsterm-build.mjs).
if (!(await buildTlsTerm())) console.warn('no C compiler or OpenSSL headers: dist/portico-tlsterm is not built; the wireless device listener terminates TLS in Node');

// The browser terminal's PTY helper, when a C compiler is there (pty-build.mjs).
if (!(await buildPty())) console.warn('no C compiler found: dist/portico-pty is not built; /rtty says the terminal is not available');
