// `npm run lab`: the network lab suite (tests/lab) — network namespaces, real traffic. Needs
// root; installs the Debian packages it uses (tests/lab/lab-packages.ts) when they are missing.
import { build, install, run } from './project-steps.mjs';

install();
build();
const status = run('node_modules/.bin/vitest', [
  'run',
  '--project',
  'lab',
  '--reporter=default',
  '--reporter=./scripts/vitest-summary-reporter.mjs',
  ...process.argv.slice(2),
]);
process.exit(status);
