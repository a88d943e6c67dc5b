import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { UPLOAD_LIMITS } from '@portico/schema';
import type yauzl from 'yauzl';

/** Limits of a custom portal page archive. */
export const ZIP_LIMITS = {
  /** The archive as uploaded. */
  archiveBytes: UPLOAD_LIMITS.customPortalBytes,
  entries: 500,
  /** All files once extracted: a small archive cannot unpack into a disk-filling bomb. */
  totalBytes: 20 * 1024 * 1024,
  entryBytes: 5 * 1024 * 1024,
  /** A real page compresses well, but not a thousandfold. */
  maxRatio: 200,
} as const;

export class ZipRefused extends Error {}

/** A safe relative path: plain segments of letters, digits, dot, hyphen and underscore. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

export function safeEntryPath(name: string): boolean {
  if (name.length > 255 || name.startsWith('/') || name.includes('\\') || name.includes('\0')) return false;
  const segments = name.replace(/\/$/, '').split('/');
  return segments.every((s) => SEGMENT.test(s) && s !== '.' && s !== '..') && posix.normalize(name) === name;
}

// Loaded at the first upload, not at every start.
async function openZip(data: Buffer): Promise<yauzl.ZipFile> {
  const { default: zipReader } = await import('yauzl');
  return new Promise((resolve, reject) => {
    zipReader.fromBuffer(data, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true, decodeStrings: true }, (error, zip) =>
      error || !zip ? reject(new ZipRefused(error?.message ?? 'unreadable archive')) : resolve(zip),
    );
  });
}

function isSymlink(entry: yauzl.Entry): boolean {
  const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
  return mode === 0o120000;
}

/**
 * Checks and extracts a custom portal page archive into `target` (which must not exist).
 * Refused: unreadable archives, encrypted entries, absolute or `..` paths, backslashes, links,
 * too many entries, too much data (counted while inflating, not taken from the headers),
 * suspicious compression ratios, and archives without a top-level index.html.
 */
export async function extractPortalZip(data: Buffer, target: string): Promise<{ files: number; bytes: number }> {
  if (data.length > ZIP_LIMITS.archiveBytes) throw new ZipRefused('archive too large');
  const zip = await openZip(data);
  if (zip.entryCount > ZIP_LIMITS.entries) throw new ZipRefused('too many entries');
  let total = 0;
  let files = 0;
  let hasIndex = false;
  mkdirSync(target, { recursive: false, mode: 0o755 });
  await new Promise<void>((resolve, reject) => {
      // With lazy entries, not asking for the next entry stops the reading.
      const fail = (error: unknown) => {
        reject(error instanceof ZipRefused ? error : new ZipRefused(error instanceof Error ? error.message : String(error)));
      };
      zip.on('error', fail);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName;
        if (!safeEntryPath(name)) return fail(new ZipRefused(`unsafe path ${JSON.stringify(name)}`));
        if (isSymlink(entry)) return fail(new ZipRefused(`link ${name}`));
        if (entry.isEncrypted()) return fail(new ZipRefused(`encrypted ${name}`));
        if (name.endsWith('/')) {
          mkdirSync(join(target, name), { recursive: true, mode: 0o755 });
          zip.readEntry();
          return;
        }
        if (entry.uncompressedSize > ZIP_LIMITS.entryBytes) return fail(new ZipRefused(`entry too large ${name}`));
        if (entry.compressedSize > 0 && entry.uncompressedSize / entry.compressedSize > ZIP_LIMITS.maxRatio) {
          return fail(new ZipRefused(`compression ratio of ${name}`));
        }
        if (name === 'index.html') hasIndex = true;
        files++;
        zip.openReadStream(entry, (error, stream) => {
          if (error || !stream) return fail(error ?? new ZipRefused('unreadable entry'));
          let written = 0;
          const counter = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              written += chunk.length;
              total += chunk.length;
              if (written > ZIP_LIMITS.entryBytes || total > ZIP_LIMITS.totalBytes) return done(new ZipRefused('archive expands too much'));
              done(null, chunk);
            },
          });
          const file = join(target, name);
          mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
          pipeline(stream, counter, createWriteStream(file, { flags: 'wx', mode: 0o644 })).then(() => zip.readEntry(), fail);
        });
      });
      zip.readEntry();
    });
  if (!hasIndex) throw new ZipRefused('no index.html');
  return { files, bytes: total };
}
