import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AppContext } from '../../../app-context.js';
import { LOGIN_ERRORS } from '../hotspot-types.js';
import type { OutsideResult } from '../hotspot-engine.js';
import { SmsCodeGuard, type SmsCodeOptions } from './sms-code.js';
import { SmsLog } from './sms-log.js';
import { parsePhone, sendSms, type SmsSendOptions } from './sms-providers.js';
import { renderTemplate, type SmsValues } from './sms-template.js';
import { smsCredentials, smsSettings } from './sms-settings.js';

/**
 * Signing in at the portal with a code sent by SMS: one per daemon (per AppContext), shared by
 * the portal's send-code route, the engine's credential check, the log page and auth/cleantel.
 * The send log is kept in the state folder (masked numbers, no texts) so it survives restarts.
 */

/** `resendSeconds`: how long until another code may be asked for (the client's clock may differ). */
export type SendCodeOutcome =
  | { ok: true; expiresAt: number; retryAt: number; resendSeconds: number }
  | { ok: false; error: string; retryAt?: number; resendSeconds?: number };

const LOG_FILE = 'sms-log.json';
/**
 * Codes sent per minute by the whole portal. The cool-downs hold per number and per device, but a
 * client that keeps changing its MAC and asks for one new number after another would otherwise
 * spend the venue's messages without bound.
 */
export const SMS_SENDS_PER_MINUTE = 60;

export class SmsSignIn {
  readonly guard: SmsCodeGuard;
  readonly log: SmsLog;
  private readonly logFile: string;

  /** When the sends of the last minute went out (or were let through to go out). */
  private readonly recentSends: number[] = [];

  constructor(
    private readonly ctx: Pick<AppContext, 'db' | 'now' | 'settings'>,
    private readonly options: { code?: SmsCodeOptions; send?: SmsSendOptions; sendsPerMinute?: number } = {},
  ) {
    this.guard = new SmsCodeGuard({ now: ctx.now, ...options.code });
    this.logFile = join(ctx.settings.stateDir, LOG_FILE);
    this.log = SmsLog.fromJSON(readJson(this.logFile));
  }

  /** How long after a send the next code for the same phone or client may be asked for. */
  get cooldownMs(): number {
    return this.options.code?.resendCooldownMs ?? 60_000;
  }

  /**
   * Issues a code for `phone` asked for by client `mac` and sends it with the verification
   * template; a failed send withdraws the code (the cool-down stays, so a failing platform is
   * not hammered).
   */
  async sendCode(phone: string, mac: string): Promise<SendCodeOutcome> {
    const settings = smsSettings(this.ctx);
    if (!settings.enabled) return { ok: false, error: 'msg.sms.disabled' };
    if (!parsePhone(phone)) return { ok: false, error: 'msg.sms.send.invalidPhone' };
    // The send is counted before it goes, so parallel requests cannot pass the budget.
    const now = this.ctx.now();
    while (this.recentSends.length && now - this.recentSends[0]! >= 60_000) this.recentSends.shift();
    if (this.recentSends.length >= (this.options.sendsPerMinute ?? SMS_SENDS_PER_MINUTE)) return { ok: false, error: 'msg.sms.send.rateLimited' };
    const issued = this.guard.issue(phone, mac);
    if (!issued.ok) {
      if (issued.error !== 'sms.code.cooldown') return { ok: false, error: `msg.${issued.error}` };
      return { ok: false, error: 'msg.sms.code.cooldown', retryAt: issued.retryAt, resendSeconds: Math.ceil((issued.retryAt - this.ctx.now()) / 1000) };
    }
    // Counted once a code is issued (a refused request sends nothing), before any pause.
    this.recentSends.push(now);
    const rendered = renderTemplate(settings.codeTemplate, { code: issued.code });
    if (!rendered.ok) {
      this.guard.withdraw(phone);
      return { ok: false, error: 'msg.sms.code.notSetUp' };
    }
    const endpoint = settings.endpoint ? { baseUrl: settings.endpoint.replace(/\/$/, '') } : {};
    const result = await sendSms(smsCredentials(settings), { phone, templateId: settings.codeTemplateId, rendered }, { ...this.options.send, ...endpoint });
    this.record({ time: this.ctx.now(), platform: settings.platform, phone, kind: 'code', outcome: result.ok ? 'sms.send.ok' : result.error });
    if (!result.ok) {
      this.guard.withdraw(phone);
      return { ok: false, error: `msg.${result.error}` };
    }
    return { ok: true, expiresAt: issued.expiresAt, retryAt: this.ctx.now() + this.cooldownMs, resendSeconds: Math.ceil(this.cooldownMs / 1000) };
  }

  /**
   * Sends a notice of `kind` (a new account, a due notice) with its template and logs it. Not
   * counted in the portal's per-minute budget: only an administrator's write or the device's
   * own due round start one.
   */
  async sendNotice(kind: 'account' | 'due', phone: string, values: SmsValues): Promise<{ ok: true } | { ok: false; error: string }> {
    const settings = smsSettings(this.ctx);
    if (!settings.enabled) return { ok: false, error: 'msg.sms.disabled' };
    if (!parsePhone(phone)) return { ok: false, error: 'msg.sms.send.invalidPhone' };
    const template = kind === 'account' ? settings.accountTemplate : settings.dueTemplate;
    const templateId = kind === 'account' ? settings.accountTemplateId : settings.dueTemplateId;
    if (template.trim() === '') return { ok: false, error: 'msg.sms.notice.notSetUp' };
    const rendered = renderTemplate(template, values);
    if (!rendered.ok) return { ok: false, error: 'msg.sms.notice.notSetUp' };
    const endpoint = settings.endpoint ? { baseUrl: settings.endpoint.replace(/\/$/, '') } : {};
    const result = await sendSms(smsCredentials(settings), { phone, templateId, rendered }, { ...this.options.send, ...endpoint });
    this.record({ time: this.ctx.now(), platform: settings.platform, phone, kind, outcome: result.ok ? 'sms.send.ok' : result.error });
    return result.ok ? { ok: true } : { ok: false, error: `msg.${result.error}` };
  }

  /** The engine's check of an SMS sign-in: the account is the number as the guard keys it. */
  async verify(phone: string, code: string, mac: string): Promise<OutsideResult> {
    const result = await this.guard.verify(phone, mac, code.trim());
    if (result.ok) {
      const parsed = parsePhone(phone)!;
      return { ok: true, account: parsed.kind === 'e164' ? `+${parsed.digits}` : parsed.digits };
    }
    return { ok: false, error: result.error === 'sms.code.tooMany' ? LOGIN_ERRORS.tooMany : LOGIN_ERRORS.code };
  }

  record(entry: Parameters<SmsLog['record']>[0]): void {
    this.log.record(entry);
    this.saveLog();
  }

  clearLog(): void {
    this.log.clear();
    this.saveLog();
  }

  /** Written whole to a temporary file and renamed over the old one, so a crash leaves one or the other. */
  private saveLog(): void {
    mkdirSync(dirname(this.logFile), { recursive: true });
    const temp = `${this.logFile}.tmp`;
    writeFileSync(temp, JSON.stringify(this.log.toJSON()), { mode: 0o600 });
    renameSync(temp, this.logFile);
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
}

const instances = new WeakMap<object, SmsSignIn>();

/** The SMS sign-in of a daemon; created on first use. */
export function smsSignIn(ctx: Pick<AppContext, 'db' | 'now' | 'settings'>, options?: ConstructorParameters<typeof SmsSignIn>[1]): SmsSignIn {
  let instance = instances.get(ctx);
  if (!instance) {
    instance = new SmsSignIn(ctx, options);
    instances.set(ctx, instance);
  }
  return instance;
}
