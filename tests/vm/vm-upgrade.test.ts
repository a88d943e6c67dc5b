import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { appendFileSync, closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { IMAGE_LAYOUT } from '../../image/image-layout.mjs';
import { partitions, releaseFirmware, rootVersion, testVendorKey } from '../../image/release-firmware.mjs';
import { IMAGE_FILE } from '../../image/vm-guest.mjs';
import { ApiSession } from '../e2e/e2e-harness.js';
import { BOOT_LIMIT_MS, guestWhileRebooting, consoleReady, poll, signIn, startVmGateway, UPSTREAM, vmPrerequisites, type AdminApi, type VmGateway } from './vm-gateway.js';

/**
 * The firmware upgrade of the router image (spec §4 firmware flow, §7 sysconf/bg*), for real:
 * image N boots trusting a test vendor's key; image N+1 — the same build, its root's
 * /etc/portico-release one version higher — is packed and signed by the release step
 * (image/release-firmware.mjs) and offered by an update server in the upstream namespace. Through
 * the console API: check → download → file check → upgrade. A tampered file is refused with the
 * §8 message before anything is written; a guest reset while slot b is written boots slot a
 * again; the upgrade proper comes back on slot b with version N+1, the boot entry blessed, and
 * the configuration of the state partition kept (the administrator's own password signs in).
 *
 * The disk is a QEMU snapshot and the guest may reboot within the one QEMU process, so every
 * write of the run (slot b, the boot entries) stays until the end of the file.
 */

const PASSWORD = 'VmUpgradePassw0rd';
const MSG_CORRUPT = 'msg.firmwareFlow.corrupt';
const ROOT_B = '/dev/disk/by-partlabel/portico-root-b';
const ENTRIES = '/boot/efi/loader/entries';
const FIRMWARE_FILE = `${IMAGE_LAYOUT.stateDir}/firmware/firmware.img`;

/** The image must trust the test vendor's key: `npm run vm` builds it so. */
function keyMismatch(): string | null {
  const built = join(dirname(IMAGE_FILE), 'build.json');
  const { publicFile } = testVendorKey();
  const id = createHash('sha256').update(createPublicKey(readFileSync(publicFile)).export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
  if (!existsSync(built) || (JSON.parse(readFileSync(built, 'utf8')) as { firmwareKey?: string }).firmwareKey !== id) {
    return 'the image was not built with the test vendor key (npm run vm builds it so)';
  }
  return null;
}

const skip = vmPrerequisites() ?? keyMismatch();

interface FlowStatus {
  operation: string | null;
  running: boolean;
  done: number;
  total: number | null;
  current: string;
  latest: { version: string; size: number; newer: boolean } | null;
  file: { version: string | null; size: number; verified: boolean } | null;
  error: { msg: string; reason: string | null } | null;
  upgraded: { version: string; keepConfig: boolean } | null;
  slots: { running: string; versions: Record<string, string | null>; trial: { slot: string; triesLeft: number } | null };
}

interface Release {
  version: string;
  file: string;
  bytes: number;
  payloadBytes: number;
  bootBytes: number;
  rootPacked: number;
  rootBytes: number;
  seconds: number;
}

let gw: VmGateway;
let admin: AdminApi;
let work: string;
let current: string;
let next: Release;
const figures: Record<string, unknown> = { test: 'upgrade' };
const round = (seconds: number) => Math.round(seconds * 10) / 10;
const since = (start: bigint) => round(Number(process.hrtime.bigint() - start) / 1e9);

function record() {
  if (process.env.PORTICO_VM_FIGURES) appendFileSync(process.env.PORTICO_VM_FIGURES, `${JSON.stringify(figures)}\n`);
}

/** One version higher in its last part: 0.1.0 → 0.1.1. */
function bumped(version: string): string {
  const parts = version.split('.').map(Number);
  parts[parts.length - 1]! += 1;
  return parts.join('.');
}

/** Copies `size` bytes at `offset` of `src` into a new sparse file (zero chunks left as holes). */
function extract(src: string, offset: number, size: number, out: string): void {
  const input = openSync(src, 'r');
  const output = openSync(out, 'w');
  const chunk = Buffer.alloc(4 << 20);
  const zero = Buffer.alloc(chunk.length);
  try {
    for (let position = 0; position < size; ) {
      const read = readSync(input, chunk, 0, Math.min(chunk.length, size - position), offset + position);
      if (read === 0) throw new Error('the image ends inside its root partition');
      if (chunk.compare(zero, 0, read, 0, read) !== 0) writeSync(output, chunk, 0, read, position);
      position += read;
    }
  } finally {
    closeSync(input);
    closeSync(output);
  }
  spawnSync('truncate', ['-s', String(size), out]);
}

/**
 * Image N+1, the cheapest honest way: slot a's root file system with /etc/portico-release one
 * version higher (debugfs, no mount), packed and signed by the release step like any release.
 */
async function releaseNext(): Promise<Release> {
  const started = process.hrtime.bigint();
  const slotA = partitions(IMAGE_FILE)[IMAGE_LAYOUT.slots.a]!;
  const version = bumped(current);
  const root = join(work, 'root-next.img');
  extract(IMAGE_FILE, slotA.offset, slotA.size, root);
  const release = join(work, 'portico-release');
  writeFileSync(release, `PORTICO_VERSION=${version}\n`, { mode: 0o644 });
  const commands = join(work, 'debugfs.cmd');
  writeFileSync(commands, `rm /etc/portico-release\nwrite ${release} /etc/portico-release\n`);
  const edited = spawnSync('debugfs', ['-w', '-f', commands, root], { encoding: 'utf8' });
  if (edited.status !== 0) throw new Error(`debugfs: ${edited.stderr}`);
  expect(rootVersion(root)).toBe(version);
  const serve = join(work, 'serve');
  const { file, header, manifest } = await releaseFirmware({ image: IMAGE_FILE, root, key: testVendorKey().privateFile, out: join(serve, `portico-${version}.fw`) });
  rmSync(root);
  copyFileSync(`${file}.json`, join(serve, 'manifest.json'));
  expect(manifest).toMatchObject({ version, board: 'x86-64', url: `portico-${version}.fw` });
  const rootPart = header.parts.find((part) => part.name === 'root')!;
  return {
    version,
    file,
    bytes: manifest.size,
    payloadBytes: header.size,
    bootBytes: header.size - rootPart.size,
    rootPacked: rootPart.size,
    rootBytes: rootPart.unpackedSize!,
    seconds: since(started),
  };
}

async function flow(): Promise<FlowStatus> {
  const reply = await admin.api.get('sysconf/bgcheck');
  expect(reply.success, JSON.stringify(reply)).toBe(true);
  return reply.data as FlowStatus;
}

async function start(path: string, body: Record<string, unknown> = {}): Promise<void> {
  const reply = await admin.api.post(path, body);
  expect(reply.success, JSON.stringify(reply)).toBe(true);
}

/** Waits for the step under way to end; answers its status and seconds. */
async function finished(timeoutMs: number): Promise<{ status: FlowStatus; seconds: number }> {
  const started = process.hrtime.bigint();
  const status = await poll(flow, (s) => !s.running, timeoutMs, 'the firmware step');
  return { status, seconds: since(started) };
}

/** A command in the guest that may be rebooting: '' until the agent answers again. */
const guest = (argv: string[]) => guestWhileRebooting(gw, argv);

/** What of slot b a refused or cut upgrade may have left: its file system, kernel, boot entries. */
async function slotB(): Promise<{ fileSystem: string; kernel: boolean; entries: string[] }> {
  const probe = await gw.vm.agent.exec(['/usr/sbin/blkid', '-p', '-o', 'value', '-s', 'TYPE', ROOT_B]);
  const kernel = (await gw.vm.agent.exec(['/usr/bin/test', '-e', '/boot/efi/portico-b'])).code === 0;
  const entries = (await gw.vm.agent.run(['/usr/bin/ls', ENTRIES])).split('\n').filter(Boolean).sort();
  return { fileSystem: probe.code === 0 ? probe.stdout.trim() : '', kernel, entries };
}

/** One byte of the downloaded file, as the guest holds it. */
async function byteAt(offset: number): Promise<number> {
  return Number((await gw.vm.agent.run(['/usr/bin/od', '-An', '-tu1', '-j', String(offset), '-N', '1', FIRMWARE_FILE])).trim());
}

async function writeByte(offset: number, value: number): Promise<void> {
  await gw.vm.agent.run(['/usr/bin/dd', `of=${FIRMWARE_FILE}`, 'bs=1', `seek=${offset}`, 'count=1', 'conv=notrunc,fsync', 'status=none'], { input: Uint8Array.of(value) });
}

async function signInAgain(): Promise<void> {
  const api = new ApiSession(gw.consoleUrl);
  const login = await api.login('admin', PASSWORD);
  expect(login.success, JSON.stringify(login)).toBe(true);
  admin = { ...admin, api };
}

describe.skipIf(skip !== null)(`the firmware upgrade of the router image${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'portico-vm-upgrade-'));
    current = rootVersion(IMAGE_FILE, partitions(IMAGE_FILE)[IMAGE_LAYOUT.slots.a]!.offset);
    gw = await startVmGateway({ reboot: true, firmwareDir: join(work, 'serve') });
    // Image N+1 is packed while image N boots.
    const [release] = await Promise.all([releaseNext(), gw.vm.booted(BOOT_LIMIT_MS)]);
    next = release;
    Object.assign(figures, {
      accel: gw.vm.accel,
      firmwareBytes: next.bytes,
      rootBytes: next.rootBytes,
      rootPackedBytes: next.rootPacked,
      releaseSeconds: next.seconds,
    });
    await consoleReady(gw);
    admin = await signIn(gw, PASSWORD);
    // The update server is a setting of the device (PORTICO_UPDATE_URL); the daemon reads it at its start.
    await gw.vm.agent.run(['/usr/bin/tee', '-a', '/etc/portico/portico.env'], { input: `PORTICO_UPDATE_URL=http://${UPSTREAM.address}:${UPSTREAM.httpPort}/firmware/manifest.json\n` });
    await gw.vm.agent.run(['/usr/bin/systemctl', 'restart', 'portico.service']);
    await consoleReady(gw);
    await signInAgain();
  }, 3 * BOOT_LIMIT_MS);

  afterAll(async () => {
    record();
    if (gw) {
      if (process.env.PORTICO_VM_SERIAL) appendFileSync(process.env.PORTICO_VM_SERIAL, gw.vm.serial());
      await gw.down();
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('the check offers N+1, the download brings it, and a tampered file is refused with nothing written', async () => {
    await start('sysconf/bgcheck');
    const checked = (await finished(120_000)).status;
    expect(checked.error).toBeNull();
    expect(checked.current).toBe(current);
    expect(checked.latest).toEqual({ version: next.version, size: next.bytes, newer: true });

    await start('sysconf/bgdownload');
    const download = await finished(900_000);
    expect(download.status.error).toBeNull();
    expect(download.status.file).toEqual({ version: next.version, size: next.bytes, verified: false });
    figures.downloadSeconds = download.seconds;

    // One byte of the root part changed on its way: the signature still verifies, the digest not.
    const offset = next.bytes - next.payloadBytes + next.bootBytes + Math.floor(next.rootPacked / 2);
    const original = await byteAt(offset);
    await writeByte(offset, original ^ 0xff);
    await start('sysconf/bgfilecheck');
    const refused = (await finished(600_000)).status;
    expect(refused.error).toEqual({ msg: MSG_CORRUPT, reason: 'digest' });
    // The console shows it as §8's "firmware file may be corrupt".
    const messages = JSON.parse(readFileSync(new URL('../../packages/i18n/src/locales/en-US/msg.json', import.meta.url), 'utf8')) as { firmwareFlow: { corrupt: string } };
    expect(messages.firmwareFlow.corrupt).toBe('Firmware file may be corrupt.');
    expect(refused.file?.verified).toBe(false);
    // The upgrade is refused too, and nothing of slot b exists.
    const upgrade = await admin.api.post('sysconf/bgupgrade', { keepConfig: true });
    expect(upgrade.success).toBe(false);
    expect(await slotB()).toEqual({ fileSystem: '', kernel: false, entries: ['portico-a.conf'] });

    await writeByte(offset, original);
    await start('sysconf/bgfilecheck');
    const check = await finished(600_000);
    expect(check.status.error).toBeNull();
    expect(check.status.file).toEqual({ version: next.version, size: next.bytes, verified: true });
    figures.fileCheckSeconds = check.seconds;
  }, 2_700_000);

  test('a guest reset while slot b is written boots slot a again', async () => {
    await start('sysconf/bgupgrade', { keepConfig: true });
    // The upgrade verifies the file once more (total: the file), then writes (total: the
    // payload); kernel and initramfs come first, then the root. Cut a tenth into the root.
    const cutAt = next.bootBytes + Math.floor(next.rootPacked / 10);
    const writing = await poll(flow, (s) => !s.running || (s.operation === 'upgrade' && s.total === next.payloadBytes && s.done > cutAt), 900_000, 'the root being written');
    expect(writing.running).toBe(true);
    await gw.vm.reset();
    const reset = process.hrtime.bigint();
    await expect.poll(() => guest(['/bin/cat', '/proc/uptime']), { timeout: BOOT_LIMIT_MS, interval: 1000 }).toMatch(/^\d/);
    await consoleReady(gw);
    figures.resetToConsoleSeconds = since(reset);
    expect(await gw.vm.agent.readFile('/proc/cmdline')).toContain('root=PARTLABEL=portico-root-a ');
    // The switch was never made: no entry for slot b.
    expect((await slotB()).entries).toEqual(['portico-a.conf']);
    await signInAgain();
    const status = await flow();
    expect(status.current).toBe(current);
    expect(status.slots).toMatchObject({ running: 'a', trial: null });
    // The downloaded file stays on the state partition for another try.
    expect(status.file).toMatchObject({ version: null, size: next.bytes, verified: false });
  }, 2_700_000);

  test('the upgrade comes back on slot b with version N+1 and the configuration kept', async () => {
    await start('sysconf/bgfilecheck');
    expect((await finished(600_000)).status.file).toEqual({ version: next.version, size: next.bytes, verified: true });
    const started = process.hrtime.bigint();
    await start('sysconf/bgupgrade', { keepConfig: true });
    const written = await poll(
      async () => {
        try {
          return await flow();
        } catch {
          return null;
        }
      },
      (s) => s === null || s.upgraded !== null || (!s.running && s.error !== null),
      1_800_000,
      'the upgrade written',
    );
    expect(written?.error ?? null).toBeNull();
    figures.upgradeSeconds = since(started);
    // The daemon restarts the device into slot b.
    const rebooting = process.hrtime.bigint();
    await expect.poll(() => guest(['/bin/cat', '/proc/cmdline']), { timeout: BOOT_LIMIT_MS, interval: 2000 }).toContain('root=PARTLABEL=portico-root-b ');
    await consoleReady(gw);
    figures.rebootToConsoleSeconds = since(rebooting);
    expect(await gw.vm.agent.readFile('/etc/portico-release')).toBe(`PORTICO_VERSION=${next.version}\n`);
    // The configuration is the state partition's: the administrator's own password still signs in.
    await signInAgain();
    const status = await flow();
    expect(status.current).toBe(next.version);
    expect(status.slots.running).toBe('b');
    expect(status.slots.versions).toEqual({ a: current, b: next.version });
    // systemd-boot booted the entry on trial; once the daemon answered, the boot check blessed it.
    await expect.poll(async () => (await slotB()).entries, { timeout: 300_000, interval: 2000 }).toEqual(['portico-a.conf', 'portico-b.conf']);
    expect(await gw.vm.agent.readFile(`${ENTRIES}/portico-b.conf`)).toContain(`version ${next.version}\n`);
    expect((await slotB()).fileSystem).toBe('ext4');
  }, 2_700_000);
});
