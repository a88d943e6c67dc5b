import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { parsePhone } from './sms-providers.js';

/**
 * Verification codes for signing in at the portal by SMS. A code lives a few minutes; guessing
 * is bounded per phone number, per client MAC and per code, and each try is counted before its
 * code is compared, so a burst of parallel tries can never compare more codes than the limits
 * allow. A new code for a number or a client waits out a cool-down, which also bounds what the
 * gateway spends on messages.
 */

export interface SmsCodeOptions {
  /** Digits in a code, 4 to 8. */
  length?: number;
  lifetimeMs?: number;
  /** Wrong tries after which a code is void. */
  attemptsPerCode?: number;
  /** Tries per phone number within `windowMs`, whichever client makes them. */
  attemptsPerPhone?: number;
  /** Tries per client MAC within `windowMs`, whichever numbers they name. */
  attemptsPerMac?: number;
  windowMs?: number;
  resendCooldownMs?: number;
  now?: () => number;
  /** How a try is compared with the code; constant-time by default. */
  compare?: (expected: string, given: string) => Promise<boolean>;
}

export const SMS_CODE_DEFAULTS = {
  length: 6,
  lifetimeMs: 5 * 60_000,
  attemptsPerCode: 5,
  attemptsPerPhone: 10,
  attemptsPerMac: 10,
  windowMs: 15 * 60_000,
  resendCooldownMs: 60_000,
} as const;

export type SmsCodeIssue =
  | { ok: true; code: string; expiresAt: number }
  | { ok: false; error: 'sms.code.invalidPhone' | 'sms.code.invalidMac' }
  | { ok: false; error: 'sms.code.cooldown'; retryAt: number };

export type SmsCodeVerify =
  | { ok: true }
  | { ok: false; error: 'sms.code.invalidPhone' | 'sms.code.invalidMac' | 'sms.code.none' | 'sms.code.expired' | 'sms.code.wrong' | 'sms.code.tooMany' };

interface PendingCode {
  code: string;
  expiresAt: number;
  tries: number;
}

interface Window {
  start: number;
  count: number;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Compares digests of equal length, so the time taken says nothing about how much of a try was right. */
export async function constantTimeCodeEqual(expected: string, given: string): Promise<boolean> {
  return timingSafeEqual(digest(expected), digest(given));
}

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
// Above this many tracked keys, stale ones are swept before each operation.
const SWEEP_ABOVE = 256;

export class SmsCodeGuard {
  private readonly options: Required<Omit<SmsCodeOptions, 'now' | 'compare'>>;
  private readonly now: () => number;
  private readonly compare: (expected: string, given: string) => Promise<boolean>;
  private readonly codes = new Map<string, PendingCode>();
  private readonly phoneTries = new Map<string, Window>();
  private readonly macTries = new Map<string, Window>();
  private readonly lastSentToPhone = new Map<string, number>();
  private readonly lastSentForMac = new Map<string, number>();

  constructor(options: SmsCodeOptions = {}) {
    this.options = { ...SMS_CODE_DEFAULTS, ...withoutUndefined(options) };
    const { length } = this.options;
    if (!Number.isInteger(length) || length < 4 || length > 8) throw new RangeError('length');
    this.now = options.now ?? Date.now;
    this.compare = options.compare ?? constantTimeCodeEqual;
  }

  /** A fresh code for `phone`, asked for by the client `mac`; the caller sends it and calls `withdraw` if the send fails. */
  issue(phone: string, mac: string): SmsCodeIssue {
    const subject = this.subject(phone, mac);
    if ('error' in subject) return subject;
    const { phoneKey, macKey, now } = subject;
    const cooldown = this.options.resendCooldownMs;
    const retryAt = Math.max((this.lastSentToPhone.get(phoneKey) ?? -Infinity) + cooldown, (this.lastSentForMac.get(macKey) ?? -Infinity) + cooldown);
    if (now < retryAt) return { ok: false, error: 'sms.code.cooldown', retryAt };
    this.lastSentToPhone.set(phoneKey, now);
    this.lastSentForMac.set(macKey, now);
    const code = String(randomInt(0, 10 ** this.options.length)).padStart(this.options.length, '0');
    const expiresAt = now + this.options.lifetimeMs;
    this.codes.set(phoneKey, { code, expiresAt, tries: 0 });
    return { ok: true, code, expiresAt };
  }

  /** Forgets the pending code of `phone` (its message could not be sent); the cool-down stays. */
  withdraw(phone: string): void {
    const phoneKey = phoneKeyOf(phone);
    if (phoneKey) this.codes.delete(phoneKey);
  }

  async verify(phone: string, mac: string, given: string): Promise<SmsCodeVerify> {
    const subject = this.subject(phone, mac);
    if ('error' in subject) return subject;
    const { phoneKey, macKey, now } = subject;
    // Everything up to the reservation below runs without a pause, so parallel tries see each other's counts.
    const phoneWindow = this.windowOf(this.phoneTries, phoneKey, now);
    const macWindow = this.windowOf(this.macTries, macKey, now);
    if (phoneWindow.count >= this.options.attemptsPerPhone || macWindow.count >= this.options.attemptsPerMac) {
      return { ok: false, error: 'sms.code.tooMany' };
    }
    const pending = this.codes.get(phoneKey);
    if (!pending) return { ok: false, error: 'sms.code.none' };
    if (now >= pending.expiresAt) {
      this.codes.delete(phoneKey);
      return { ok: false, error: 'sms.code.expired' };
    }
    if (pending.tries >= this.options.attemptsPerCode) return { ok: false, error: 'sms.code.tooMany' };
    phoneWindow.count += 1;
    macWindow.count += 1;
    pending.tries += 1;
    const right = await this.compare(pending.code, given);
    if (!right) {
      if (pending.tries >= this.options.attemptsPerCode && this.codes.get(phoneKey) === pending) this.codes.delete(phoneKey);
      return { ok: false, error: 'sms.code.wrong' };
    }
    // A code signs in once: of two right tries in flight, the second finds it gone.
    if (this.codes.get(phoneKey) !== pending) return { ok: false, error: 'sms.code.none' };
    if (this.now() >= pending.expiresAt) {
      this.codes.delete(phoneKey);
      return { ok: false, error: 'sms.code.expired' };
    }
    this.codes.delete(phoneKey);
    return { ok: true };
  }

  /** The keys of a request and the time it is handled at; stale entries are swept first. */
  private subject(phone: string, mac: string): { phoneKey: string; macKey: string; now: number } | { ok: false; error: 'sms.code.invalidPhone' | 'sms.code.invalidMac' } {
    const phoneKey = phoneKeyOf(phone);
    if (!phoneKey) return { ok: false, error: 'sms.code.invalidPhone' };
    const macKey = macKeyOf(mac);
    if (!macKey) return { ok: false, error: 'sms.code.invalidMac' };
    const now = this.now();
    this.sweep(now);
    return { phoneKey, macKey, now };
  }

  private windowOf(map: Map<string, Window>, key: string, now: number): Window {
    let window = map.get(key);
    if (!window || now - window.start >= this.options.windowMs) {
      window = { start: now, count: 0 };
      map.set(key, window);
    }
    return window;
  }

  private sweep(now: number): void {
    const { windowMs, resendCooldownMs } = this.options;
    if (this.codes.size > SWEEP_ABOVE) for (const [key, code] of this.codes) if (now >= code.expiresAt) this.codes.delete(key);
    for (const map of [this.phoneTries, this.macTries]) {
      if (map.size > SWEEP_ABOVE) for (const [key, window] of map) if (now - window.start >= windowMs) map.delete(key);
    }
    for (const map of [this.lastSentToPhone, this.lastSentForMac]) {
      if (map.size > SWEEP_ABOVE) for (const [key, at] of map) if (now - at >= resendCooldownMs) map.delete(key);
    }
  }
}

/** One key per number however it is written: the digits, with '+' when E.164. */
function phoneKeyOf(phone: string): string | null {
  const parsed = parsePhone(phone);
  if (!parsed) return null;
  return parsed.kind === 'e164' ? `+${parsed.digits}` : parsed.digits;
}

function macKeyOf(mac: string): string | null {
  const key = mac.trim().toLowerCase().replace(/-/g, ':');
  return MAC.test(key) ? key : null;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
