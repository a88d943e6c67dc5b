import { defineConfig } from 'vitest/config';

/**
 * Limits sized for a shared 2-core machine under load, where a test may run several times
 * slower than on an idle one. They only bound a test that hangs or a condition that never
 * holds: waits end as soon as their condition holds (expect.poll, vi.waitFor with the harness's
 * CONDITION_WAIT), so a passing run is no slower for them.
 */
const LOADED_MACHINE = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  expect: { poll: { timeout: 30_000, interval: 50 } },
};

// One run over every suite; `npm test` adds the summary line CI reads.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'schema', root: 'packages/schema', include: ['test/**/*.test.ts'], ...LOADED_MACHINE } },
      { test: { name: 'i18n', root: 'packages/i18n', include: ['test/**/*.test.ts'], ...LOADED_MACHINE } },
      { test: { name: 'daemon', root: 'apps/daemon', include: ['test/**/*.test.ts'], setupFiles: ['../../tests/support/shell-spy.ts'], ...LOADED_MACHINE } },
      { test: { name: 'console', root: 'apps/console', include: ['test/**/*.test.ts'], setupFiles: ['test/i18n-setup.ts'], ...LOADED_MACHINE } },
      { test: { name: 'portal', root: 'apps/portal', include: ['test/**/*.test.ts'], ...LOADED_MACHINE } },
      { test: { name: 'ap-agent', root: 'apps/ap-agent', include: ['test/**/*.test.ts'], setupFiles: ['../../tests/support/shell-spy.ts'], ...LOADED_MACHINE } },
      { test: { name: 'scripts', root: 'scripts', include: ['test/**/*.test.ts'], ...LOADED_MACHINE } },
      { test: { name: 'packaging', root: 'tests', include: ['packaging/**/*.test.ts'], ...LOADED_MACHINE } },
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
          // The gateway image under QEMU (`npm run vm`): one VM at a time, boots take minutes without KVM.
          name: 'vm',
          root: 'tests',
          include: ['vm/**/*.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 1_300_000,
          expect: { poll: { timeout: 120_000, interval: 250 } },
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          root: 'tests',
          include: ['e2e/**/*.test.ts'],
          ...LOADED_MACHINE,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
