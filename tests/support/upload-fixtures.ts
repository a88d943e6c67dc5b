import { crc32, deflateRawSync } from 'node:zlib';

/**
 * Files for upload tests (portal picture, logo, custom page zip): headers the readers parse,
 * padded to a size, and a small zip writer for good and hostile archives. Shared by the daemon's
 * and the browser tests.
 */

/** A PNG whose IHDR says width x height, padded to `size` bytes with `fill`. */
export function png(width: number, height: number, size = 64, fill = 0): Buffer {
  const data = Buffer.alloc(Math.max(size, 33), fill);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(data, 0);
  data.writeUInt32BE(13, 8);
  data.write('IHDR', 12, 'latin1');
  data.writeUInt32BE(width, 16);
  data.writeUInt32BE(height, 20);
  return data;
}

/** A JPEG of a start-of-frame marker and nothing else. */
export function jpeg(width: number, height: number): Buffer {
  return Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 255, width >> 8, width & 255, 3, 0, 0, 0, 0xff, 0xd9]);
}

export interface ZipEntry {
  name: string;
  data?: Buffer;
  /** Unix mode in the external attributes (0o120777 makes a symlink). */
  mode?: number;
  deflate?: boolean;
}

/**
 * The fields a local and a central header share, in the same order, from "version needed"
 * (at `at`) to the name length; the modification time and date stay zero.
 */
function writeSharedFields(header: Buffer, at: number, f: { method: number; crc: number; compressed: number; size: number; nameLength: number }): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
  header.writeUInt16LE(f.method, at + 4);
  header.writeUInt32LE(f.crc, at + 10);
  header.writeUInt32LE(f.compressed, at + 14);
  header.writeUInt32LE(f.size, at + 18);
  header.writeUInt16LE(f.nameLength, at + 22);
}

/** A small zip writer: enough to build good and hostile archives. */
export function zip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const raw = entry.data ?? Buffer.alloc(0);
    const body = entry.deflate ? deflateRawSync(raw) : raw;
    const name = Buffer.from(entry.name, 'utf8');
    const shared = { method: entry.deflate ? 8 : 0, crc: crc32(raw), compressed: body.length, size: raw.length, nameLength: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeSharedFields(local, 4, shared);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by: Unix, so the external attributes carry a mode
    writeSharedFields(central, 6, shared);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A stored zip of text files by path. */
export function zipOf(files: Record<string, string>): Buffer {
  return zip(Object.entries(files).map(([name, text]) => ({ name, data: Buffer.from(text) })));
}
