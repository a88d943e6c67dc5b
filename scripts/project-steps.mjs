// The steps `npm start` and `npm test` share: install with the pinned pnpm, then build.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pnpm } from './pnpm.mjs';

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

export function step(label, status) {
  if (status !== 0) {
    console.error(`\n${label} failed (exit ${status}).`);
    process.exit(status);
  }
}

export function install() {
  // --frozen-lockfile: a fresh clone gets exactly what was tested.
  step('install', pnpm(['install', '--frozen-lockfile', '--reporter=append-only']));
}

export function build() {
  step('build', pnpm(['--filter', './apps/*', '--workspace-concurrency=1', 'run', 'build']));
}

export const CHROMIUM = process.env.PORTICO_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Browser tests drive Debian's Chromium. On a machine where we are root and it is missing,
 * install it from Debian's packages; otherwise say exactly what is needed.
 */
export function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.log('Installing chromium from Debian packages for the browser tests...');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    step('apt-get update', run('apt-get', ['update', '-qq'], { env }));
    step('apt-get install chromium', run('apt-get', ['install', '-y', '-qq', 'chromium'], { env }));
    return;
  }
  console.error(`Browser tests need Chromium at ${CHROMIUM} (Debian: apt-get install chromium).`);
  process.exit(1);
}
