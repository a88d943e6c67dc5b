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
  // --frozen-lockfile: a fresh clone gets exactly what was tested. From the store alone first,
  // so a machine whose store holds every package installs without the registry; what the
  // store lacks is then fetched (--prefer-offline: the registry only for what is missing).
  const args = ['install', '--frozen-lockfile', '--reporter=append-only'];
  if (pnpm([...args, '--offline']) === 0) return;
  console.log('\nSome packages are not in the pnpm store: fetching them from the registry.');
  step('install', pnpm([...args, '--prefer-offline']));
}

export function build() {
  step('build', pnpm(['--filter', './apps/*', '--workspace-concurrency=1', 'run', 'build']));
}

export const CHROMIUM = process.env.PORTICO_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Debian packages the test command uses, by the file that shows each is there: Chromium for the
 * browser tests, clang for the eBPF classifier the build compiles and the root-only kernel tests
 * load (apps/daemon/bpf-build.mjs), shellcheck for the OpenWrt package's shell scripts
 * (tests/packaging/openwrt-feed.test.ts), sfdisk for the image's disk layout
 * (tests/packaging/image-disk.test.ts), OpenLDAP's server for the hotspot's LDAP sign-in
 * (apps/daemon/test/hotspot-ldap.test.ts, which also installs it when run on its own).
 */
const TEST_PACKAGES = { [CHROMIUM]: 'chromium', '/usr/bin/clang': 'clang', '/usr/bin/shellcheck': 'shellcheck', '/usr/sbin/sfdisk': 'fdisk', '/usr/sbin/slapd': 'slapd', '/usr/bin/ldapsearch': 'ldap-utils', '/usr/bin/curl': 'curl' };

/**
 * On a machine where we are root, installs what is missing from Debian's packages; otherwise
 * says exactly what is needed. Without clang only the root-only classifier tests are left out,
 * and they need root anyway; without shellcheck its check says it was skipped; without Chromium
 * the browser tests cannot run.
 */
export function ensureTestPackages() {
  const missing = () => Object.entries(TEST_PACKAGES).filter(([file]) => !existsSync(file)).map(([, pkg]) => pkg);
  if (missing().length === 0) return;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.log(`Installing ${missing().join(', ')} from Debian packages for the tests...`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    run('apt-get', ['update', '-qq'], { env });
    // One by one: a package that cannot be had leaves the others installed.
    for (const pkg of missing()) run('apt-get', ['install', '-y', '-qq', pkg], { env });
  }
  const left = missing();
  if (left.includes('chromium')) {
    console.error(`Browser tests need Chromium at ${CHROMIUM} (Debian: apt-get install chromium).`);
    process.exit(1);
  }
  if (left.length) console.warn(`Missing Debian packages: ${left.join(', ')}; the tests that need them say they were skipped.`);
}
