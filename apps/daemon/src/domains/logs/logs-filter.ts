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
   * The text as a stored line holds it (`rawPattern`), global: what a scan runs over a whole
   * chunk of a stored file to find the few lines worth a look.
   */
  raw: RegExp | null;
  /** The text is printable ASCII without a quote or backslash: JSON stores it as typed. */
  plain: boolean;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The text as it stands inside a stored line: JSON-escaped (a quote or backslash is stored
 * after a backslash), as UTF-8 bytes read one a character. The `i` flag folds ASCII only on
 * those bytes, so each other character is offered in its lower and upper forms, as the exact
 * (case-insensitive) check on the decoded entry would accept them.
 */
function rawPattern(text: string): string {
  const bytes = (form: string) => escapeRegExp(Buffer.from(form, 'utf8').toString('latin1'));
  let pattern = '';
  for (const char of JSON.stringify(text).slice(1, -1)) {
    if (char.charCodeAt(0) < 0x80) pattern += escapeRegExp(char);
    else pattern += `(?:${[...new Set([char, char.toLowerCase(), char.toUpperCase()])].map(bytes).join('|')})`;
  }
  return pattern;
}

export function compileFilter(filter: LogFilter, after = Number.NEGATIVE_INFINITY): CompiledFilter {
  return {
    from: filter.from ?? Number.NEGATIVE_INFINITY,
    to: filter.to ?? Number.POSITIVE_INFINITY,
    maxSeverity: filter.level ? LOG_LEVELS.indexOf(filter.level) : 7,
    text: filter.text ? new RegExp(escapeRegExp(filter.text), 'i') : null,
    after,
    raw: filter.text ? new RegExp(rawPattern(filter.text), 'gi') : null,
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
 * Whether a stored line (config/log-book.ts) the chunk scan found the text's stored form on
 * matches: its time and severity read where they stand, then the line parsed and checked
 * exactly (the search must not count a hit in a field name or an escape sequence).
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
  // The callers found the text's stored form on the line already; the decoded text is matched
  // exactly here (not on the line, where a quote or backslash stands escaped).
  const entry = decodeLogLine(line);
  return entry !== null && textMatches(entry, filter.text);
}

/**
 * The lines of a chunk of a stored file that match, as text. `chunk` holds whole lines, its
 * bytes one a character (latin1), so the scan never decodes what it skips: with a text, the
 * chunk-wide search jumps from hit to hit; without, each line's fixed-place time and severity
 * are compared where they stand. Only the lines kept are decoded from UTF-8.
 */
export function scanStoredChunk(chunk: string, filter: CompiledFilter, out: string[], ascii = !/[^\x00-\x7f]/.test(chunk)): void {
  // Pure ASCII (the usual case): the latin1 text is the UTF-8 text. The reader knows it from
  // the bytes (`fileChunks`), far cheaper than this expression over the text.
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
  // The text's next hit in the chunk, searched from a line that passed time and level: the
  // lines before it need no search of their own, and none cut out to be searched.
  const raw = filter.raw;
  let hitAt = -1;
  for (let start = 0; start < chunk.length; ) {
    let end = chunk.indexOf('\n', start);
    if (end < 0) end = chunk.length;
    // The level first: one character where it stands, and a level filter rules out most lines
    // before their time is read. A line of another shape is left to the exact check below.
    const severity = chunk.charCodeAt(start + 23) - 48;
    if (end > start && !(severity > maxSeverity && severity <= 7 && chunk.startsWith(',"l":', start + 18))) {
      const time = headTime(chunk, start);
      if (Number.isNaN(time)) {
        const line = text(start, end);
        if (storedLineMatches(line, filter)) out.push(line);
      } else if (time >= from && time <= to && time > after) {
        if (severity >= 0 && severity <= maxSeverity && chunk.startsWith(',"l":', start + 18)) {
          if (raw === null) out.push(text(start, end));
          else {
            if (hitAt < start) {
              raw.lastIndex = start;
              hitAt = raw.exec(chunk)?.index ?? Number.POSITIVE_INFINITY;
            }
            if (hitAt < end) {
              if (filter.plain && (inString(chunk, start, end, ',"o":"', hitAt) || inString(chunk, start, end, ',"m":"', hitAt))) out.push(text(start, end));
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
