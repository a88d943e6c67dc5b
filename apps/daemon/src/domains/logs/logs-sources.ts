import { isAscii } from 'node:buffer';
import { access, open, stat } from 'node:fs/promises';
import { execa } from 'execa';
import type { LogEntry } from '@portico/schema';
import type { LogProvider } from '../../config/log-book.js';
import { entryMatches, scanStoredChunk, type CompiledFilter } from './logs-filter.js';

/**
 * Where a log is read from. Every source answers the matching entries oldest first, in
 * batches (one per chunk read), so a page keeps only its window and a download streams with
 * backpressure: nothing holds a whole log in memory.
 */

/** A program's line kept as written until it is shown (an unfiltered read parses only its page). */
export class RawLine {
  constructor(
    readonly line: string,
    readonly parse: (line: string) => LogEntry | null,
  ) {}
}

/** A stored line of the daemon's own format (decoded only when shown), a program's raw line, or an entry. */
export type LogItem = string | RawLine | LogEntry;

/** A line that starts with a stamp the parser reads (classic syslog or RFC 3339). */
const STAMPED = /^(?:[A-Z][a-z]{2} [ \d]\d |\d{4}-\d\d-\d\dT)/;

const unfiltered = (filter: CompiledFilter) =>
  filter.text === null && filter.maxSeverity === 7 && filter.from === Number.NEGATIVE_INFINITY && filter.to === Number.POSITIVE_INFINITY && filter.after === Number.NEGATIVE_INFINITY;

export interface LogSource {
  readonly kind: 'file' | 'journal' | 'memory';
  /** Whether the source has anything to read here (a file that exists, a journal). */
  present(): Promise<boolean>;
  batches(filter: CompiledFilter): AsyncIterable<LogItem[]>;
}

/** A stored file is scanned a megabyte at a time: the scan makes next to no garbage per line. */
const CHUNK = 1024 * 1024;
/**
 * A program's text file is parsed into entries 16 KB at a time: each batch dies young, so a
 * read or download of a large file does not push the daemon's heap up.
 */
const TEXT_CHUNK = 16 * 1024;

/**
 * A file as runs of whole lines, `size` bytes or so at a time, each without its last line
 * break; a missing file has none. A line break is one byte in UTF-8, so no character is ever
 * cut. One buffer is read into for the whole file (grown only for a line longer than it) and
 * the unfinished line moved to its front: a buffer a read, kept alive past young-generation
 * collections while a slow download waited, piled up until a full collection. Each run is
 * valid only until the next is asked for.
 */
async function* fileRuns(path: string, size: number): AsyncGenerator<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    let buffer = Buffer.allocUnsafe(size);
    let held = 0;
    for (;;) {
      if (held === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, held);
        buffer = larger;
      }
      const { bytesRead } = await handle.read(buffer, held, buffer.length - held, null);
      if (bytesRead === 0) break;
      const filled = held + bytesRead;
      const end = buffer.lastIndexOf(10, filled - 1);
      if (end < 0) {
        held = filled;
        continue;
      }
      yield buffer.subarray(0, end);
      held = filled - end - 1;
      buffer.copy(buffer, 0, end + 1, filled);
    }
    if (held > 0) yield buffer.subarray(0, held);
  } finally {
    await handle.close();
  }
}

/** The lines of a file in chunks; a missing file has none. */
export async function* fileLines(path: string): AsyncGenerator<string[]> {
  for await (const run of fileRuns(path, TEXT_CHUNK)) yield run.toString('utf8').split('\n');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isFile(), () => false);
}

/** Whole lines of a stored file, each byte one character (latin1), and whether they are all ASCII. */
export interface StoredChunk {
  text: string;
  ascii: boolean;
}

/**
 * A file in chunks of whole lines, each byte one character (latin1), so nothing is decoded
 * that a scan skips; each chunk is one copy into a string, and the ASCII check runs on the
 * bytes (simdutf) rather than as a regular expression over the text.
 */
export async function* fileChunks(path: string): AsyncGenerator<StoredChunk> {
  for await (const run of fileRuns(path, CHUNK)) yield { text: run.toString('latin1'), ascii: isAscii(run) };
}

/** The daemon's own size-capped files of a log (config/log-book.ts), oldest file first. */
export function storedFilesSource(files: () => readonly string[]): LogSource {
  return {
    kind: 'file',
    present: async () => files().length > 0,
    async *batches(filter) {
      for (const path of files()) {
        for await (const chunk of fileChunks(path)) {
          const matched: string[] = [];
          scanStoredChunk(chunk.text, filter, matched, chunk.ascii);
          if (matched.length) yield matched;
        }
      }
    },
  };
}

/** Text files another program writes (syslog-style lines), parsed by `parse`, oldest file first. */
export function textFilesSource(files: () => readonly string[], parse: (line: string) => LogEntry | null): LogSource {
  return {
    kind: 'file',
    present: async () => {
      for (const path of files()) if (await exists(path)) return true;
      return false;
    },
    async *batches(filter) {
      const lazy = unfiltered(filter);
      for (const path of files()) {
        for await (const lines of fileLines(path)) {
          if (lazy) {
            const kept: RawLine[] = [];
            for (const line of lines) if (STAMPED.test(line)) kept.push(new RawLine(line, parse));
            if (kept.length) yield kept;
            continue;
          }
          const matched: LogEntry[] = [];
          for (const line of lines) {
            const entry = line === '' ? null : parse(line);
            if (entry && entryMatches(entry, filter)) matched.push(entry);
          }
          if (matched.length) yield matched;
        }
      }
    },
  };
}

/** Entries a domain keeps itself (the SMS send log, the wireless controller's records). */
export function providerSource(provider: () => LogProvider | undefined): LogSource {
  return {
    kind: 'memory',
    present: async () => provider() !== undefined,
    async *batches(filter) {
      const source = provider();
      if (!source) return;
      const matched: LogEntry[] = [];
      for (const entry of source.entries()) if (entryMatches(entry, filter)) matched.push(entry);
      if (matched.length) yield matched;
    },
  };
}

/**
 * The kernel's messages in the systemd journal: `journalctl -k -o json`, the time range and
 * level passed on so the journal's own index does that part, the text matched here.
 */
export function journalSource(binary: string, parse: (line: string) => LogEntry | null, extraArgs: readonly string[] = []): LogSource {
  return {
    kind: 'journal',
    present: async () => access(binary).then(() => true, () => false),
    async *batches(filter) {
      const args = ['-k', '-o', 'json', '--no-pager', '-q', ...extraArgs];
      if (Number.isFinite(filter.from)) args.push(`--since=@${Math.floor(filter.from / 1000)}`);
      if (Number.isFinite(filter.to)) args.push(`--until=@${Math.ceil(filter.to / 1000)}`);
      args.push(`--priority=0..${filter.maxSeverity}`);
      const child = execa(binary, args, { buffer: false, stdin: 'ignore', stderr: 'ignore', reject: false });
      try {
        let matched: LogEntry[] = [];
        for await (const line of child.iterable({ from: 'stdout' })) {
          const entry = parseJournal(String(line), parse);
          if (entry && entryMatches(entry, filter)) matched.push(entry);
          if (matched.length >= 1000) {
            yield matched;
            matched = [];
          }
        }
        if (matched.length) yield matched;
      } finally {
        // A reader that stopped early (a page filled, a download cancelled) ends journalctl too.
        if (child.exitCode === null) child.kill();
        await child.catch(() => undefined);
      }
    },
  };
}

function parseJournal(line: string, parse: (line: string) => LogEntry | null): LogEntry | null {
  return line === '' ? null : parse(line);
}

/** Several sources read one after the other (a log the daemon writes and a program's file). */
export function joinedSource(sources: readonly LogSource[]): LogSource {
  const kind = sources.find((s) => s.kind !== 'memory')?.kind ?? 'memory';
  return {
    kind,
    present: async () => {
      for (const source of sources) if (await source.present()) return true;
      return false;
    },
    async *batches(filter) {
      for (const source of sources) yield* source.batches(filter);
    },
  };
}
