import { Readable } from 'node:stream';
import { createGzip, type Gzip } from 'node:zlib';
import { LOG_WINDOW_MAX, type LogEntry } from '@portico/schema';
import { decodeLogLine } from '../../config/log-book.js';
import type { CompiledFilter } from './logs-filter.js';
import { RawLine, type LogItem, type LogSource } from './logs-sources.js';

const asEntry = (item: LogItem): LogEntry | null => {
  if (typeof item === 'string') return decodeLogLine(item);
  return item instanceof RawLine ? item.parse(item.line) : item;
};

/**
 * One page of the matching entries, newest first, and how many match. One pass over the
 * source: only the newest `page × size` matches are kept (a ring), never the whole log; pages
 * past LOG_WINDOW_MAX matches are not reached (a narrower filter reaches older entries).
 */
export async function readPage(source: LogSource, filter: CompiledFilter, page: number, size: number): Promise<{ items: LogEntry[]; total: number }> {
  const window = Math.min(page * size, LOG_WINDOW_MAX);
  const ring: LogItem[] = new Array<LogItem>(window);
  let total = 0;
  for await (const batch of source.batches(filter)) {
    for (const item of batch) {
      ring[total % window] = item;
      total++;
    }
  }
  const kept = Math.min(total, window);
  const items: LogEntry[] = [];
  // Newest first: the last written slot backwards.
  for (let index = (page - 1) * size; index < Math.min(page * size, kept); index++) {
    const entry = asEntry(ring[(total - 1 - index) % window]!);
    if (entry) items.push(entry);
  }
  return { items, total };
}

// One entry a line: a control character in a program's text cannot start a false line.
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * An entry as a line of the downloaded file: time (UTC), level, origin and text. An entry the
 * daemon made is written as its message key and values, the same in every language.
 */
export function entryLine(entry: LogEntry): string {
  let message = entry.text ?? '';
  if (entry.key) {
    const values = Object.entries(entry.values ?? {}).map(([name, value]) => `${name}=${String(value)}`);
    message = [entry.key, ...values].join(' ');
  }
  const origin = entry.origin ? `${entry.origin}: ` : '';
  return `${new Date(entry.time).toISOString()} ${entry.level.padEnd(7)} ${origin}${message}`.replace(CONTROL, ' ') + '\n';
}

/**
 * A download makes garbage at the pace the client takes the file, and a buffer the socket still
 * holds outlives the young generation's collections (1 MB semi-spaces, launch-flags.mjs): once
 * promoted it is freed only by a full collection, which external memory triggers only after
 * tens of megabytes. 64 KB pieces, and a fresh buffer for each piece gzip was fed, piled up
 * +30 to +50 MB over a 200 MB log; small pieces sit in malloc's heap and are reused as they die.
 */
const PIECE = 4096;
/** What gzip is fed at a time, from two buffers it copies from (its window is its own). */
const GZIP_INPUT = 64 * 1024;
const encoder = new TextEncoder();

/** The text of each batch of matching entries, made when the batch is read. */
async function* batchTexts(source: LogSource, filter: CompiledFilter): AsyncGenerator<string> {
  for await (const batch of source.batches(filter)) {
    let text = '';
    for (const item of batch) {
      const entry = asEntry(item);
      if (entry) text += entryLine(entry);
    }
    if (text !== '') yield text;
  }
}

/** The text in pieces of PIECE bytes, a character never cut (encodeInto stops before it). */
async function* textPieces(texts: AsyncGenerator<string>): AsyncGenerator<Buffer> {
  let piece = Buffer.allocUnsafe(PIECE);
  let used = 0;
  for await (const text of texts) {
    for (let rest = text; ; ) {
      const { read, written } = encoder.encodeInto(rest, piece.subarray(used));
      used += written;
      if (read === rest.length) break;
      rest = rest.slice(read);
      yield piece.subarray(0, used);
      piece = Buffer.allocUnsafe(PIECE);
      used = 0;
    }
  }
  if (used > 0) yield piece.subarray(0, used);
}

/**
 * Feeds the text to gzip from two buffers taken in turn, each filled again only once gzip has
 * taken what it held (its write callback): gzip takes no more input while its output waits for
 * the client, so reading the log waits too, and no buffer is made per piece.
 */
async function feedGzip(texts: AsyncGenerator<string>, zipped: Gzip): Promise<void> {
  const slots = [0, 1].map(() => ({ buffer: Buffer.allocUnsafeSlow(2 * GZIP_INPUT), taken: Promise.resolve<Error | null | undefined>(null) }));
  let turn = 0;
  let used = 0;
  // Hands the current buffer to gzip and waits until the other one is free again.
  const flush = async () => {
    const slot = slots[turn]!;
    const filled = slot.buffer.subarray(0, used);
    slot.taken = new Promise((resolve) => zipped.write(filled, resolve));
    turn = 1 - turn;
    used = 0;
    const failed = await slots[turn]!.taken;
    if (failed) throw failed;
  };
  try {
    for await (const text of texts) {
      // A batch larger than the room left is cut where a character ends.
      for (let rest = text; ; ) {
        const { read, written } = encoder.encodeInto(rest, slots[turn]!.buffer.subarray(used));
        used += written;
        if (read === rest.length) break;
        rest = rest.slice(read);
        await flush();
      }
      // Flushed between batches, so the wait holds no text.
      if (used >= GZIP_INPUT) await flush();
    }
    if (used > 0) await flush();
    zipped.end();
  } catch (error) {
    // A cancelled download (the stream destroyed) or a read error: leaving the loop closes the
    // source's reader, and gzip ends with the error.
    zipped.destroy(error as Error);
  }
}

/**
 * The matching entries as a file, oldest first, streamed: read chunk by chunk as the client
 * takes it (gzip through node:zlib for `gz`), so a log of any size costs a few chunks of memory.
 */
export function downloadStream(source: LogSource, filter: CompiledFilter, gzip: boolean): Readable {
  if (!gzip) return Readable.from(textPieces(batchTexts(source, filter)), { objectMode: false, highWaterMark: PIECE });
  // gzip's output in pieces of the same size, for the same reason.
  const zipped = createGzip({ chunkSize: PIECE });
  void feedGzip(batchTexts(source, filter), zipped);
  return zipped;
}
