import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Files below this size gain nothing worth a second request path. */
export const COMPRESS_MIN_BYTES = 1024;

/** Formats that are compressed already. */
const PRECOMPRESSED = /\.(png|jpe?g|gif|webp|avif|woff2?|gz|br|zip)$/i;

export function shouldCompress(fileName: string, size: number): boolean {
  return size >= COMPRESS_MIN_BYTES && !PRECOMPRESSED.test(fileName);
}

/**
 * Writes `<file>.gz` and `<file>.br` beside a file, each only when it is smaller than the
 * original. Returns the variants written.
 */
export async function compressFile(path: string): Promise<Array<'gz' | 'br'>> {
  const content = await readFile(path);
  const [gz, br] = await Promise.all([
    gzipAsync(content, { level: 9 }),
    brotliAsync(content, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
      },
    }),
  ]);
  const written: Array<'gz' | 'br'> = [];
  if (gz.length < content.length) {
    await writeFile(`${path}.gz`, gz);
    written.push('gz');
  }
  if (br.length < content.length) {
    await writeFile(`${path}.br`, br);
    written.push('br');
  }
  return written;
}

/**
 * Vite plugin: after the bundle is written, every emitted file of at least 1 KB gets gzip
 * and brotli variants, so the daemon can serve them as they are (no compression at run time).
 */
export function assetCompress(): Plugin {
  return {
    name: 'portico-asset-compress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const outDir = options.dir;
      if (!outDir) return;
      const files = Object.values(bundle)
        .map((item) => ({
          fileName: item.fileName,
          size: item.type === 'chunk' ? Buffer.byteLength(item.code) : typeof item.source === 'string' ? Buffer.byteLength(item.source) : item.source.byteLength,
        }))
        .filter((file) => shouldCompress(file.fileName, file.size));
      await Promise.all(files.map((file) => compressFile(join(outDir, file.fileName))));
    },
  };
}
