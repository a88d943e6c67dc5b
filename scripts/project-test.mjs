// `npm test`: install, build, type-check, then every suite (unit, API, browser) in one
// Vitest run that ends with one summary line: "tests: N passed, N failed".
import { build, ensureTestPackages, install, run, step } from './project-steps.mjs';

install();
// Before the build, which compiles the eBPF classifier when clang is there.
ensureTestPackages();
build();
step('typecheck', run('node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit']));
// Every project but the network lab, which needs root and namespaces: `npm run lab`.
const projects = ['schema', 'i18n', 'daemon', 'console', 'portal', 'ap-agent', 'scripts', 'packaging', 'e2e'].flatMap((name) => ['--project', name]);
const status = run('node_modules/.bin/vitest', [
  'run',
  ...projects,
  '--reporter=default',
  '--reporter=./scripts/vitest-summary-reporter.mjs',
  ...process.argv.slice(2),
]);
process.exit(status);
