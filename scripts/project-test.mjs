// `npm test`: install, build, type-check, then every suite (unit, API, browser) in one
// Vitest run that ends with one summary line: "tests: N passed, N failed".
import { build, ensureChromium, install, run, step } from './project-steps.mjs';

install();
build();
ensureChromium();
step('typecheck', run('node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit']));
const status = run('node_modules/.bin/vitest', [
  'run',
  '--reporter=default',
  '--reporter=./scripts/vitest-summary-reporter.mjs',
  ...process.argv.slice(2),
]);
process.exit(status);
