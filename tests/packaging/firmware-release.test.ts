import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { diskImage } from '../../image/build-image.mjs';
import { IMAGE_LAYOUT } from '../../image/image-layout.mjs';
import { releaseFirmware } from '../../image/release-firmware.mjs';
import { firmwarePublicKey, verifyFirmwareFile, payloadParts } from '../../apps/daemon/src/domains/maintain/maintain-firmware-image.js';
import { linuxSlotDevice } from '../../apps/daemon/src/domains/maintain/maintain-firmware-slots.js';

/**
 * The release step against a small disk laid out as the build lays it (ESP with slot a's kernel
 * and initramfs, root slots, state): the firmware file it writes is the one the daemon verifies
 * with the vendor's public key, and installing it writes slot a's exact kernel, initramfs and
 * root file system into slot b.
 */

const tools = ['/usr/sbin/sfdisk', '/usr/sbin/mkfs.ext4', '/usr/sbin/mkfs.vfat', '/usr/bin/mcopy', '/usr/sbin/debugfs'].filter((file) => !existsSync(file));
const skip = tools.length ? `missing ${tools.join(', ')} (Debian: fdisk, e2fsprogs, dosfstools, mtools)` : null;
const work = mkdtempSync(join(tmpdir(), 'portico-release-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function ok(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { encoding: 'utf8', env });
  expect(result.status, `${command}: ${result.stderr}`).toBe(0);
}

describe.skipIf(skip !== null)(`the firmware release step${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('packs slot a of a built disk into a signed file the device verifies and installs byte for byte', async () => {
    const tree = join(work, 'tree');
    mkdirSync(join(tree, 'etc'), { recursive: true });
    writeFileSync(join(tree, 'etc/portico-release'), 'PORTICO_VERSION=3.4.5\n');
    const root = join(work, 'root.img');
    ok('mkfs.ext4', ['-q', '-F', '-L', IMAGE_LAYOUT.rootLabel, '-d', tree, root, '8M']);
    const kernel = Buffer.alloc(70_000, 0x4b);
    const initrd = Buffer.alloc(90_000, 0x49);
    writeFileSync(join(work, 'vmlinuz'), kernel);
    writeFileSync(join(work, 'initrd.img'), initrd);
    const esp = join(work, 'esp.img');
    ok('mkfs.vfat', ['-F', '32', '-C', esp, String(34 * 1024)]);
    const env = { ...process.env, MTOOLS_SKIP_CHECK: '1' };
    ok('mmd', ['-i', esp, '::/portico-a'], env);
    ok('mcopy', ['-i', esp, join(work, 'vmlinuz'), '::/portico-a/vmlinuz'], env);
    ok('mcopy', ['-i', esp, join(work, 'initrd.img'), '::/portico-a/initrd.img'], env);
    const state = join(work, 'state.img');
    ok('mkfs.ext4', ['-q', '-F', state, '4M']);
    const disk = join(work, 'disk.img');
    diskImage(disk, esp, root, state);

    const keys = generateKeyPairSync('ed25519');
    const keyFile = join(work, 'vendor.pem');
    writeFileSync(keyFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const { file, header, manifest } = await releaseFirmware({ image: disk, key: keyFile, out: join(work, 'out', 'fw.bin') });
    expect(manifest).toEqual({ version: '3.4.5', board: 'x86-64', url: 'fw.bin', size: readFileSync(file).length });
    expect(JSON.parse(readFileSync(`${file}.json`, 'utf8'))).toEqual(manifest);
    // Nothing of the work is left beside the file.
    expect(readdirSync(join(work, 'out')).sort()).toEqual(['fw.bin', 'fw.bin.json']);

    const publicPem = keys.publicKey.export({ type: 'spki', format: 'pem' });
    const image = await verifyFirmwareFile(file, firmwarePublicKey(publicPem), 1 << 30);
    expect(image.header).toEqual(header);
    const parts = payloadParts(image);
    expect(parts.map((part) => part.name)).toEqual(['kernel', 'initrd', 'root']);
    const rootPart = parts[2]!;
    // The root travels compressed: an 8 MiB file system of a few files is a few KiB.
    expect(rootPart.unpackedSize).toBe(8 * 1024 * 1024);
    expect(rootPart.size).toBeLessThan(rootPart.unpackedSize! / 20);

    // A device running slot a: what it writes into slot b is what the build made for slot a.
    const system = join(work, 'system');
    mkdirSync(join(system, 'proc'), { recursive: true });
    writeFileSync(join(system, 'proc/cmdline'), 'root=PARTLABEL=portico-root-a rw console=ttyS0\n');
    mkdirSync(join(system, 'dev/disk/by-partlabel'), { recursive: true });
    writeFileSync(join(system, 'dev/disk/by-partlabel/portico-root-b'), Buffer.alloc(8 * 1024 * 1024, 0xee));
    mkdirSync(join(system, 'boot/efi/loader/entries'), { recursive: true });
    writeFileSync(join(system, 'boot/efi/loader/entries/portico-a.conf'), 'title Portico 3.4.4\nsort-key portico\nversion 3.4.4\n');
    expect(await linuxSlotDevice(system).install(file, image, () => undefined)).toBe('b');
    expect(readFileSync(join(system, 'dev/disk/by-partlabel/portico-root-b')).equals(readFileSync(root))).toBe(true);
    expect(readFileSync(join(system, 'boot/efi/portico-b/vmlinuz')).equals(kernel)).toBe(true);
    expect(readFileSync(join(system, 'boot/efi/portico-b/initrd.img')).equals(initrd)).toBe(true);
    expect(readFileSync(join(system, 'boot/efi/loader/entries/portico-b+3.conf'), 'utf8')).toContain('version 3.4.5\n');
  });

  test('refuses a key that is not an Ed25519 private key', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = join(work, 'rsa.pem');
    writeFileSync(keyFile, rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await expect(releaseFirmware({ image: join(work, 'disk.img'), key: keyFile, out: join(work, 'rsa.bin') })).rejects.toThrow(/Ed25519/);
  });
});
