// `npm start`: install, build, and serve the console on http://localhost:8080 with the
// embedded defaults (state under ./var, the sim driver). Settings come from the environment.
import { build, install, run } from './project-steps.mjs';

install();
build();
const status = run(process.execPath, ['apps/daemon/dist/main.mjs'], {
  env: { PORTICO_STATE_DIR: 'var', ...process.env },
});
process.exit(status);
