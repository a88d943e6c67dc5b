import type { CommandRunner } from '../../engine/command-runner.js';
import { integer, ipv4 } from '../network/network-public.js';
import type { HotspotPlan, HotspotSession, ReminderSettings, ReminderThresholds } from './hotspot-types.js';

/**
 * The remote expiration reminder (spec §3 Remote reminder): a signed-in client whose time or
 * traffic is nearly used up is reminded at most once per interval. Reminding it means putting
 * its address into a runtime nftables set; the ruleset sends the next web request of an address
 * in that set (on the reminder's port) to the portal, which shows the reminder and takes the
 * address out again.
 */

/** Clients whose next web request lands on the reminder, by IP. */
export const REMIND_SET = 'hs_remind';
const REMINDER_TABLE = 'inet portico';
/**
 * How long an address stays in the set when the client makes no web request: the kernel drops
 * it by itself, so a reminder never outlives a daemon that stopped.
 */
export const REMINDER_HOLD_SECONDS = 3600;

/** Where clients to remind take effect. */
export interface ReminderRedirect {
  /** Adds and removes client addresses; removing an absent address is not an error. */
  remind(add: readonly string[], remove: readonly string[]): Promise<void>;
}

/** The thresholds that apply to a session: its plan's, or the accounting's for a plan-less account. */
export function thresholdsFor(session: HotspotSession, plans: readonly HotspotPlan[], settings: ReminderSettings): ReminderThresholds | null {
  if (session.plan) return plans.find((p) => p.name === session.plan)?.remind ?? null;
  // Logins without an account (password, one-key) have nothing to renew.
  return session.account ? settings.accountThresholds : null;
}

/** Whether a session has no more time or traffic left than its thresholds allow. */
export function withinThresholds(session: HotspotSession, thresholds: ReminderThresholds, now: number): boolean {
  const timeLeft = session.expiresAt === null ? null : session.expiresAt - now;
  const bytesLeft = session.flowLimit === null ? null : session.flowLimit - session.bytesUp - session.bytesDown;
  return (timeLeft !== null && timeLeft <= thresholds.seconds * 1000) || (bytesLeft !== null && bytesLeft <= thresholds.bytes);
}

/** The `nft -f -` lines that add and remove addresses of the reminder set. Pure. */
export function renderReminderBatch(add: readonly string[], remove: readonly string[]): string {
  const lines: string[] = [];
  if (remove.length) lines.push(`delete element ${REMINDER_TABLE} ${REMIND_SET} { ${remove.map((ip) => ipv4(ip)).join(', ')} }`);
  if (add.length) {
    const timeout = integer(REMINDER_HOLD_SECONDS, 1, 2 ** 31, 'timeout');
    lines.push(`add element ${REMINDER_TABLE} ${REMIND_SET} { ${add.map((ip) => `${ipv4(ip)} timeout ${timeout}s`).join(', ')} }`);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** The linux driver's reminder set, changed through `nft -f -` (execa, argument arrays, stdin). */
export class NftReminderRedirect implements ReminderRedirect {
  constructor(private readonly run: CommandRunner) {}

  private async load(script: string): Promise<{ ok: boolean; stderr: string }> {
    if (!script) return { ok: true, stderr: '' };
    const result = await this.run(['nft', '-f', '-'], { input: script, timeoutMs: 30_000 });
    return { ok: result.exitCode === 0, stderr: result.stderr };
  }

  async remind(add: readonly string[], remove: readonly string[]): Promise<void> {
    const whole = await this.load(renderReminderBatch(add, remove));
    if (whole.ok) return;
    if (remove.length === 0) throw new Error(`nft: ${whole.stderr}`);
    // An address the kernel already let time out makes the whole transaction fail: each
    // removal goes alone (an absent one is what was wanted), then the additions.
    for (const ip of remove) await this.load(renderReminderBatch([], [ip]));
    const added = await this.load(renderReminderBatch(add, []));
    if (!added.ok) throw new Error(`nft: ${added.stderr}`);
  }
}

/** The `sim` driver's reminder set: the addresses in memory. */
export class SimReminderRedirect implements ReminderRedirect {
  readonly addresses = new Set<string>();

  async remind(add: readonly string[], remove: readonly string[]): Promise<void> {
    renderReminderBatch(add, remove);
    for (const ip of remove) this.addresses.delete(ip);
    for (const ip of add) this.addresses.add(ip);
  }
}
