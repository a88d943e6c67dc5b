import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { diskImage, loaderConf, slotEntry } from '../../image/build-image.mjs';
import { IMAGE_LAYOUT } from '../../image/image-layout.mjs';

/**
 * The image's disk is laid out without loop devices or mounts: partitions are made as files and
 * copied in at the offsets sfdisk wrote into the GPT. Checked with sfdisk's own reading of the
 * table and the ext4 superblock found where the table says the root starts.
 */

const tools = ['/usr/sbin/sfdisk', '/usr/sbin/mkfs.ext4'].filter((file) => !existsSync(file));
const skip = tools.length ? `missing ${tools.join(', ')} (Debian: fdisk, e2fsprogs)` : null;
const work = mkdtempSync(join(tmpdir(), 'portico-disk-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function readAt(file: string, offset: number, length: number): Buffer {
  const fd = openSync(file, 'r');
  const out = Buffer.alloc(length);
  readSync(fd, out, 0, length, offset);
  closeSync(fd);
  return out;
}

describe.skipIf(skip !== null)(`the image's disk${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('is a GPT with the EFI partition, root slots a and b, and the state partition, each holding what was made for it', () => {
    const tree = join(work, 'tree');
    mkdirSync(join(tree, 'etc'), { recursive: true });
    writeFileSync(join(tree, 'etc/hostname'), 'portico\n');
    const root = join(work, 'root.img');
    expect(spawnSync('mkfs.ext4', ['-q', '-F', '-L', IMAGE_LAYOUT.rootLabel, '-d', tree, root, '8M']).status).toBe(0);
    // A stand-in ESP with a recognisable first sector.
    const esp = join(work, 'esp.img');
    const espBytes = Buffer.alloc(4 * 1024 * 1024);
    espBytes.write('PORTICO-ESP-MARK', 0);
    writeFileSync(esp, espBytes);

    const state = join(work, 'state.img');
    expect(spawnSync('mkfs.ext4', ['-q', '-F', '-L', IMAGE_LAYOUT.statePartLabel, state, '4M']).status).toBe(0);

    const disk = join(work, 'disk.img');
    diskImage(disk, esp, root, state);
    const listed = spawnSync('sfdisk', ['--json', disk], { encoding: 'utf8' });
    expect(listed.status).toBe(0);
    const table = (JSON.parse(listed.stdout) as { partitiontable: { label: string; sectorsize: number; partitions: Array<{ start: number; size: number; type: string; name: string }> } }).partitiontable;
    expect(table.label).toBe('gpt');
    const [efi, rootPart, slotB, statePart] = table.partitions;
    const rootSectors = statSync(root).size / 512;
    expect(efi).toMatchObject({ start: 2048, size: espBytes.length / 512, type: 'C12A7328-F81F-11D2-BA4B-00A0C93EC93B', name: 'EFI' });
    expect(rootPart).toMatchObject({ start: 2048 + espBytes.length / 512, size: rootSectors, type: '4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709', name: IMAGE_LAYOUT.slots.a });
    // Slot b is as large as slot a and empty until the first upgrade writes it.
    expect(slotB).toMatchObject({ start: rootPart!.start + rootSectors, size: rootSectors, type: '4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709', name: IMAGE_LAYOUT.slots.b });
    expect(readAt(disk, slotB!.start * 512, 4096).every((b) => b === 0)).toBe(true);
    expect(statePart).toMatchObject({ start: slotB!.start + rootSectors, size: statSync(state).size / 512, name: IMAGE_LAYOUT.statePartLabel });
    expect(readAt(disk, statePart!.start * 512 + 1024 + 120, 16).toString().replace(/\0+$/, '')).toBe(IMAGE_LAYOUT.statePartLabel);
    expect(readAt(disk, efi!.start * 512, 16).toString()).toBe('PORTICO-ESP-MARK');
    // ext4's superblock: 1024 bytes in, magic 0xEF53 at 56, the volume label at 120.
    const superblock = readAt(disk, rootPart!.start * 512 + 1024, 256);
    expect(superblock.readUInt16LE(56)).toBe(0xef53);
    expect(superblock.subarray(120, 136).toString().replace(/\0+$/, '')).toBe(IMAGE_LAYOUT.rootLabel);
    // The backup table at the end is intact: sfdisk reads the disk without complaint.
    expect(spawnSync('sfdisk', ['--verify', disk], { encoding: 'utf8' }).status).toBe(0);
  });
});

describe('boot entries of the A/B slots', () => {
  test('the loader boots the portico entries by version; slot a boots its own partition', () => {
    expect(loaderConf()).toContain('default portico-*\n');
    const entry = slotEntry('a', '1.0.0');
    expect(entry).toContain('linux /portico-a/vmlinuz\ninitrd /portico-a/initrd.img\n');
    expect(entry).toMatch(/^options root=PARTLABEL=portico-root-a rw /m);
    expect(IMAGE_LAYOUT.kernelOptions[0]).toBe(`root=PARTLABEL=${IMAGE_LAYOUT.slots.a}`);
  });

  test("an upgrade's entry for slot b is the build's entry for slot b, on trial", async () => {
    const { linuxSlotDevice, TRIAL_TRIES } = await import('../../apps/daemon/src/domains/maintain/maintain-firmware-slots.js');
    const { signFirmware, verifyFirmwareFile } = await import('../../apps/daemon/src/domains/maintain/maintain-firmware-image.js');
    const { generateKeyPairSync } = await import('node:crypto');
    const root = join(work, 'system');
    mkdirSync(join(root, 'proc'), { recursive: true });
    // The kernel command line of slot a as its entry gives it (systemd-boot adds initrd=).
    const optionsA = /^options (.*)$/m.exec(slotEntry('a', '1.0.0'))![1];
    writeFileSync(join(root, 'proc/cmdline'), `initrd=\\portico-a\\initrd.img ${optionsA}\n`);
    mkdirSync(join(root, 'dev/disk/by-partlabel'), { recursive: true });
    writeFileSync(join(root, `dev/disk/by-partlabel/${IMAGE_LAYOUT.slots.b}`), Buffer.alloc(8192));
    const keys = generateKeyPairSync('ed25519');
    const file = join(work, 'fw.img');
    writeFileSync(file, signFirmware(Buffer.alloc(300, 1), '1.1.0', keys.privateKey, { parts: [{ name: 'kernel', size: 100 }, { name: 'initrd', size: 100 }, { name: 'root', size: 100 }] }));
    const image = await verifyFirmwareFile(file, keys.publicKey, 1 << 20);
    await linuxSlotDevice(root).install(file, image, () => undefined);
    const written = readFileSync(join(root, `boot/efi/loader/entries/portico-b+${TRIAL_TRIES}.conf`), 'utf8');
    expect(written).toBe(slotEntry('b', '1.1.0'));
  });
});
