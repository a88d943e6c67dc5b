// Console bundle weight, gzipped: the initial JS and CSS a first visit loads, and the largest
// route chunk. Budgets: initial JS <= 180 KB, CSS <= 40 KB, each route chunk <= 30 KB.
// The captive portal's bundle: <= 80 KB for everything it loads.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { report, reportError } from './bench-util.mjs';

const REPO = resolve(import.meta.dirname, '../..');

function gz(dist, file) {
  return gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
}

function analyse(app) {
  const dist = join(REPO, 'apps', app, 'dist');
  const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));
  const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
  const initial = new Set();
  const css = new Set();
  const walk = (key) => {
    const chunk = manifest[key];
    if (!chunk || initial.has(chunk.file)) return;
    initial.add(chunk.file);
    for (const c of chunk.css ?? []) css.add(c);
    for (const k of chunk.imports ?? []) walk(k);
  };
  walk(entryKey);
  const routes = Object.entries(manifest)
    .filter(([key, chunk]) => chunk.isDynamicEntry && /pages\/.*-page\.tsx$/.test(key))
    .map(([key, chunk]) => ({ route: key, kb: gz(dist, chunk.file) / 1024 }));
  const lazy = Object.entries(manifest)
    .filter(([key, chunk]) => chunk.isDynamicEntry && !/pages\/.*-page\.tsx$/.test(key))
    .map(([key, chunk]) => ({ module: key, kb: Number((gz(dist, chunk.file) / 1024).toFixed(1)) }));
  // The first load also fetches the language it shows (one chunk per language): count the
  // largest, so the figure is what a first visit really downloads.
  const languages = Object.entries(manifest).filter(([key, chunk]) => chunk.isDynamicEntry && /i18n\/src\/locales\/[^/]+\/index\.ts$/.test(key));
  const firstLanguage = languages.map(([, chunk]) => chunk.file).sort((a, b) => gz(dist, b) - gz(dist, a))[0];
  if (firstLanguage) initial.add(firstLanguage);
  const sum = (files) => [...files].reduce((n, f) => n + gz(dist, f), 0) / 1024;
  const largest = routes.reduce((a, b) => (b.kb > a.kb ? b : a), { route: '', kb: 0 });
  return {
    initial_js_kb: Number(sum(initial).toFixed(1)),
    initial_css_kb: Number(sum(css).toFixed(1)),
    route_chunks: routes.length,
    largest_route_chunk_kb: Number(largest.kb.toFixed(1)),
    largest_route: largest.route,
    lazy_modules: lazy,
  };
}

const missing = ['console', 'portal'].filter((app) => !existsSync(join(REPO, 'apps', app, 'dist', '.vite/manifest.json')));
if (missing.length > 0) {
  reportError('console-bundle', `no build of ${missing.join(' and ')} (apps/<app>/dist): run \`npm run build\` (npm run bench builds first)`);
  process.exit(1);
}
const consoleFigures = analyse('console');
const portal = analyse('portal');
const pass = report(
  'console-bundle',
  { ...consoleFigures, portal_total_js_kb: portal.initial_js_kb, portal_css_kb: portal.initial_css_kb },
  { initial_js_kb: 180, initial_css_kb: 40, largest_route_chunk_kb: 30, portal_total_js_kb: 80 },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
