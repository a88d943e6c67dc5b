import { gunzipSync } from 'node:zlib';
import { buffer } from 'node:stream/consumers';
import { describe, expect, test } from 'vitest';
import type { LogEntry } from '@portico/schema';
import { compileFilter } from '../src/domains/logs/logs-filter.js';
import { downloadStream, entryLine } from '../src/domains/logs/logs-query.js';
import type { LogSource } from '../src/domains/logs/logs-sources.js';

/** The download stream: text and gzip carry the same lines, and a cancelled one stops reading. */

const START = Date.UTC(2026, 0, 1);

/** Batches of entries with multi-byte text, counting the batches read and whether the reader was closed. */
function source(batches: number) {
  const state = { read: 0, closed: false };
  const log: LogSource = {
    kind: 'memory',
    present: async () => true,
    async *batches() {
      try {
        for (let b = 0; b < batches; b++) {
          state.read++;
          const batch: LogEntry[] = [];
          for (let i = 0; i < 500; i++) batch.push({ time: START + b * 1000 + i, level: 'info', origin: 'kernel', text: `batch ${b} line ${i} 链路 ${'é'.repeat(i % 7)}` });
          yield batch;
        }
      } finally {
        state.closed = true;
      }
    },
  };
  return { log, state };
}

function expected(batches: number): string {
  let text = '';
  for (let b = 0; b < batches; b++) for (let i = 0; i < 500; i++) text += entryLine({ time: START + b * 1000 + i, level: 'info', origin: 'kernel', text: `batch ${b} line ${i} 链路 ${'é'.repeat(i % 7)}` });
  return text;
}

describe('log download', () => {
  test('as text: every line, no character cut between pieces', async () => {
    const { log } = source(40);
    expect((await buffer(downloadStream(log, compileFilter({}), false))).toString('utf8')).toBe(expected(40));
  });

  test('as gzip: the same lines', async () => {
    const { log } = source(40);
    expect(gunzipSync(await buffer(downloadStream(log, compileFilter({}), true))).toString('utf8')).toBe(expected(40));
  });

  test.each([false, true])('cancelled (gzip %s): the source stops being read and is closed', async (gzip) => {
    const { log, state } = source(10_000);
    const stream = downloadStream(log, compileFilter({}), gzip);
    // Asked for data once and then not read: backpressure holds the reader after a few batches.
    stream.read(0);
    await expect.poll(() => state.read).toBeGreaterThan(0);
    const held = state.read;
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.read).toBeLessThan(100);
    stream.destroy();
    await expect.poll(() => state.closed).toBe(true);
    expect(state.read).toBeLessThan(held + 100);
  });
});
