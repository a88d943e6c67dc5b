// `npm run bench`: every tests/bench/*.bench.mjs, each printing one JSON line of figures.
// Budgets are reported in the line; BENCH_STRICT=1 makes a breach fail the run.
// Benchmarks written in TypeScript (they drive daemon modules) are bundled with esbuild first.
// Arguments pick benchmarks by name: `npm run bench -- qos-rules hotspot` runs those only.
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from './project-steps.mjs';

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
  },
};

const wanted = process.argv.slice(2);
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
  if (run(process.execPath, [entry]) !== 0) failed += 1;
  if (file.endsWith('.ts')) rmSync(entry, { force: true });
}

process.exit(failed ? 1 : 0);
