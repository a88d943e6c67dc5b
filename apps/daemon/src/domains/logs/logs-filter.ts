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
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compileFilter(filter: LogFilter, after = Number.NEGATIVE_INFINITY): CompiledFilter {
  return {
    from: filter.from ?? Number.NEGATIVE_INFINITY,
    to: filter.to ?? Number.POSITIVE_INFINITY,
    maxSeverity: filter.level ? LOG_LEVELS.indexOf(filter.level) : 7,
    text: filter.text ? new RegExp(escapeRegExp(filter.text), 'i') : null,
    after,
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
