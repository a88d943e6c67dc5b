import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dueTimeEnd } from '@portico/schema';
import type { AppContext } from '../../../app-context.js';
import type { LocalUser, LocalUserStore } from '../../hotspot-config/hotspot-config-public.js';
import type { SmsSignIn } from './sms-signin.js';
import type { SmsValues } from './sms-template.js';

/**
 * The two SMS notices local accounts get when their `sms` box is ticked: the new-account
 * message when an administrator adds the account (with its password, the one moment the device
 * knows it in clear), and the due notice once per due time, when the account has less than a
 * day left. Which due notices went out is kept in the state folder, so a restart does not send
 * them again and a new due time is noticed afresh.
 */

/** How long before its due time an account is told it is about to expire. */
export const DUE_NOTICE_LEAD_MS = 24 * 3600_000;
/** How often the due round looks for accounts to tell. */
export const DUE_ROUND_MS = 10 * 60_000;
const SENT_FILE = 'sms-due-sent.json';

/** The template values of an account: speeds in Kbit/s, an empty due time as "-". */
export function accountValues(user: LocalUser, password?: string): SmsValues {
  return {
    account: user.username,
    ...(password !== undefined ? { password } : {}),
    custom: user.comment || '-',
    upload: user.upspeed,
    download: user.downspeed,
    expire: user.duetime || '-',
  };
}

export class SmsNotices {
  private readonly sentFile: string;
  /** `<account id>|<due time>` of the due notices sent. */
  private sent: Set<string>;
  private running: Promise<number> | undefined;

  constructor(
    private readonly ctx: Pick<AppContext, 'now' | 'settings'>,
    private readonly sms: SmsSignIn,
    private readonly users: LocalUserStore,
    private readonly report: (error: unknown, what: string) => void,
  ) {
    this.sentFile = join(ctx.settings.stateDir, SENT_FILE);
    this.sent = new Set(readList(this.sentFile));
  }

  /** The new-account message; nothing when the account asks for none. */
  async accountCreated(user: LocalUser, password: string): Promise<void> {
    if (!user.sms || !user.tel) return;
    const outcome = await this.sms.sendNotice('account', user.tel, accountValues(user, password));
    if (!outcome.ok) this.report(new Error(outcome.error), 'SMS new-account notice not sent');
  }

  /** Sends the due notices that are due; resolves the number sent. One round at a time. */
  dueRound(): Promise<number> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  private async round(): Promise<number> {
    const now = this.ctx.now();
    const users = this.users.list();
    let sent = 0;
    const live = new Set<string>();
    for (const user of users) {
      if (!user.sms || !user.tel || !user.duetime) continue;
      const end = dueTimeEnd(user.duetime);
      if (end === null) continue;
      const key = `${user.id}|${user.duetime}`;
      live.add(key);
      if (this.sent.has(key) || end <= now || end - now > DUE_NOTICE_LEAD_MS) continue;
      const outcome = await this.sms.sendNotice('due', user.tel, accountValues(user));
      // A failed send is tried again next round; the log shows each try.
      if (!outcome.ok) {
        this.report(new Error(outcome.error), 'SMS due notice not sent');
        continue;
      }
      this.sent.add(key);
      sent++;
    }
    // Marks of accounts removed or given another due time are dropped.
    const kept = [...this.sent].filter((key) => live.has(key));
    if (sent > 0 || kept.length !== this.sent.size) {
      this.sent = new Set(kept);
      this.save();
    }
    return sent;
  }

  /** Written whole to a temporary file and renamed over the old one. */
  private save(): void {
    mkdirSync(dirname(this.sentFile), { recursive: true });
    const temp = `${this.sentFile}.tmp`;
    writeFileSync(temp, JSON.stringify([...this.sent]), { mode: 0o600 });
    renameSync(temp, this.sentFile);
  }
}

function readList(file: string): string[] {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}
