import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { assetCompress } from '../../scripts/asset-compress.js';

type ModuleInfoOf = (id: string) => { importers: readonly string[]; dynamicImporters: readonly string[] } | null;

const CHARTS = /\/node_modules\/recharts\//;

/**
 * Whether a package module is used by recharts and nothing else. Rollup moves every
 * unassigned dependency of a manual chunk into it, so a helper recharts shares with Mantine
 * (clsx) must be assigned elsewhere or the whole chart chunk would join the first load.
 */
function chartOnly(id: string, infoOf: ModuleInfoOf, memo: Map<string, boolean>): boolean {
  if (CHARTS.test(id)) return true;
  if (!id.includes('/node_modules/')) return false;
  const known = memo.get(id);
  if (known !== undefined) return known;
  memo.set(id, true); // a cycle back to this module does not decide anything
  const info = infoOf(id);
  const importers = info ? [...info.importers, ...info.dynamicImporters] : [];
  const result = importers.length > 0 && importers.every((importer) => chartOnly(importer, infoOf, memo));
  memo.set(id, result);
  return result;
}

const chartMemo = new Map<string, boolean>();

/**
 * Vendor code is split by how it is used. React, the router and i18n are needed by every
 * page: one chunk each, cached across releases of the pages. Mantine is left to Rollup on
 * purpose: it is split per component, so the first load carries only the components of the
 * shell and each page brings the rest. zod comes only with pages that validate; recharts and
 * what only it uses come only with the lazily loaded charts.
 */
function vendorChunk(id: string, { getModuleInfo }: { getModuleInfo: ModuleInfoOf }): string | undefined {
  if (!id.includes('/node_modules/')) return undefined;
  if (/\/node_modules\/(react|react-dom|scheduler|react-router|cookie|set-cookie-parser)\//.test(id)) return 'vendor-react';
  if (/\/node_modules\/(i18next|react-i18next|html-parse-stringify|void-elements)\//.test(id)) return 'vendor-i18n';
  if (/\/node_modules\/zod\//.test(id)) return 'vendor-zod';
  if (chartOnly(id, getModuleInfo, chartMemo)) return 'vendor-charts';
  // Small helpers recharts shares with the rest (clsx): with the always-loaded vendor code.
  if (getModuleInfo(id)?.importers.some((importer) => CHARTS.test(importer))) return 'vendor-react';
  return undefined;
}

export default defineConfig({
  plugins: [react(), assetCompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    cssCodeSplit: true,
    chunkSizeWarningLimit: 400,
    rollupOptions: {
      // The schema package is declarations only: an unused entity must not drag zod into
      // the first load just because a constant of the same package is imported.
      treeshake: { moduleSideEffects: (id) => !id.includes('/packages/schema/') },
      output: {
        manualChunks: vendorChunk,
      },
    },
  },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
    },
  },
});
