import { LOG_LEVELS, type LogEntry, type LogLevel } from '@portico/schema';
import { decodeLogLine, lineSeverity, lineTime } from '../../config/log-book.js';

/** What a read or download asks for, compiled once so each line costs a few comparisons. */
export interface LogFilter {
  from?: number;
  to?: number;
  level?: LogLevel;
  text?: string;
}

export interface CompiledFilter {
  from: number;
  to: number;
  /** Highest severity number shown (0 emergency … 7 debug). */
  maxSeverity: number;
  /** Case-insensitive, the text taken literally. */
  text: RegExp | null;
  /** Entries at or before this time are hidden (a log cleaned where its file is not ours). */
  after: number;
  /**
   * The text as its UTF-8 bytes read one byte a character (latin1), global: what a scan runs
   * over a whole chunk of a stored file to find the few lines worth a look.
   */
  raw: RegExp | null;
  /** The same, not global: tried on one line. */
  rawLine: RegExp | null;
  /** The text is printable ASCII without a quote or backslash: JSON stores it as typed. */
  plain: boolean;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compileFilter(filter: LogFilter, after = Number.NEGATIVE_INFINITY): CompiledFilter {
  return {
    from: filter.from ?? Number.NEGATIVE_INFINITY,
    to: filter.to ?? Number.POSITIVE_INFINITY,
    maxSeverity: filter.level ? LOG_LEVELS.indexOf(filter.level) : 7,
    text: filter.text ? new RegExp(escapeRegExp(filter.text), 'i') : null,
    after,
    raw: filter.text ? new RegExp(escapeRegExp(Buffer.from(filter.text, 'utf8').toString('latin1')), 'gi') : null,
    rawLine: filter.text ? new RegExp(escapeRegExp(Buffer.from(filter.text, 'utf8').toString('latin1')), 'i') : null,
    plain: filter.text !== undefined && /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(filter.text),
  };
}

function textMatches(entry: LogEntry, text: RegExp): boolean {
  if (entry.text !== undefined && text.test(entry.text)) return true;
  if (entry.origin !== undefined && text.test(entry.origin)) return true;
  if (entry.values) for (const value of Object.values(entry.values)) if (text.test(String(value))) return true;
  return false;
}

export function entryMatches(entry: LogEntry, filter: CompiledFilter): boolean {
  if (entry.time < filter.from || entry.time > filter.to || entry.time <= filter.after) return false;
  if (LOG_LEVELS.indexOf(entry.level) > filter.maxSeverity) return false;
  return filter.text === null || textMatches(entry, filter.text);
}

/**
 * Whether a stored line (config/log-book.ts) matches, without parsing it when its time,
 * severity or raw text already rule it out: a million lines scan in well under a second.
 * A line the raw text matches is parsed and checked exactly (the search must not hit a
 * field name or an escape sequence).
 */
export function storedLineMatches(line: string, filter: CompiledFilter): boolean {
  const time = lineTime(line);
  if (Number.isNaN(time)) {
    const entry = decodeLogLine(line);
    return entry !== null && entryMatches(entry, filter);
  }
  if (time < filter.from || time > filter.to || time <= filter.after) return false;
  const severity = lineSeverity(line);
  if (severity < 0 || severity > filter.maxSeverity) return false;
  if (filter.text === null) return true;
  if (!filter.text.test(line)) return false;
  const entry = decodeLogLine(line);
  return entry !== null && textMatches(entry, filter.text);
}

/**
 * The lines of a chunk of a stored file that match, as text. `chunk` holds whole lines, its
 * bytes one a character (latin1), so the scan never decodes what it skips: with a text, the
 * chunk-wide search jumps from hit to hit; without, each line's fixed-place time and severity
 * are compared where they stand. Only the lines kept are decoded from UTF-8.
 */
export function scanStoredChunk(chunk: string, filter: CompiledFilter, out: string[]): void {
  // Pure ASCII (the usual case): the latin1 text is the UTF-8 text.
  const ascii = !/[^\x00-\x7f]/.test(chunk);
  const text = (start: number, end: number) => (ascii ? chunk.slice(start, end) : Buffer.from(chunk.slice(start, end), 'latin1').toString('utf8'));
  const { from, to, after, maxSeverity } = filter;
  // With a time or level condition, the fixed-place check comes first and the text is tried
  // only on the lines it lets through; with a text alone, the search jumps from hit to hit.
  const narrowed = from !== Number.NEGATIVE_INFINITY || to !== Number.POSITIVE_INFINITY || after !== Number.NEGATIVE_INFINITY || maxSeverity < 7;
  if (filter.raw && !narrowed) {
    const raw = filter.raw;
    raw.lastIndex = 0;
    for (let hit = raw.exec(chunk); hit !== null; hit = raw.exec(chunk)) {
      const start = chunk.lastIndexOf('\n', hit.index) + 1;
      let end = chunk.indexOf('\n', hit.index);
      if (end < 0) end = chunk.length;
      raw.lastIndex = end + 1;
      const time = headTime(chunk, start);
      if (!Number.isNaN(time)) {
        // Time and level first, where they stand: most hits of a common word end here.
        if (time < from || time > to || time <= after) continue;
        const severity = chunk.charCodeAt(start + 23) - 48;
        if (severity < 0 || severity > maxSeverity || !chunk.startsWith(',"l":', start + 18)) continue;
        // A plain text inside the origin or the message is a match as it stands.
        if (filter.plain && (inString(chunk, start, end, ',"o":"', hit.index) || inString(chunk, start, end, ',"m":"', hit.index))) {
          out.push(text(start, end));
          continue;
        }
      }
      const line = text(start, end);
      if (storedLineMatches(line, filter)) out.push(line);
    }
    return;
  }
  for (let start = 0; start < chunk.length; ) {
    let end = chunk.indexOf('\n', start);
    if (end < 0) end = chunk.length;
    if (end > start) {
      const time = headTime(chunk, start);
      if (Number.isNaN(time)) {
        const line = text(start, end);
        if (storedLineMatches(line, filter)) out.push(line);
      } else if (time >= from && time <= to && time > after) {
        const severity = chunk.charCodeAt(start + 23) - 48;
        if (severity >= 0 && severity <= maxSeverity && chunk.startsWith(',"l":', start + 18)) {
          if (filter.rawLine === null) out.push(text(start, end));
          else {
            const raw = chunk.slice(start, end);
            const hit = filter.rawLine.exec(raw);
            if (hit) {
              if (filter.plain && (inString(raw, 0, raw.length, ',"o":"', hit.index) || inString(raw, 0, raw.length, ',"m":"', hit.index))) out.push(text(start, end));
              else {
                const line = text(start, end);
                if (storedLineMatches(line, filter)) out.push(line);
              }
            }
          }
        }
      }
    }
    start = end + 1;
  }
}

/** `lineTime` at an offset of a chunk, without cutting the line out. */
function headTime(chunk: string, start: number): number {
  if (chunk.charCodeAt(start + 18) !== 44 || !chunk.startsWith('{"t":', start)) return Number.NaN;
  let time = 0;
  for (let i = start + 5; i < start + 18; i++) {
    const digit = chunk.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    time = time * 10 + digit;
  }
  return time;
}

/** Whether `at` lies inside the JSON string value that follows `field` on the line [start, end). */
function inString(chunk: string, start: number, end: number, field: string, at: number): boolean {
  const open = chunk.indexOf(field, start);
  if (open < 0 || open >= end) return false;
  const first = open + field.length;
  if (at < first) return false;
  // The closing quote is the first one after an even run of backslashes.
  for (let quote = chunk.indexOf('"', first); quote >= 0 && quote < end; quote = chunk.indexOf('"', quote + 1)) {
    let slashes = 0;
    while (chunk.charCodeAt(quote - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return at < quote;
  }
  return false;
}
