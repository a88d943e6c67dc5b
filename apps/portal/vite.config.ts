import { defineConfig } from 'vite';
import { assetCompress } from '../../scripts/asset-compress.js';

// The captive portal is its own small bundle: hotspot clients load it over slow links before
// they are allowed anywhere else, so it carries Preact, not React, and no admin code.
export default defineConfig({
  base: '/portal-assets/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', assetsDir: '.', manifest: true, target: 'es2020' },
  plugins: [assetCompress()],
});
