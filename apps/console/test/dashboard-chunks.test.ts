import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * Build-shape rules checked on the sources: recharts may only be reached through the lazily
 * imported chart module, so the dashboard's route chunk stays small; and no page renders
 * device text as markup.
 */
const SRC = resolve(import.meta.dirname, '../src');
const DASHBOARD = join(SRC, 'pages/dashboard');
const ENTITY = join(SRC, 'pages/entity');

const STATIC_IMPORT = /^\s*import\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /import\(\s*['"]([^'"]+)['"]\s*\)/g;

function resolveLocal(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  for (const ext of ['.ts', '.tsx']) if (existsSync(base + ext)) return base + ext;
  return null;
}

/** Bare package names and local files reachable through static (non-type) imports. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const spec = match[1]!;
      const local = resolveLocal(file, spec);
      if (local) queue.push(local);
      else if (!spec.startsWith('.')) packages.add(spec);
    }
  }
  return { files, packages };
}

describe('dashboard chunks', () => {
  const page = join(DASHBOARD, 'dashboard-page.tsx');

  test('the dashboard page does not reach recharts through static imports', () => {
    const graph = staticGraph(page);
    expect([...graph.packages].filter((p) => p.startsWith('recharts'))).toEqual([]);
    expect([...graph.files].map((f) => f.slice(SRC.length))).not.toContain('/pages/dashboard/load-chart.tsx');
  });

  test('the chart module is imported lazily and is the one that brings recharts', () => {
    const source = readFileSync(page, 'utf8');
    expect([...source.matchAll(DYNAMIC_IMPORT)].map((m) => m[1])).toContain('./load-chart.js');
    expect(staticGraph(join(DASHBOARD, 'load-chart.tsx')).packages).toContain('recharts');
  });

  test('the pure dashboard and entity modules tested in node stay free of React', () => {
    for (const file of ['dashboard/dashboard-model.ts', 'dashboard/load-chart-model.ts', 'dashboard/dashboard-poller.ts', 'entity/entity-form-model.ts', 'entity/entity-columns.ts']) {
      const { packages } = staticGraph(join(SRC, 'pages', file));
      expect([...packages].filter((p) => /^(react|@mantine|recharts)/.test(p)), file).toEqual([]);
    }
  });
});

describe('device text is never markup', () => {
  test('no page here uses dangerouslySetInnerHTML', () => {
    for (const dir of [DASHBOARD, ENTITY]) {
      for (const name of readdirSync(dir)) {
        expect(readFileSync(join(dir, name), 'utf8'), name).not.toContain('dangerouslySetInnerHTML');
      }
    }
  });
});
