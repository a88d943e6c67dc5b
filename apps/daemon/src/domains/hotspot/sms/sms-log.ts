import { SMS_PLATFORMS, type SmsPlatform, type SmsSendError } from './sms-providers.js';
import { SMS_TEMPLATE_KINDS, type SmsTemplateKind } from './sms-template.js';

/**
 * The record behind the SMS log page: which platform, to whom (masked), which kind of message
 * and how it went. An entry has no field for the text or the values, so a code or a password
 * cannot end up here; the phone keeps only its ends.
 */

export type SmsOutcome = 'sms.send.ok' | SmsSendError;

export interface SmsLogEntry {
  /** Unix milliseconds. */
  time: number;
  platform: SmsPlatform;
  phone: string;
  kind: SmsTemplateKind;
  outcome: SmsOutcome;
}

export const SMS_LOG_DEFAULT_CAP = 1000;

const OUTCOMES: readonly SmsOutcome[] = [
  'sms.send.ok', 'sms.send.invalidPhone', 'sms.send.authFailed', 'sms.send.templateNotApproved', 'sms.send.rateLimited',
  'sms.send.rejected', 'sms.send.timeout', 'sms.send.networkError', 'sms.send.badResponse',
];

/** Keeps the first 3 and last 2 characters of a number (a leading '+' not counted) and stars the rest; short numbers keep less. */
export function maskPhone(phone: string): string {
  // '*' is kept so that masking a masked number changes nothing.
  const compact = phone.replace(/[^\d+*]/g, '');
  const plus = compact.startsWith('+') ? '+' : '';
  const digits = compact.slice(plus.length);
  const head = digits.length >= 9 ? 3 : Math.floor(digits.length / 4);
  const tail = digits.length >= 9 ? 2 : Math.floor(digits.length / 4);
  return plus + digits.slice(0, head) + '*'.repeat(digits.length - head - tail) + digits.slice(digits.length - tail);
}

export class SmsLog {
  private readonly entries: SmsLogEntry[] = [];

  constructor(private readonly cap = SMS_LOG_DEFAULT_CAP) {
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError('cap');
  }

  record(entry: { time: number; platform: SmsPlatform; phone: string; kind: SmsTemplateKind; outcome: SmsOutcome }): void {
    this.entries.push({ time: entry.time, platform: entry.platform, phone: maskPhone(entry.phone), kind: entry.kind, outcome: entry.outcome });
    if (this.entries.length > this.cap) this.entries.splice(0, this.entries.length - this.cap);
  }

  /** Newest first, as the log page lists them. */
  list(): SmsLogEntry[] {
    return this.entries.slice().reverse();
  }

  get size(): number {
    return this.entries.length;
  }

  clear(): void {
    this.entries.length = 0;
  }

  toJSON(): SmsLogEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  /** Rebuilds a log from `toJSON()` output, dropping whatever is not a well-formed entry. */
  static fromJSON(data: unknown, cap = SMS_LOG_DEFAULT_CAP): SmsLog {
    const log = new SmsLog(cap);
    if (!Array.isArray(data)) return log;
    for (const item of data) {
      if (!isEntry(item)) continue;
      // Masked again: a stored file is input like any other.
      log.record(item);
    }
    return log;
  }
}

function isEntry(item: unknown): item is SmsLogEntry {
  if (typeof item !== 'object' || item === null) return false;
  const e = item as Record<string, unknown>;
  return (
    typeof e.time === 'number' && Number.isFinite(e.time) &&
    (SMS_PLATFORMS as readonly unknown[]).includes(e.platform) &&
    typeof e.phone === 'string' && e.phone.length <= 32 &&
    (SMS_TEMPLATE_KINDS as readonly unknown[]).includes(e.kind) &&
    (OUTCOMES as readonly unknown[]).includes(e.outcome)
  );
}
