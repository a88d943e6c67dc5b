import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { signFirmware, verifyFirmwareFile } from '../src/domains/maintain/maintain-firmware-image.js';
import {
  beginTrial,
  confirmBoot,
  fileSlotDevice,
  initialBootState,
  linuxSlotDevice,
  selectBoot,
  targetSlot,
  TRIAL_TRIES,
} from '../src/domains/maintain/maintain-firmware-slots.js';
import { tempDir } from './daemon-harness.js';

const keys = generateKeyPairSync('ed25519');
const MAX = 1 << 24;

async function signedFile(version: string, payload: Buffer, parts?: Parameters<typeof signFirmware>[3]) {
  const file = join(tempDir('portico-slot-img-'), 'fw.img');
  writeFileSync(file, signFirmware(payload, version, keys.privateKey, parts));
  return { file, image: await verifyFirmwareFile(file, keys.publicKey, MAX) };
}

describe('A/B boot selection', () => {
  test('a new slot boots on trial and becomes the good one once a boot confirms it', () => {
    let state = initialBootState('1.0.0');
    expect(targetSlot(state)).toBe('b');
    state = beginTrial(state, 'b', '1.1.0');
    state = selectBoot(state);
    expect(state).toMatchObject({ running: 'b', good: 'a', trial: { slot: 'b', triesLeft: TRIAL_TRIES - 1 } });
    expect(targetSlot(state)).toBeNull();
    state = confirmBoot(state);
    expect(state).toMatchObject({ running: 'b', good: 'b', trial: null, versions: { a: '1.0.0', b: '1.1.0' } });
    expect(targetSlot(state)).toBe('a');
  });

  test('a new slot that never confirms falls back to the old one after its tries', () => {
    let state = beginTrial(initialBootState('1.0.0'), 'b', '1.1.0');
    for (let i = 0; i < TRIAL_TRIES; i++) {
      state = selectBoot(state);
      expect(state.running).toBe('b');
    }
    state = selectBoot(state);
    expect(state).toMatchObject({ running: 'a', good: 'a', trial: null });
    // The good slot is never an upgrade's target.
    expect(() => beginTrial(state, 'a', '1.2.0')).toThrow();
  });
});

describe('sim slots on files', () => {
  test('install writes the other slot, the next boot runs it, a confirmed boot keeps it', async () => {
    const dir = tempDir('portico-slots-');
    const device = fileSlotDevice(dir, '1.0.0');
    device.boot();
    expect(device.view()).toMatchObject({ running: 'a', versions: { a: '1.0.0', b: null } });
    const payload = Buffer.alloc(200_000, 3);
    const { file, image } = await signedFile('1.1.0', payload);
    const progress: number[] = [];
    expect(await device.install(file, image, (n) => progress.push(n))).toBe('b');
    expect(progress.at(-1)).toBe(payload.length);
    expect(readFileSync(join(dir, 'slot-b.img')).equals(payload)).toBe(true);
    expect(device.view()).toMatchObject({ running: 'a', trial: { slot: 'b', triesLeft: TRIAL_TRIES } });
    device.boot();
    device.confirm();
    expect(device.view()).toMatchObject({ running: 'b', good: 'b', trial: null, versions: { a: '1.0.0', b: '1.1.0' } });
  });

  test('a kill while the slot is written leaves the switch unmade: the old image boots', async () => {
    const dir = tempDir('portico-slots-');
    const device = fileSlotDevice(dir, '1.0.0');
    // The state as a kill mid-copy leaves it: part of the slot written, boot.json untouched.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'slot-b.img.part'), Buffer.alloc(1000));
    device.boot();
    expect(device.view()).toMatchObject({ running: 'a', trial: null });
  });

  test('an image that never comes up: the tries run out and the old slot boots again', async () => {
    const dir = tempDir('portico-slots-');
    const device = fileSlotDevice(dir, '1.0.0');
    const { file, image } = await signedFile('1.1.0', Buffer.alloc(5000, 1));
    await device.install(file, image, () => undefined);
    for (let i = 0; i < TRIAL_TRIES; i++) {
      device.boot(); // and no confirm: the new image's daemon never answered
      expect(device.view().running).toBe('b');
    }
    device.boot();
    expect(device.view()).toMatchObject({ running: 'a', good: 'a', trial: null });
  });

  test('no second upgrade while the running image is not confirmed', async () => {
    const device = fileSlotDevice(tempDir('portico-slots-'), '1.0.0');
    const first = await signedFile('1.1.0', Buffer.alloc(5000, 1));
    await device.install(first.file, first.image, () => undefined);
    device.boot();
    const second = await signedFile('1.2.0', Buffer.alloc(5000, 2));
    await expect(device.install(second.file, second.image, () => undefined)).rejects.toThrow(/not confirmed/);
  });
});

describe('linux slots: partitions and systemd-boot entries under the system root', () => {
  function systemRoot(running: 'a' | 'b') {
    const root = tempDir('portico-linux-slots-');
    mkdirSync(join(root, 'proc'), { recursive: true });
    writeFileSync(join(root, 'proc/cmdline'), `initrd=\\portico-a\\initrd.img root=PARTLABEL=portico-root-${running} rw console=ttyS0 quiet\n`);
    mkdirSync(join(root, 'dev/disk/by-partlabel'), { recursive: true });
    for (const slot of ['a', 'b']) writeFileSync(join(root, `dev/disk/by-partlabel/portico-root-${slot}`), Buffer.alloc(64 * 1024));
    mkdirSync(join(root, 'boot/efi/loader/entries'), { recursive: true });
    writeFileSync(join(root, 'boot/efi/loader/entries/portico-a.conf'), 'title Portico 1.0.0\nsort-key portico\nversion 1.0.0\n');
    return root;
  }

  const kernel = Buffer.alloc(1000, 0x4b);
  const initrd = Buffer.alloc(2000, 0x49);
  const rootfs = Buffer.alloc(30_000, 0x52);
  const payload = Buffer.concat([kernel, initrd, rootfs]);
  const parts = { parts: [{ name: 'kernel' as const, size: 1000 }, { name: 'initrd' as const, size: 2000 }, { name: 'root' as const, size: 30_000 }] };

  test('writes the inactive partition, the kernel beside it and, last, an entry on trial', async () => {
    const root = systemRoot('a');
    const device = linuxSlotDevice(root);
    expect(device.view()).toMatchObject({ running: 'a', unavailable: null, versions: { a: '1.0.0', b: null } });
    const { file, image } = await signedFile('1.1.0', payload, parts);
    expect(await device.install(file, image, () => undefined)).toBe('b');
    const partition = readFileSync(join(root, 'dev/disk/by-partlabel/portico-root-b'));
    expect(partition.subarray(0, rootfs.length).equals(rootfs)).toBe(true);
    expect(readFileSync(join(root, 'dev/disk/by-partlabel/portico-root-a')).every((b) => b === 0)).toBe(true);
    expect(readFileSync(join(root, 'boot/efi/portico-b/vmlinuz')).equals(kernel)).toBe(true);
    expect(readFileSync(join(root, 'boot/efi/portico-b/initrd.img')).equals(initrd)).toBe(true);
    expect(readdirSync(join(root, 'boot/efi/loader/entries')).sort()).toEqual(['portico-a.conf', `portico-b+${TRIAL_TRIES}.conf`]);
    expect(readFileSync(join(root, `boot/efi/loader/entries/portico-b+${TRIAL_TRIES}.conf`), 'utf8')).toBe(
      [
        'title Portico 1.1.0',
        'sort-key portico',
        'version 1.1.0',
        'linux /portico-b/vmlinuz',
        'initrd /portico-b/initrd.img',
        'options root=PARTLABEL=portico-root-b rw console=ttyS0 quiet',
        '',
      ].join('\n'),
    );
    expect(device.view()).toMatchObject({ running: 'a', trial: { slot: 'b', triesLeft: TRIAL_TRIES } });
  });

  test('a gzip root part is unpacked into the partition; one that unpacks to another size never gets its entry', async () => {
    const unpacked = Buffer.alloc(48_000, 0);
    unpacked.write('ext4 of 1.1.0', 1024);
    const packed = gzipSync(unpacked);
    const gzParts = (unpackedSize: number) => ({
      parts: [
        { name: 'kernel' as const, size: kernel.length },
        { name: 'initrd' as const, size: initrd.length },
        { name: 'root' as const, size: packed.length, encoding: 'gzip' as const, unpackedSize },
      ],
    });
    const root = systemRoot('a');
    const seen: number[] = [];
    const good = await signedFile('1.1.0', Buffer.concat([kernel, initrd, packed]), gzParts(unpacked.length));
    expect(await linuxSlotDevice(root).install(good.file, good.image, (written, total) => seen.push(written / total))).toBe('b');
    expect(readFileSync(join(root, 'dev/disk/by-partlabel/portico-root-b')).subarray(0, unpacked.length).equals(unpacked)).toBe(true);
    expect(Math.max(...seen)).toBe(1);

    const other = systemRoot('a');
    const short = await signedFile('1.1.0', Buffer.concat([kernel, initrd, packed]), gzParts(unpacked.length + 1));
    await expect(linuxSlotDevice(other).install(short.file, short.image, () => undefined)).rejects.toThrow(/bytes/);
    const long = await signedFile('1.1.0', Buffer.concat([kernel, initrd, packed]), gzParts(unpacked.length - 1));
    await expect(linuxSlotDevice(other).install(long.file, long.image, () => undefined)).rejects.toThrow(/beyond/);
    expect(readdirSync(join(other, 'boot/efi/loader/entries'))).toEqual(['portico-a.conf']);
  });

  test('an image without its kernel is refused before anything is written', async () => {
    const root = systemRoot('a');
    const device = linuxSlotDevice(root);
    const { file, image } = await signedFile('1.1.0', rootfs);
    await expect(device.install(file, image, () => undefined)).rejects.toThrow(/kernel/);
    expect(readFileSync(join(root, 'dev/disk/by-partlabel/portico-root-b')).every((b) => b === 0)).toBe(true);
    expect(existsSync(join(root, 'boot/efi/portico-b'))).toBe(false);
  });

  test('running on trial (not blessed yet) refuses another upgrade; a system without slots says so', async () => {
    const root = systemRoot('b');
    writeFileSync(join(root, 'boot/efi/loader/entries/portico-b+2-1.conf'), 'title Portico 1.1.0\nversion 1.1.0\n');
    const { file, image } = await signedFile('1.2.0', payload, parts);
    await expect(linuxSlotDevice(root).install(file, image, () => undefined)).rejects.toThrow(/not confirmed/);
    const bare = tempDir('portico-linux-bare-');
    expect(linuxSlotDevice(bare).view().unavailable).not.toBeNull();
  });
});

describe('a download from a server that stops sending', () => {
  test('ends as a failed download after the idle time, keeping nothing and freeing the flow', async () => {
    const { FirmwareJob } = await import('../src/domains/maintain/maintain-firmware-job.js');
    const dir = tempDir('portico-stall-');
    const stalled: typeof fetch = async (input) => {
      if (String(input).endsWith('latest.json')) return new Response(JSON.stringify({ version: '9.0.0', url: 'fw.img', size: 1000 }));
      // Sends a little, then nothing, ever.
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new Uint8Array(10)) }), { headers: { 'content-length': '1000' } });
    };
    const job = new FirmwareJob({
      dir,
      now: () => 0,
      slots: fileSlotDevice(join(dir, 'slots'), '1.0.0'),
      fallbackVersion: '1.0.0',
      updateUrl: 'http://127.0.0.1:9/latest.json',
      restartSeconds: 8,
      key: () => keys.publicKey,
      fetch: stalled,
      idleTimeoutMs: 50,
      afterInstall: () => undefined,
      report: () => undefined,
    });
    job.check();
    await job.current;
    job.download();
    await job.current;
    expect(job.status()).toMatchObject({ running: false, file: null, error: { msg: 'msg.firmwareFlow.downloadFailed' } });
    expect(existsSync(join(dir, 'firmware.img'))).toBe(false);
    expect(existsSync(join(dir, 'firmware.img.part'))).toBe(false);
  });
});
