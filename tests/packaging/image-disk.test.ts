import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readSync, closeSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { diskImage } from '../../image/build-image.mjs';
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
  test('is a GPT with the EFI partition then the root, each holding what was made for it', () => {
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

    const disk = join(work, 'disk.img');
    diskImage(disk, esp, root);
    const listed = spawnSync('sfdisk', ['--json', disk], { encoding: 'utf8' });
    expect(listed.status).toBe(0);
    const table = (JSON.parse(listed.stdout) as { partitiontable: { label: string; sectorsize: number; partitions: Array<{ start: number; size: number; type: string; name: string }> } }).partitiontable;
    expect(table.label).toBe('gpt');
    const [efi, rootPart] = table.partitions;
    expect(efi).toMatchObject({ start: 2048, size: espBytes.length / 512, type: 'C12A7328-F81F-11D2-BA4B-00A0C93EC93B', name: 'EFI' });
    expect(rootPart).toMatchObject({ start: 2048 + espBytes.length / 512, size: statSync(root).size / 512, type: '4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709', name: IMAGE_LAYOUT.rootLabel });
    expect(readAt(disk, efi!.start * 512, 16).toString()).toBe('PORTICO-ESP-MARK');
    // ext4's superblock: 1024 bytes in, magic 0xEF53 at 56, the volume label at 120.
    const superblock = readAt(disk, rootPart!.start * 512 + 1024, 256);
    expect(superblock.readUInt16LE(56)).toBe(0xef53);
    expect(superblock.subarray(120, 136).toString().replace(/\0+$/, '')).toBe(IMAGE_LAYOUT.rootLabel);
    // The backup table at the end is intact: sfdisk reads the disk without complaint.
    expect(spawnSync('sfdisk', ['--verify', disk], { encoding: 'utf8' }).status).toBe(0);
  });
});
