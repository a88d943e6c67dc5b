import { mkdirSync } from 'node:fs';
import { LOG_LEVELS, type LogEntry, type LogLevel } from '@portico/schema';
import { CappedLog, DEFAULT_LOG_LIMITS, type CappedLogLimits } from '../engine/capped-log.js';

/**
 * The named logs of the device (Logs in the menu), as every domain reaches them through
 * `AppContext.logs`: a domain appends an entry to a log the daemon writes itself (the port
 * log, sign-ins), or offers the entries it already keeps (`provide`: the SMS send log, the
 * wireless controller's records) so the logs domain reads every log one way. Entries the
 * daemon writes go to a size-capped file per log (engine/capped-log.ts), one JSON object a line.
 */

export type LogEntryInput = Omit<LogEntry, 'time'> & { time?: number };

/** Entries a domain keeps itself, oldest first. */
export interface LogProvider {
  entries(): Iterable<LogEntry>;
  clear(): void;
}

/** Longest message or origin kept in an entry the daemon writes; a longer one is cut. */
export const LOG_FIELD_MAX = 2048;

// Stored on one line: a line break or other control character in a message becomes a space.
const CONTROL = /[\u0000-\u001f\u007f]/g;
const clip = (value: string) => value.replace(CONTROL, ' ').slice(0, LOG_FIELD_MAX);

/**
 * One stored line: `{"t":<ms>,"l":<severity>,…}`. The time and severity come first at fixed
 * places so a scan can filter a million lines without parsing each (see `lineTime`, `lineSeverity`).
 */
export function encodeLogLine(entry: LogEntry): string {
  const line: Record<string, unknown> = { t: Math.trunc(entry.time), l: LOG_LEVELS.indexOf(entry.level) };
  if (entry.origin) line.o = clip(entry.origin);
  if (entry.text !== undefined) line.m = clip(entry.text);
  if (entry.key) line.k = entry.key;
  if (entry.values) {
    const values: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(entry.values)) values[name] = typeof value === 'number' ? value : clip(value);
    line.v = values;
  }
  return JSON.stringify(line);
}

/** The time of a stored line, or NaN when the line is not of the fast shape (13-digit ms). */
export function lineTime(line: string): number {
  if (line.charCodeAt(18) !== 44 /* , */ || !line.startsWith('{"t":')) return Number.NaN;
  let time = 0;
  for (let i = 5; i < 18; i++) {
    const digit = line.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    time = time * 10 + digit;
  }
  return time;
}

/** The severity of a stored line of the fast shape, or -1. */
export function lineSeverity(line: string): number {
  const digit = line.charCodeAt(23) - 48;
  return line.startsWith(',"l":', 18) && digit >= 0 && digit <= 7 ? digit : -1;
}

/** A stored line read back; null for a line that is not an entry (a cut last line, a foreign file). */
export function decodeLogLine(line: string): LogEntry | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  const level = typeof r.l === 'number' ? LOG_LEVELS[r.l] : undefined;
  if (typeof r.t !== 'number' || !level) return null;
  const entry: LogEntry = { time: r.t, level };
  if (typeof r.o === 'string') entry.origin = r.o;
  if (typeof r.m === 'string') entry.text = r.m;
  if (typeof r.k === 'string') entry.key = r.k;
  if (typeof r.v === 'object' && r.v !== null) {
    const values: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(r.v)) if (typeof value === 'string' || typeof value === 'number') values[name] = value;
    entry.values = values;
  }
  return entry;
}

const LOG_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export class LogBook {
  private readonly writers = new Map<string, CappedLog>();
  private readonly providers = new Map<string, LogProvider>();
  private readonly foreign = new Map<string, string[]>();
  private dirMade = false;

  constructor(
    readonly dir: string,
    private readonly now: () => number,
    private readonly limits: CappedLogLimits = DEFAULT_LOG_LIMITS,
    /** Told when an entry could not be written (a full disk): a log never fails the work it records. */
    private readonly report: (error: unknown) => void = () => undefined,
  ) {}

  private writer(name: string): CappedLog {
    if (!LOG_NAME.test(name)) throw new Error(`log name ${name}`);
    let writer = this.writers.get(name);
    if (!writer) {
      writer = new CappedLog(this.dir, name, this.limits);
      this.writers.set(name, writer);
    }
    return writer;
  }

  /** Appends an entry to a log the daemon writes (stamped now unless it carries a time). */
  append(name: string, entry: LogEntryInput): void {
    const writer = this.writer(name);
    try {
      if (!this.dirMade) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.dirMade = true;
      writer.append(encodeLogLine({ ...entry, time: entry.time ?? this.now(), level: entry.level as LogLevel }));
    } catch (error) {
      this.report(error);
    }
  }

  /** A domain offers the entries it keeps as the log `name`. */
  provide(name: string, provider: LogProvider): void {
    if (!LOG_NAME.test(name)) throw new Error(`log name ${name}`);
    this.providers.set(name, provider);
  }

  provider(name: string): LogProvider | undefined {
    return this.providers.get(name);
  }

  /**
   * A domain names a file another program writes for the log `name` (syslog-style lines, e.g.
   * charon's IKE log): the log shows its lines after the daemon's own entries.
   */
  addFile(name: string, path: string): void {
    if (!LOG_NAME.test(name)) throw new Error(`log name ${name}`);
    const files = this.foreign.get(name) ?? [];
    if (!files.includes(path)) files.push(path);
    this.foreign.set(name, files);
  }

  /** The files other programs write for a log, as domains named them. */
  filesOf(name: string): readonly string[] {
    return this.foreign.get(name) ?? [];
  }

  /** The files of a log the daemon writes, oldest first. */
  files(name: string): string[] {
    return this.writer(name).files();
  }

  clear(name: string): void {
    this.writer(name).clear();
  }

  close(): void {
    for (const writer of this.writers.values()) writer.close();
  }
}
