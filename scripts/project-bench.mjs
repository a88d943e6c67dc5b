// `npm run bench`: install and build as `npm start` does, then every tests/bench/*.bench.mjs,
// each printing one JSON line of figures. Budgets are reported in the line; BENCH_STRICT=1
// makes a breach fail the run. Each benchmark runs under a time limit (LIMIT_SECONDS): past
// it, it is stopped and its line is `{"bench": …, "error": …}`. Benchmarks written in
// TypeScript (they drive daemon modules) are bundled with esbuild first.
// Arguments pick benchmarks by name: `npm run bench -- qos-rules hotspot` runs those only.
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build as buildApps, install } from './project-steps.mjs';
import { runBenchmark } from './time-limit.mjs';

/**
 * Bundled, every module would see the bundle's own `import.meta.url`; the daemon's modules find
 * files they ship beside themselves through it (the DHCP hook, the operator files, the QoS
 * ingress classifier), so each keeps the address of its own source.
 */
const ownModuleUrl = {
  name: 'own-module-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]apps[\\/]daemon[\\/].*\.(ts|mjs)$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: extname(args.path) === '.ts' ? 'ts' : 'js' };
    });
    // The same for CommonJS dependencies that read files beside themselves through __dirname
    // (node-radius's dictionaries): the ESM bundle has no __dirname of its own.
    b.onLoad({ filter: /[\\/]node_modules[\\/]radius[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      return { contents: source.replaceAll('__dirname', JSON.stringify(dirname(args.path))), loader: 'js' };
    });
  },
};

/**
 * Time limit of each benchmark, seconds: several times what it takes here (tests/bench/README.md),
 * since the machine is shared. BENCH_TIMEOUT_SECONDS sets one limit for all.
 */
const LIMIT_SECONDS = {
  'console-bundle': 120,
  'daemon-startup': 300,
  'network-apply': 300,
  'firewall-apply': 300,
  'qos-rules': 900,
  'hotspot-authorise': 1800,
  'hotspot-throughput': 900,
  'hotspot-restart': 300,
  'hotspot-portal-storm': 1200,
  'wireless-controller': 1500,
  'hotspot-radius': 300,
};
const DEFAULT_LIMIT_SECONDS = 600;

function limitMs(name) {
  const override = Number(process.env.BENCH_TIMEOUT_SECONDS);
  return (override > 0 ? override : (LIMIT_SECONDS[name] ?? DEFAULT_LIMIT_SECONDS)) * 1000;
}

// The benchmarks read the built daemon and bundles (apps/*/dist), like `npm start`.
install();
buildApps();

const wanted = process.argv.slice(2);
// BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/p" profiles a benchmark (Node refuses these in NODE_OPTIONS).
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const files = readdirSync('tests/bench')
  .filter((f) => /\.bench\.(mjs|ts)$/.test(f))
  .filter((f) => wanted.length === 0 || wanted.some((name) => f.includes(name)))
  .sort();
let failed = 0;
for (const file of files) {
  let entry = resolve('tests/bench', file);
  if (file.endsWith('.ts')) {
    const { build } = createRequire(resolve('apps/daemon/package.json'))('esbuild');
    const outfile = join(resolve('tests/bench'), `.${file.replace(/\.ts$/, '')}.built.mjs`);
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: ['better-sqlite3'],
      plugins: [ownModuleUrl],
      logLevel: 'warning',
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
    entry = outfile;
  }
  const name = file.replace(/\.bench\.(mjs|ts)$/, '');
  if (!(await runBenchmark(name, process.execPath, [...nodeFlags, entry], { limitMs: limitMs(name) }))) failed += 1;
  if (file.endsWith('.ts')) rmSync(entry, { force: true });
}

process.exit(failed ? 1 : 0);
