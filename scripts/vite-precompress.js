// Writes `.gz` and `.br` beside every emitted asset of 1 KB or more, so the daemon serves
// pre-compressed files and never compresses on the request path. No dependency: node:zlib.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const MIN_BYTES = 1024;
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map)$/;

/** @returns {import('vite').Plugin} */
export function precompress() {
  return {
    name: 'portico-precompress',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      for (const [fileName, output] of Object.entries(bundle)) {
        if (!COMPRESSIBLE.test(fileName)) continue;
        const source = output.type === 'chunk' ? output.code : output.source;
        const buffer = typeof source === 'string' ? Buffer.from(source) : Buffer.from(source);
        if (buffer.length < MIN_BYTES) continue;
        this.emitFile({ type: 'asset', fileName: `${fileName}.gz`, source: gzipSync(buffer, { level: 9 }) });
        this.emitFile({
          type: 'asset',
          fileName: `${fileName}.br`,
          source: brotliCompressSync(buffer, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: buffer.length },
          }),
        });
      }
    },
  };
}
