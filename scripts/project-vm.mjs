// `npm run vm`: builds the gateway image (image/build-image.mjs) and runs the VM tier
// (tests/vm) against it under QEMU. Needs root (taps, namespaces). Prints one JSON line of
// figures at the end: image size and build time, boot to console with KVM and, where KVM is
// there, once more in software emulation (PORTICO_VM_SKIP_TCG=1 leaves that out).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage, ensureHostTools, mirrorReachable } from '../image/build-image.mjs';
import { accelerator } from '../image/vm-guest.mjs';
import { testVendorKey } from '../image/release-firmware.mjs';
import { build, install, run } from './project-steps.mjs';

/** What the VM tier runs on the host, besides what the image build needs. */
const VM_HOST_TOOLS = {
  'qemu-system-x86_64': 'qemu-system-x86',
  '/usr/share/ovmf/OVMF.fd': 'ovmf',
  busybox: 'busybox',
  dnsmasq: 'dnsmasq-base',
  ip: 'iproute2',
};

/**
 * VM test files left out of a plain `npm run vm` (and so of CI): the wireless proof boots five
 * simulated radios and plans channels from real scans, minutes of software emulation whose scans
 * a busy host can still make fail; it runs when named (`npm run vm -- vm/vm-wireless.test.ts`).
 * The firmware upgrade proof moves a 385 MB firmware file into the guest and writes a 1.75 GB
 * slot: about 30 minutes in software emulation on two busy cores, beyond CI's budget. The
 * fallback of a slot that never answers boots five times in a row, each try waiting out the
 * boot check's bound.
 */
const ON_DEMAND = ['vm-wireless.test.ts', 'vm-upgrade.test.ts', 'vm-boot-fallback.test.ts'];

install();
build();
let image;
try {
  ensureHostTools(VM_HOST_TOOLS);
  // The image trusts a test vendor's key, so the firmware upgrade test can sign images for it.
  image = buildImage({ firmwareKey: testVendorKey().publicFile });
} catch (error) {
  // The one failure that is not the project's: Debian's mirror out of reach from this machine.
  if (!(await mirrorReachable())) {
    console.log(`VM tier not run: Debian's package mirror cannot be reached from this machine (${error.message}).`);
    process.exit(0);
  }
  console.error(`image build failed: ${error.message}`);
  process.exit(1);
}
const figuresDir = mkdtempSync(join(tmpdir(), 'portico-vm-figures-'));
const figures = join(figuresDir, 'figures.jsonl');
const vitest = (args, env = {}) => run('node_modules/.bin/vitest', ['run', '--project', 'vm', '--reporter=default', ...args], { env: { ...process.env, PORTICO_VM_FIGURES: figures, ...env } });
// Without arguments, the files CI runs; the on-demand ones (ON_DEMAND) run when named, or all
// with PORTICO_VM_ALL=1.
const named = process.argv.slice(2);
const files = named.length || process.env.PORTICO_VM_ALL === '1' ? named : readdirSync('tests/vm').filter((f) => f.endsWith('.test.ts') && !ON_DEMAND.includes(f)).map((f) => `vm/${f}`);
let status = vitest(files);
// Boot to console once more in software emulation, for the figure of a host without KVM.
if (status === 0 && accelerator() === 'kvm' && process.env.PORTICO_VM_SKIP_TCG !== '1') status = vitest(['vm/vm-boot.test.ts'], { PORTICO_VM_ACCEL: 'tcg' });
const runs = existsSync(figures) ? readFileSync(figures, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
console.log(JSON.stringify({ bench: 'vm-tier', image: { bytes: image.bytes, buildSeconds: image.seconds, baseCached: image.baseCached, kernel: image.kernel }, runs }));
rmSync(figuresDir, { recursive: true, force: true });
process.exit(status);
