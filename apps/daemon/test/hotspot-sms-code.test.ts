import { describe, expect, test } from 'vitest';
import { constantTimeCodeEqual, SmsCodeGuard, type SmsCodeOptions } from '../src/domains/hotspot/sms/sms-code.js';

/**
 * Verification codes: lifetime, cool-down and the guessing limits per code, per phone and per
 * client MAC, with every try counted before its code is compared — checked with parallel bursts
 * whose comparisons all wait at a gate, and a fake clock.
 */

class FakeClock {
  constructor(public ms = 1_800_000_000_000) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A comparison that records each call and waits at a gate, so a whole burst is in flight at once. */
class GatedCompare {
  readonly compared: string[] = [];
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));
  readonly compare = async (expected: string, given: string): Promise<boolean> => {
    this.compared.push(given);
    await this.gate;
    return constantTimeCodeEqual(expected, given);
  };
  open(): void {
    this.opened();
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

const PHONE = '+8613711112222';
const MAC = '02:00:00:00:00:01';
const mac = (i: number): string => `02:00:00:00:01:${i.toString(16).padStart(2, '0')}`;

function guard(options: SmsCodeOptions = {}) {
  const clock = new FakeClock();
  const gated = new GatedCompare();
  const codes = new SmsCodeGuard({ now: clock.now, compare: gated.compare, ...options });
  return { clock, gated, codes };
}

function issued(codes: SmsCodeGuard, phone = PHONE, client = MAC): string {
  const result = codes.issue(phone, client);
  if (!result.ok) throw new Error(result.error);
  return result.code;
}

const wrongFor = (code: string, i: number): string => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');

describe('issuing codes', () => {
  test('a numeric code of the configured length that lives for the lifetime', () => {
    const clock = new FakeClock();
    const codes = new SmsCodeGuard({ now: clock.now, length: 4, lifetimeMs: 300_000, resendCooldownMs: 0 });
    for (let i = 0; i < 50; i++) {
      const result = codes.issue(PHONE, MAC);
      expect(result.ok && /^\d{4}$/.test(result.code)).toBe(true);
      expect(result.ok && result.expiresAt).toBe(clock.ms + 300_000);
    }
    expect(() => new SmsCodeGuard({ length: 3 })).toThrow(RangeError);
    expect(() => new SmsCodeGuard({ length: 9 })).toThrow(RangeError);
  });

  test('the resend cool-down holds per phone and per client MAC', () => {
    const { clock, codes } = guard({ resendCooldownMs: 60_000 });
    issued(codes);
    expect(codes.issue(PHONE, mac(2))).toEqual({ ok: false, error: 'sms.code.cooldown', retryAt: clock.ms + 60_000 });
    expect(codes.issue('+8613900000000', MAC)).toEqual({ ok: false, error: 'sms.code.cooldown', retryAt: clock.ms + 60_000 });
    // The same number written another way is the same number.
    expect(codes.issue('+86 137-1111-2222', mac(3)).ok).toBe(false);
    clock.advance(59_999);
    expect(codes.issue(PHONE, MAC).ok).toBe(false);
    clock.advance(1);
    expect(codes.issue(PHONE, MAC).ok).toBe(true);
  });

  test('bad numbers and MACs are refused', () => {
    const { codes } = guard();
    expect(codes.issue('call me', MAC)).toEqual({ ok: false, error: 'sms.code.invalidPhone' });
    expect(codes.issue(PHONE, 'not-a-mac')).toEqual({ ok: false, error: 'sms.code.invalidMac' });
  });
});

describe('verifying codes', () => {
  test('the right code signs in once; a withdrawn or expired code does not', async () => {
    const { clock, gated, codes } = guard({ resendCooldownMs: 0 });
    gated.open();
    const code = issued(codes);
    expect(await codes.verify(PHONE, MAC, code)).toEqual({ ok: true });
    expect(await codes.verify(PHONE, MAC, code)).toEqual({ ok: false, error: 'sms.code.none' });

    const second = issued(codes);
    codes.withdraw(PHONE);
    expect(await codes.verify(PHONE, MAC, second)).toEqual({ ok: false, error: 'sms.code.none' });

    const third = issued(codes);
    clock.advance(5 * 60_000);
    expect(await codes.verify(PHONE, MAC, third)).toEqual({ ok: false, error: 'sms.code.expired' });
  });

  test('a code is void after its wrong tries, even for the right one', async () => {
    const { gated, codes } = guard({ attemptsPerCode: 3 });
    gated.open();
    const code = issued(codes);
    for (let i = 0; i < 3; i++) expect(await codes.verify(PHONE, MAC, wrongFor(code, i))).toEqual({ ok: false, error: 'sms.code.wrong' });
    expect((await codes.verify(PHONE, MAC, code)).ok).toBe(false);
    expect(gated.compared).toHaveLength(3);
  });

  test('per code: 30 parallel tries with the right one among them compare five and sign nobody in', async () => {
    const { gated, codes } = guard({ attemptsPerCode: 5, attemptsPerPhone: 100, attemptsPerMac: 100 });
    const code = issued(codes);
    const tries = Array.from({ length: 30 }, (_, i) => (i === 12 ? code : wrongFor(code, i)));
    const outcomes = Promise.all(tries.map((given) => codes.verify(PHONE, MAC, given)));
    await until(() => gated.compared.length >= 5);
    gated.open();
    const answers = await outcomes;
    expect(gated.compared).toHaveLength(5);
    expect(answers.filter((a) => a.ok)).toEqual([]);
    expect(answers.filter((a) => !a.ok && a.error === 'sms.code.wrong')).toHaveLength(5);
    expect(answers[12]).toEqual({ ok: false, error: 'sms.code.tooMany' });
  });

  test('per phone: tries from 30 different clients in parallel compare no more than the phone allows', async () => {
    const { gated, codes } = guard({ attemptsPerCode: 100, attemptsPerPhone: 7, attemptsPerMac: 100 });
    const code = issued(codes);
    const outcomes = Promise.all(Array.from({ length: 30 }, (_, i) => codes.verify(PHONE, mac(i), wrongFor(code, i))));
    await until(() => gated.compared.length >= 7);
    gated.open();
    const answers = await outcomes;
    expect(gated.compared).toHaveLength(7);
    expect(answers.filter((a) => !a.ok && a.error === 'sms.code.tooMany')).toHaveLength(23);
    // The window holds for the right code too, until it ends.
    expect(await codes.verify(PHONE, mac(99), code)).toEqual({ ok: false, error: 'sms.code.tooMany' });
  });

  test('per client MAC: one client trying 20 numbers in parallel compares no more than the client allows', async () => {
    const { gated, codes } = guard({ attemptsPerCode: 100, attemptsPerPhone: 100, attemptsPerMac: 10 });
    const phones = Array.from({ length: 20 }, (_, i) => `+86139000000${String(i).padStart(2, '0')}`);
    const sent = phones.map((phone, i) => issued(codes, phone, mac(i)));
    const attacker = '02:00:00:00:99:99';
    const outcomes = Promise.all(phones.map((phone, i) => codes.verify(phone, attacker, wrongFor(sent[i]!, 0))));
    await until(() => gated.compared.length >= 10);
    gated.open();
    const answers = await outcomes;
    expect(gated.compared).toHaveLength(10);
    expect(answers.filter((a) => !a.ok && a.error === 'sms.code.tooMany')).toHaveLength(10);
    // Another client is not held back by the attacker.
    expect(await codes.verify(phones[19]!, mac(19), sent[19]!)).toEqual({ ok: true });
  });

  test('the guessing window ends on the clock, not before', async () => {
    const { clock, gated, codes } = guard({ attemptsPerCode: 100, attemptsPerPhone: 2, windowMs: 15 * 60_000, lifetimeMs: 60 * 60_000 });
    gated.open();
    const code = issued(codes);
    await codes.verify(PHONE, MAC, wrongFor(code, 0));
    await codes.verify(PHONE, MAC, wrongFor(code, 1));
    expect(await codes.verify(PHONE, MAC, code)).toEqual({ ok: false, error: 'sms.code.tooMany' });
    clock.advance(15 * 60_000 - 1);
    expect(await codes.verify(PHONE, MAC, code)).toEqual({ ok: false, error: 'sms.code.tooMany' });
    clock.advance(1);
    expect(await codes.verify(PHONE, MAC, code)).toEqual({ ok: true });
  });

  test('two right tries in flight sign in once', async () => {
    const { gated, codes } = guard();
    const code = issued(codes);
    const outcomes = Promise.all([codes.verify(PHONE, MAC, code), codes.verify(PHONE, mac(2), code)]);
    await until(() => gated.compared.length >= 2);
    gated.open();
    const answers = await outcomes;
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
  });

  test('a code that expires while it is being compared does not sign in', async () => {
    const { clock, gated, codes } = guard();
    const code = issued(codes);
    const outcome = codes.verify(PHONE, MAC, code);
    await until(() => gated.compared.length >= 1);
    clock.advance(5 * 60_000);
    gated.open();
    expect(await outcome).toEqual({ ok: false, error: 'sms.code.expired' });
  });

  test('the default comparison is by digest, equal or not whatever the lengths', async () => {
    expect(await constantTimeCodeEqual('123456', '123456')).toBe(true);
    expect(await constantTimeCodeEqual('123456', '123457')).toBe(false);
    expect(await constantTimeCodeEqual('123456', '1234567')).toBe(false);
    expect(await constantTimeCodeEqual('123456', '')).toBe(false);
  });
});
