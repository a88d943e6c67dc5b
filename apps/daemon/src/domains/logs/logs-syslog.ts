import type { LogEntry, LogLevel } from '@portico/schema';

/**
 * Lines other programs write to a file, read as entries: the classic syslog stamp
 * (`Nov 27 08:33:30 host prog[pid]: text`, rsyslog's kern.log; dnsmasq's `log-facility` file
 * writes it without a host), RFC 3339 stamps (rsyslog's newer default) and charon's file log
 * (`Nov 27 08:33:30 05[IKE] text`). The text stays as written: the console shows it escaped.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const CLASSIC = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (.*)$/;
const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})) (.*)$/;
/** `[host ]prog[pid]: text`; a host is a word without brackets or colon. */
const PROGRAM = /^(?:([^\s:[\]]+) )?([A-Za-z0-9_./-]+)(?:\[\d+\])?: (.*)$/;

/** Words that mark a line as a problem where the file carries no level. */
const WARNING = /\b(fail(?:ed|ure)?|error|refused|denied|DHCPNAK|no address available|timeout)\b/i;

function levelOf(text: string): LogLevel {
  return WARNING.test(text) ? 'warning' : 'info';
}

/** A classic stamp has no year: the one that puts the time not after tomorrow. */
function classicTime(month: number, day: number, h: number, m: number, s: number, now: number): number {
  const year = new Date(now).getFullYear();
  const time = new Date(year, month, day, h, m, s).getTime();
  return time > now + 86_400_000 ? new Date(year - 1, month, day, h, m, s).getTime() : time;
}

function withProgram(time: number, rest: string): LogEntry {
  const program = PROGRAM.exec(rest);
  if (!program) return { time, level: levelOf(rest), text: rest };
  return { time, level: levelOf(program[3]!), origin: program[2]!, text: program[3]! };
}

/** One line as an entry; null for a line without a stamp (it continues the one before). */
export function parseSyslogLine(line: string, now: number): LogEntry | null {
  const classic = CLASSIC.exec(line);
  if (classic) {
    const month = MONTHS.indexOf(classic[1]!);
    if (month < 0) return null;
    const time = classicTime(month, Number(classic[2]), Number(classic[3]), Number(classic[4]), Number(classic[5]), now);
    return withProgram(time, classic[6]!);
  }
  const rfc = RFC3339.exec(line);
  if (rfc) {
    const time = Date.parse(rfc[1]!);
    if (Number.isNaN(time)) return null;
    return withProgram(time, rfc[2]!);
  }
  return null;
}

/** A journal entry of `journalctl -o json`: its fields are strings (or byte arrays for binary). */
export function parseJournalLine(line: string): LogEntry | null {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  const micros = Number(raw.__REALTIME_TIMESTAMP);
  if (!Number.isFinite(micros)) return null;
  const message = typeof raw.MESSAGE === 'string' ? raw.MESSAGE : Array.isArray(raw.MESSAGE) ? Buffer.from(raw.MESSAGE as number[]).toString('utf8') : '';
  const priority = Number(raw.PRIORITY);
  const levels: LogLevel[] = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'];
  const origin = typeof raw.SYSLOG_IDENTIFIER === 'string' ? raw.SYSLOG_IDENTIFIER : 'kernel';
  return { time: Math.floor(micros / 1000), level: levels[Number.isInteger(priority) && priority >= 0 && priority <= 7 ? priority : 6]!, origin, text: message };
}
