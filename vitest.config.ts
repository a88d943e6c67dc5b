import { defineConfig } from 'vitest/config';

// One run over every suite; `npm test` adds the summary line CI reads.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'schema', root: 'packages/schema', include: ['test/**/*.test.ts'] } },
      { test: { name: 'i18n', root: 'packages/i18n', include: ['test/**/*.test.ts'] } },
      { test: { name: 'daemon', root: 'apps/daemon', include: ['test/**/*.test.ts'], setupFiles: ['../../tests/support/shell-spy.ts'] } },
      { test: { name: 'console', root: 'apps/console', include: ['test/**/*.test.ts'], setupFiles: ['test/i18n-setup.ts'] } },
      { test: { name: 'portal', root: 'apps/portal', include: ['test/**/*.test.ts'] } },
      { test: { name: 'scripts', root: 'scripts', include: ['test/**/*.test.ts'] } },
      {
        test: {
          name: 'lab',
          root: 'tests',
          include: ['lab/**/*.test.ts'],
          setupFiles: ['support/shell-spy.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          root: 'tests',
          include: ['e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
