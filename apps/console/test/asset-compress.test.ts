import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { assetCompress, compressFile, shouldCompress } from '../../../scripts/asset-compress.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-compress-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('shouldCompress', () => {
  test('1 KB and more, and not formats compressed already', () => {
    expect(shouldCompress('assets/index.js', 1024)).toBe(true);
    expect(shouldCompress('assets/index.js', 1023)).toBe(false);
    expect(shouldCompress('assets/logo.png', 50_000)).toBe(false);
    expect(shouldCompress('assets/font.woff2', 50_000)).toBe(false);
  });
});

describe('compressFile', () => {
  test('writes .gz and .br that decompress to the original', async () => {
    const file = join(dir, 'app.js');
    const content = 'export const x = "console";\n'.repeat(200);
    await writeFile(file, content);
    expect(await compressFile(file)).toEqual(['gz', 'br']);
    expect(gunzipSync(await readFile(`${file}.gz`)).toString()).toBe(content);
    expect(brotliDecompressSync(await readFile(`${file}.br`)).toString()).toBe(content);
  });

  test('a variant that would not be smaller is not written', async () => {
    const file = join(dir, 'random.bin');
    // Random bytes do not compress: both variants come out larger.
    await writeFile(file, randomBytes(4096));
    expect(await compressFile(file)).toEqual([]);
    expect(await exists(`${file}.gz`)).toBe(false);
    expect(await exists(`${file}.br`)).toBe(false);
  });
});

describe('the Vite plugin', () => {
  test('compresses every emitted file of 1 KB or more, leaves small ones alone', async () => {
    const big = 'body { color: red; }\n'.repeat(100);
    await writeFile(join(dir, 'big.css'), big);
    await writeFile(join(dir, 'small.js'), 'x');
    await writeFile(join(dir, 'chunk.js'), big);
    const plugin = assetCompress();
    expect(plugin.apply).toBe('build');
    const bundle = {
      'big.css': { type: 'asset', fileName: 'big.css', source: big },
      'small.js': { type: 'chunk', fileName: 'small.js', code: 'x' },
      'chunk.js': { type: 'chunk', fileName: 'chunk.js', code: big },
    };
    const hook = plugin.writeBundle as unknown as (options: { dir: string }, bundle: unknown) => Promise<void>;
    await hook.call({}, { dir }, bundle);
    expect(await exists(join(dir, 'big.css.gz'))).toBe(true);
    expect(await exists(join(dir, 'big.css.br'))).toBe(true);
    expect(await exists(join(dir, 'chunk.js.br'))).toBe(true);
    expect(await exists(join(dir, 'small.js.gz'))).toBe(false);
  });
});
