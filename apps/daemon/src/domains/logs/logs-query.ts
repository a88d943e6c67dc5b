import { Readable, pipeline } from 'node:stream';
import { createGzip } from 'node:zlib';
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
 * Pieces of the file handed on are at least this large: their buffers are then mapped apart
 * from the heap (the daemon runs with MALLOC_MMAP_THRESHOLD_=32768) and returned to the system
 * as soon as the socket has sent them, instead of piling up in the allocator.
 */
const PIECE = 64 * 1024;

async function* downloadText(source: LogSource, filter: CompiledFilter): AsyncGenerator<Buffer> {
  // Each batch's text is made and copied into the piece before the next await: while the
  // client is slow to take the file, no string of it outlives a young-generation collection.
  let piece = Buffer.allocUnsafeSlow(PIECE);
  let used = 0;
  for await (const batch of source.batches(filter)) {
    let text = '';
    for (const item of batch) {
      const entry = asEntry(item);
      if (entry) text += entryLine(entry);
    }
    const bytes = Buffer.byteLength(text);
    if (used + bytes > piece.length) {
      if (used > 0) yield piece.subarray(0, used);
      piece = Buffer.allocUnsafeSlow(Math.max(PIECE, bytes));
      used = 0;
    }
    used += piece.write(text, used);
  }
  if (used > 0) yield piece.subarray(0, used);
}

/**
 * The matching entries as a file, oldest first, streamed: read chunk by chunk as the client
 * takes it (gzip through node:zlib for `gz`), so a log of any size costs a few chunks of memory.
 */
export function downloadStream(source: LogSource, filter: CompiledFilter, gzip: boolean): Readable {
  const text = Readable.from(downloadText(source, filter), { objectMode: false, highWaterMark: PIECE });
  if (!gzip) return text;
  const zipped = createGzip({ chunkSize: PIECE });
  // An error or a cancelled download ends both streams (and the source's reader with them).
  pipeline(text, zipped, () => undefined);
  return zipped;
}
