// `npm start`: install, build, and serve the console on http://localhost:8080 with the
// embedded defaults (state under ./var, the sim driver). Settings come from the environment.
import { build, install, run } from './project-steps.mjs';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../apps/daemon/launch-flags.mjs';

install();
build();
// The daemon runs with the memory settings it is tuned for (apps/daemon/launch-flags.mjs).
const status = run(process.execPath, [...DAEMON_NODE_FLAGS, 'apps/daemon/dist/main.mjs'], {
  env: { PORTICO_STATE_DIR: 'var', ...process.env, ...DAEMON_ENV },
});
process.exit(status);
