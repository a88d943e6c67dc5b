import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { z } from 'zod';

/**
 * The router's signed firmware file (spec §4 firmware flow; DESIGN §8 "signed images"):
 *
 *   magic "PORTFW01" (8 bytes) | header length (u32 BE) | header (JSON) | Ed25519 signature (64) | payload
 *
 * The signature covers magic, length and header; the header names the payload's exact size and
 * SHA-256. So a file without the magic is unsigned, a changed header fails the signature, a
 * changed payload fails the digest, and a short or long file fails the size: all refused before
 * anything on the device changes.
 */
export const FIRMWARE_MAGIC = Buffer.from('PORTFW01', 'latin1');
const LENGTH_BYTES = 4;
const SIGNATURE_BYTES = 64;
/** A header is a few fields; anything bigger is not one of ours. */
export const MAX_HEADER_BYTES = 4096;
/** The board the image is built for: the x86-64 image of image/. */
export const FIRMWARE_BOARD = 'x86-64';

/** What a payload may carry. */
export const FIRMWARE_PARTS = ['root', 'kernel', 'initrd'] as const;
export type FirmwarePartName = (typeof FIRMWARE_PARTS)[number];

/** Dotted numeric version, 1 to 4 parts: "1.4.0". */
export const firmwareVersion = z.string().regex(/^\d{1,6}(\.\d{1,6}){0,3}$/);

export const firmwareHeader = z
  .object({
    format: z.literal(1),
    version: firmwareVersion,
    board: z.string().regex(/^[a-z0-9-]{1,32}$/),
    size: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /**
     * The payload's pieces in order, for a device that puts them in different places (linux: the
     * root file system on the inactive partition, kernel and initramfs beside its boot entry).
     * Without it the payload is one piece, `root`.
     */
    parts: z
      .array(
        z
          .object({
            name: z.enum(FIRMWARE_PARTS),
            size: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
            /**
             * A gzip-compressed piece (a root file system is mostly free blocks): `size` is what
             * the file carries, `unpackedSize` what is written. The digest covers the carried bytes.
             */
            encoding: z.literal('gzip').optional(),
            unpackedSize: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
          })
          .strict()
          .refine((part) => (part.encoding === undefined) === (part.unpackedSize === undefined), { message: 'a compressed part names its unpacked size' }),
      )
      .min(1)
      .max(FIRMWARE_PARTS.length)
      .optional(),
  })
  .strict()
  .refine((h) => !h.parts || h.parts.reduce((sum, part) => sum + part.size, 0) === h.size, { message: 'parts do not add up to the size' })
  .refine((h) => !h.parts || new Set(h.parts.map((part) => part.name)).size === h.parts.length, { message: 'a part named twice' });
export type FirmwareHeader = z.infer<typeof firmwareHeader>;

/** Why a file was refused; `reason` is an i18n key under `maintain.firmware.refused`. */
export type RefusalReason = 'unsigned' | 'header' | 'signature' | 'board' | 'truncated' | 'trailing' | 'digest' | 'tooLarge';

export class FirmwareRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    detail: string,
  ) {
    super(detail);
  }
}

/** Where the payload starts in a verified file, and what it is. */
export interface VerifiedImage {
  header: FirmwareHeader;
  payloadOffset: number;
}

function prefixOf(headerJson: Buffer): Buffer {
  const length = Buffer.alloc(LENGTH_BYTES);
  length.writeUInt32BE(headerJson.length);
  return Buffer.concat([FIRMWARE_MAGIC, length, headerJson]);
}

/** A signed file for `payload` (the release tooling's side; tests sign with their own key). */
export function signFirmware(
  payload: Buffer,
  version: string,
  privateKey: KeyObject,
  options: { board?: string; parts?: FirmwareHeader['parts'] } = {},
): Buffer {
  const header: FirmwareHeader = {
    format: 1,
    version,
    board: options.board ?? FIRMWARE_BOARD,
    size: payload.length,
    sha256: createHash('sha256').update(payload).digest('hex'),
    ...(options.parts ? { parts: options.parts } : {}),
  };
  const prefix = prefixOf(Buffer.from(JSON.stringify(firmwareHeader.parse(header)), 'utf8'));
  return Buffer.concat([prefix, sign(null, prefix, privateKey), payload]);
}

/** Reads an Ed25519 public key (PEM); anything else is refused so a wrong file cannot pass as a key. */
export function firmwarePublicKey(pem: string | Buffer): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the firmware key is not an Ed25519 public key');
  return key;
}

/** Reads and checks the signed header of `file` (nothing of the payload yet). */
export async function readSignedHeader(file: string, key: KeyObject, maxSize: number): Promise<VerifiedImage & { fileSize: number }> {
  const handle = await open(file, 'r');
  try {
    const { size: fileSize } = await handle.stat();
    const fixed = Buffer.alloc(FIRMWARE_MAGIC.length + LENGTH_BYTES);
    const { bytesRead } = await handle.read(fixed, 0, fixed.length, 0);
    if (bytesRead < fixed.length || !fixed.subarray(0, FIRMWARE_MAGIC.length).equals(FIRMWARE_MAGIC)) {
      throw new FirmwareRefused('unsigned', 'no firmware signature header');
    }
    const headerLength = fixed.readUInt32BE(FIRMWARE_MAGIC.length);
    if (headerLength === 0 || headerLength > MAX_HEADER_BYTES) throw new FirmwareRefused('header', `header length ${headerLength}`);
    const rest = Buffer.alloc(headerLength + SIGNATURE_BYTES);
    const got = (await handle.read(rest, 0, rest.length, fixed.length)).bytesRead;
    if (got < rest.length) throw new FirmwareRefused('truncated', 'the file ends inside its header');
    const headerJson = rest.subarray(0, headerLength);
    const signature = rest.subarray(headerLength);
    if (!verify(null, Buffer.concat([fixed, headerJson]), key, signature)) throw new FirmwareRefused('signature', 'signature does not verify');
    let header: FirmwareHeader;
    try {
      header = firmwareHeader.parse(JSON.parse(headerJson.toString('utf8')));
    } catch {
      // Signed by our key but not a header this release reads.
      throw new FirmwareRefused('header', 'header unreadable');
    }
    if (header.board !== FIRMWARE_BOARD) throw new FirmwareRefused('board', `image for ${header.board}`);
    if (header.size > maxSize) throw new FirmwareRefused('tooLarge', `payload of ${header.size} bytes`);
    const payloadOffset = fixed.length + rest.length;
    if (fileSize < payloadOffset + header.size) throw new FirmwareRefused('truncated', `${fileSize} bytes, header says ${payloadOffset + header.size}`);
    if (fileSize > payloadOffset + header.size) throw new FirmwareRefused('trailing', 'bytes after the payload');
    return { header, payloadOffset, fileSize };
  } finally {
    await handle.close();
  }
}

/**
 * Verifies the whole file: signed header, then the payload's digest read as a stream (an image
 * is far larger than the daemon's memory). `progress` gets the payload bytes read so far.
 */
export async function verifyFirmwareFile(
  file: string,
  key: KeyObject,
  maxSize: number,
  progress: (bytes: number, total: number) => void = () => undefined,
): Promise<VerifiedImage> {
  const image = await readSignedHeader(file, key, maxSize);
  const hash = createHash('sha256');
  let read = 0;
  for await (const chunk of createReadStream(file, { start: image.payloadOffset })) {
    hash.update(chunk as Buffer);
    read += (chunk as Buffer).length;
    progress(read, image.header.size);
  }
  if (read !== image.header.size) throw new FirmwareRefused('truncated', 'the file changed while it was read');
  if (hash.digest('hex') !== image.header.sha256) throw new FirmwareRefused('digest', 'payload digest differs');
  return { header: image.header, payloadOffset: image.payloadOffset };
}

/** -1, 0 or 1 as dotted version `a` is older, equal or newer than `b`. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** The pieces of a verified payload with their offsets in the file. */
export interface PayloadPart {
  name: FirmwarePartName;
  offset: number;
  size: number;
  /** Set for a compressed part: it is unpacked to this many bytes as it is written. */
  unpackedSize?: number;
}

export function payloadParts(image: VerifiedImage): PayloadPart[] {
  const parts = image.header.parts ?? [{ name: 'root' as const, size: image.header.size }];
  let offset = image.payloadOffset;
  return parts.map((part) => {
    const out: PayloadPart = { name: part.name, offset, size: part.size, ...(part.encoding === 'gzip' ? { unpackedSize: part.unpackedSize } : {}) };
    offset += part.size;
    return out;
  });
}
