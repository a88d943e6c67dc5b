// `npm start`: install, build, and serve the console on http://localhost:8080 with the
// embedded defaults (state under ./var, the sim driver). Settings come from the environment.
import { spawn } from 'node:child_process';
import { build, install } from './project-steps.mjs';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../apps/daemon/launch-flags.mjs';

install();
build();
// The daemon runs with the memory settings it is tuned for (apps/daemon/launch-flags.mjs).
// It runs as a child that is told of this process's stop signals: a supervisor's SIGTERM to
// `npm start` stops the daemon too instead of leaving it running without its parent.
const daemon = spawn(process.execPath, [...DAEMON_NODE_FLAGS, 'apps/daemon/dist/main.mjs'], {
  stdio: 'inherit',
  env: { PORTICO_STATE_DIR: 'var', ...process.env, ...DAEMON_ENV },
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => daemon.kill(signal));
daemon.on('error', (error) => {
  console.error(`cannot start the daemon: ${error.message}`);
  process.exit(1);
});
daemon.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
