import { hostname } from 'node:os';
import {
  DEFAULT_LANGUAGE,
  emailRecipient,
  emailServer,
  type EmailRecipient,
  type EmailNoticeStatus,
  type EmailServer,
  type HealthEvent,
  type Language,
} from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { Scheduler } from '../../config/config-types.js';
import type { LogEntryInput } from '../../config/log-book.js';
import { configRowCollection, configRowSingleton } from '../../config/entity-store.js';
import { composeMessage, noticeText, type MailKind } from './email-notice-message.js';
import type { MailQueue, QueuedMail } from './email-notice-queue.js';
import type { SmtpResult, SmtpTransport } from './email-notice-smtp.js';

/** Waits between passes while the server fails, by consecutive failures; the last repeats. */
export const EMAIL_RETRY_MS = [30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000] as const;
/** A message not delivered within this age is given up (and logged). */
export const EMAIL_GIVE_UP_MS = 3 * 24 * 3_600_000;
/** The log book's log the results go to. */
export const EMAIL_LOG = 'email';

export type EmailQueueStatus = Omit<EmailNoticeStatus, 'results'>;

/**
 * The e-mail notices: a security event becomes one message per recipient who asked for its
 * kind, in that recipient's language (or the device's), queued in the database and handed to
 * the SMTP server one at a time. While the server fails, passes wait longer and longer
 * (EMAIL_RETRY_MS); a permanent refusal (5xx, wrong credentials) gives the message up at once.
 */
export class EmailNotifier {
  private timer: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private failures = 0;
  private retryAt: number | null = null;
  private lastError = '';
  private stopped = false;

  constructor(
    private readonly ctx: Pick<AppContext, 'db' | 'now' | 'logs'>,
    private readonly queue: MailQueue,
    private readonly transport: Pick<SmtpTransport, 'send'>,
    private readonly schedule: Scheduler,
    private readonly device: () => string = () => hostname(),
  ) {}

  settings(): EmailServer {
    return emailServer.schema.parse(configRowSingleton(this.ctx.db, emailServer.name, this.ctx.now).read() ?? {});
  }

  recipients(): EmailRecipient[] {
    const rows = configRowCollection(this.ctx.db, emailRecipient.name, this.ctx.now).list() as Record<string, unknown>[];
    return rows.flatMap((row) => {
      const parsed = emailRecipient.schema.safeParse(row);
      return parsed.success ? [parsed.data] : [];
    });
  }

  private ready(settings: EmailServer): boolean {
    return settings.enabled && settings.server !== '' && settings.sender !== '';
  }

  private languageOf(recipient: Pick<EmailRecipient, 'language'>, settings: EmailServer): Language {
    return recipient.language === 'device' ? (settings.language ?? DEFAULT_LANGUAGE) : recipient.language;
  }

  private compose(kind: MailKind, to: string, language: Language, settings: EmailServer, at: number, values: Record<string, string>): string {
    const device = this.device();
    const time = new Date(at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    const text = noticeText(kind, language, { ...values, device, time });
    return composeMessage({ from: settings.sender, to, subject: text.subject, body: text.body, language, date: at, idDomain: device });
  }

  /** A recorded security event: queued for every enabled recipient who asked for its kind. */
  onEvent(event: HealthEvent): void {
    if (this.stopped) return;
    const settings = this.settings();
    if (!this.ready(settings)) return;
    const values = { interface: event.interface, port: event.port, ip: event.ip, mac: event.mac, otherMac: event.otherMac };
    const items = this.recipients()
      .filter((r) => r.enabled && r.events.includes(event.kind))
      .flatMap((r) => {
        try {
          return [{ created: this.ctx.now(), event: event.kind, recipient: r.address, message: this.compose(event.kind, r.address, this.languageOf(r, settings), settings, event.time, values) }];
        } catch (error) {
          this.log('warning', 'logs.email.dropped', { event: event.kind, address: r.address, reason: String(error instanceof Error ? error.message : error) });
          return [];
        }
      });
    if (items.length === 0) return;
    for (const dropped of this.queue.add(items)) {
      this.log('warning', 'logs.email.dropped', { event: dropped.event, address: dropped.recipient, reason: 'queue full' });
    }
    this.kick();
  }

  /** The test message: sent at once with the saved settings, not queued; the answer says how it went. */
  async test(to: string): Promise<SmtpResult | null> {
    const settings = this.settings();
    if (!this.ready(settings)) return null;
    const at = this.ctx.now();
    const message = this.compose('test', to, settings.language, settings, at, {});
    const result = await this.transport.send(settings, to, message);
    if (result.delivered) this.log('info', 'logs.email.sent', { event: 'test', address: to });
    else this.log('warning', 'logs.email.failed', { event: 'test', address: to, attempt: 1, error: result.error });
    return result;
  }

  /** Starts a pass now unless one runs or a retry wait is on (settings saved again end the wait). */
  kick(options: { now?: boolean } = {}): void {
    if (this.stopped || this.running) return;
    if (this.timer && !options.now) return;
    this.timer?.();
    this.timer = this.schedule(0, () => this.startPass());
  }

  private startPass(): void {
    this.timer = undefined;
    if (this.stopped || this.running) return;
    this.running = this.pass().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once the current pass (if any) has finished: tests wait on it. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async pass(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const item = this.queue.next();
      if (!item) break;
      const settings = this.settings();
      // Off or unset: the messages wait; saving the settings starts a pass again.
      if (!this.ready(settings)) return;
      if (this.ctx.now() - item.created > EMAIL_GIVE_UP_MS) {
        this.giveUp(item, 'too old');
        continue;
      }
      // A recipient deleted or switched off meanwhile (or a factory reset) is told nothing more.
      if (!this.recipients().some((r) => r.enabled && r.address === item.recipient)) {
        this.giveUp(item, 'no longer a recipient');
        continue;
      }
      const result = await this.transport.send(settings, item.recipient, item.message);
      if (result.delivered) {
        this.queue.remove(item.id);
        this.queue.count('sent');
        this.failures = 0;
        this.retryAt = null;
        this.lastError = '';
        this.log('info', 'logs.email.sent', { event: item.event, address: item.recipient });
        continue;
      }
      this.lastError = result.error;
      if (result.permanent) {
        this.giveUp(item, result.error);
        continue;
      }
      const attempts = this.queue.failed(item.id, result.error);
      // The first failure and every tenth: a server down for a day does not flood the log.
      if (attempts === 1 || attempts % 10 === 0) this.log('warning', 'logs.email.failed', { event: item.event, address: item.recipient, attempt: attempts, error: result.error });
      const wait = EMAIL_RETRY_MS[Math.min(this.failures, EMAIL_RETRY_MS.length - 1)]!;
      this.failures++;
      this.retryAt = this.ctx.now() + wait;
      this.timer = this.schedule(wait, () => this.startPass());
      return;
    }
    this.retryAt = null;
  }

  private giveUp(item: QueuedMail, reason: string): void {
    this.queue.remove(item.id);
    this.queue.count('given-up');
    this.log('err', 'logs.email.dropped', { event: item.event, address: item.recipient, reason });
  }

  status(): EmailQueueStatus {
    return {
      waiting: this.queue.size(),
      sent: this.queue.counter('sent'),
      dropped: this.queue.counter('dropped'),
      givenUp: this.queue.counter('given-up'),
      retryAt: this.retryAt,
      lastError: this.lastError,
    };
  }

  private log(level: LogEntryInput['level'], key: string, values: Record<string, string | number>): void {
    this.ctx.logs.append(EMAIL_LOG, { level, origin: 'email', key, values });
  }

  stop(): void {
    this.stopped = true;
    this.timer?.();
    this.timer = undefined;
  }
}
