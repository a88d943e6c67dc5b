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
  // The first paint also fetches the core of the language it shows (locales/<lang>/core.ts, one
  // per language, with the chunks it imports): count the largest, so the figure is what a first
  // visit really waits for. The sections' strings (locales/<lang>/index.ts) load after it.
  const languages = Object.entries(manifest).filter(([key, chunk]) => chunk.isDynamicEntry && /i18n\/src\/locales\/[^/]+\/core\.ts$/.test(key));
  const closure = (key) => {
    const files = new Set();
    const visit = (k) => {
      const chunk = manifest[k];
      if (!chunk || files.has(chunk.file)) return;
      files.add(chunk.file);
      for (const c of chunk.imports ?? []) visit(c);
    };
    visit(key);
    return [...files];
  };
  const weight = (files) => files.reduce((n, f) => n + gz(dist, f), 0);
  const firstLanguage = languages.map(([key]) => closure(key)).sort((a, b) => weight(b) - weight(a))[0];
  for (const file of firstLanguage ?? []) initial.add(file);
  const allStrings = Object.entries(manifest).filter(([key, chunk]) => chunk.isDynamicEntry && /i18n\/src\/locales\/[^/]+\/index\.ts$/.test(key));
  const sectionsKb = allStrings.length ? Math.max(...allStrings.map(([key]) => weight(closure(key).filter((f) => !initial.has(f))))) / 1024 : 0;
  const sum = (files) => [...files].reduce((n, f) => n + gz(dist, f), 0) / 1024;
  const largest = routes.reduce((a, b) => (b.kb > a.kb ? b : a), { route: '', kb: 0 });
  return {
    initial_js_kb: Number(sum(initial).toFixed(1)),
    initial_css_kb: Number(sum(css).toFixed(1)),
    section_strings_kb: Number(sectionsKb.toFixed(1)),
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
