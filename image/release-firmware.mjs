// `npm run release -- --key <vendor-private.pem>`: packs a built image (image/out/portico.img)
// into the signed firmware file the device's upgrade takes (System → Maintenance → firmware
// upgrade; the format is apps/daemon/src/domains/maintain/maintain-firmware-image.ts):
//
//   "PORTFW01" | header length (u32 BE) | header JSON | Ed25519 signature of the three | payload
//
// The payload is slot a's kernel and initramfs from the EFI partition and the root file system
// of slot a, gzip-compressed (mostly free blocks; the device unpacks it into its other slot).
// Everything is streamed: the root is 1–2 GB. Beside the file, `<file>.json` is the update
// server's description of it ({ version, board, url, size }). Commands run with argument arrays.
import { createHash, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { IMAGE_LAYOUT } from './image-layout.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const FIRMWARE_MAGIC = Buffer.from('PORTFW01', 'latin1');
export const FIRMWARE_BOARD = 'x86-64';
const SECTOR = 512;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} … exited ${result.status}: ${String(result.stderr).trim()}`);
  return result.stdout;
}

/** The vendor's Ed25519 private key; anything else is refused so a wrong file never signs. */
export function vendorKey(file) {
  const key = createPrivateKey(readFileSync(file));
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 private key`);
  return key;
}

/**
 * A test vendor's key pair (the VM tier builds its image trusting it and signs its firmware
 * with it), made once under `dir` and kept; never a real vendor's key.
 */
export function testVendorKey(dir = join(here, 'out', 'test-vendor')) {
  const privateFile = join(dir, 'firmware-signing-private.pem');
  const publicFile = join(dir, 'firmware-signing.pem');
  if (!existsSync(privateFile) || !existsSync(publicFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pair = generateKeyPairSync('ed25519');
    writeFileSync(privateFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(publicFile, pair.publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  }
  return { privateFile, publicFile };
}

/** Partitions of a GPT disk image by name: byte offset and size. */
export function partitions(image) {
  const table = JSON.parse(run('sfdisk', ['--json', image])).partitiontable;
  const sector = table.sectorsize ?? SECTOR;
  return Object.fromEntries((table.partitions ?? []).map((part) => [part.name, { offset: part.start * sector, size: part.size * sector }]));
}

/** The version a root file system carries in /etc/portico-release (read with debugfs, no mount). */
export function rootVersion(root, offset = 0) {
  const text = run('debugfs', ['-R', 'cat /etc/portico-release', offset ? `${root}?offset=${offset}` : root], { stdio: ['ignore', 'pipe', 'pipe'] });
  const version = /^PORTICO_VERSION=(\d{1,6}(?:\.\d{1,6}){0,3})$/m.exec(text)?.[1];
  if (!version) throw new Error(`no PORTICO_VERSION in the root's /etc/portico-release`);
  return version;
}

/**
 * Writes the signed file `out` from `parts` ({ name, file, offset?, size?, gzip? }) in order.
 * The payload goes to a temporary file first (its size and digest belong in the signed header
 * in front of it), then is streamed behind the header; the file appears whole or not at all.
 */
export async function packFirmware({ parts, version, privateKey, out, board = FIRMWARE_BOARD, gzipLevel = 6 }) {
  const payloadFile = `${out}.payload`;
  const partial = `${out}.partial`;
  mkdirSync(dirname(out), { recursive: true });
  const hash = createHash('sha256');
  const described = [];
  try {
    const payload = createWriteStream(payloadFile, { mode: 0o644 });
    for (const part of parts) {
      const size = part.size ?? statSync(part.file).size - (part.offset ?? 0);
      let carried = 0;
      const counter = new Transform({
        transform(chunk, _encoding, done) {
          carried += chunk.length;
          hash.update(chunk);
          done(null, chunk);
        },
      });
      const source = createReadStream(part.file, { start: part.offset ?? 0, end: (part.offset ?? 0) + size - 1 });
      const stages = part.gzip ? [source, createGzip({ level: gzipLevel }), counter] : [source, counter];
      // One payload stream for every part: each part's pipeline must leave it open.
      await pipeline(...stages, async function* (chunks) {
        for await (const chunk of chunks) if (!payload.write(chunk)) await new Promise((resolve) => payload.once('drain', resolve));
      });
      described.push(part.gzip ? { name: part.name, size: carried, encoding: 'gzip', unpackedSize: size } : { name: part.name, size: carried });
    }
    await new Promise((resolve, reject) => payload.end((error) => (error ? reject(error) : resolve())));
    const header = {
      format: 1,
      version,
      board,
      size: described.reduce((sum, part) => sum + part.size, 0),
      sha256: hash.digest('hex'),
      parts: described,
    };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(json.length);
    const prefix = Buffer.concat([FIRMWARE_MAGIC, length, json]);
    writeFileSync(partial, Buffer.concat([prefix, sign(null, prefix, privateKey)]), { mode: 0o644 });
    await pipeline(createReadStream(payloadFile), createWriteStream(partial, { flags: 'a' }));
    const fd = openSync(partial, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, out);
    const manifest = { version, board, url: basename(out), size: statSync(out).size };
    writeFileSync(`${out}.json`, `${JSON.stringify(manifest)}\n`);
    return { file: out, header, manifest };
  } finally {
    rmSync(payloadFile, { force: true });
    rmSync(partial, { force: true });
  }
}

/**
 * A built disk image as a firmware file: slot a's kernel and initramfs (copied out of the EFI
 * partition with mtools) and its root (the partition itself, or `root`, a root file system
 * image to ship instead), versioned by that root's /etc/portico-release.
 */
export async function releaseFirmware({ image = join(here, 'out', 'portico.img'), root, key, out, gzipLevel }) {
  if (!existsSync(image)) throw new Error(`${image} is missing: build the image first (npm run image)`);
  const privateKey = vendorKey(key);
  const table = partitions(image);
  const esp = table.EFI;
  const slotA = table[IMAGE_LAYOUT.slots.a];
  if (!esp || !slotA) throw new Error(`${image} has no EFI or ${IMAGE_LAYOUT.slots.a} partition`);
  const version = root ? rootVersion(root) : rootVersion(image, slotA.offset);
  const target = out ?? join(dirname(image), `portico-${version}.fw`);
  const staging = `${target}.boot`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const env = { ...process.env, MTOOLS_SKIP_CHECK: '1' };
    for (const name of ['vmlinuz', 'initrd.img']) run('mcopy', ['-n', '-i', `${image}@@${esp.offset}`, `::/portico-a/${name}`, join(staging, name)], { env });
    return await packFirmware({
      parts: [
        { name: 'kernel', file: join(staging, 'vmlinuz') },
        { name: 'initrd', file: join(staging, 'initrd.img') },
        root ? { name: 'root', file: root, gzip: true } : { name: 'root', file: image, offset: slotA.offset, size: slotA.size, gzip: true },
      ],
      version,
      privateKey,
      out: target,
      gzipLevel,
    });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i += 2) {
    const name = { '--image': 'image', '--root': 'root', '--key': 'key', '--out': 'out' }[argv[i]];
    if (!name || argv[i + 1] === undefined) throw new Error(`usage: release-firmware.mjs --key <vendor-private.pem> [--image <disk.img>] [--root <root.img>] [--out <file>]`);
    options[name] = argv[i + 1];
  }
  options.key ??= process.env.PORTICO_FIRMWARE_SIGNING_KEY;
  if (!options.key) throw new Error('no signing key: --key <vendor-private.pem> or PORTICO_FIRMWARE_SIGNING_KEY');
  return options;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const started = process.hrtime.bigint();
    const { file, header } = await releaseFirmware(parseArgs(process.argv.slice(2)));
    const root = header.parts.find((part) => part.name === 'root');
    const seconds = Math.round(Number(process.hrtime.bigint() - started) / 1e8) / 10;
    process.stdout.write(`[release] ${JSON.stringify({ file, version: header.version, bytes: statSync(file).size, rootBytes: root.unpackedSize, rootPacked: root.size, seconds })}\n`);
  } catch (error) {
    console.error(`[release] failed: ${error.message}`);
    process.exit(1);
  }
}
