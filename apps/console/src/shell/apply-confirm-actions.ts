import type { ApiReply } from '@portico/schema';
import { apiGet, apiPost } from '../api/api-client.js';
import { i18n } from '../i18n/console-i18n.js';
import { useApplyConfirmStore, type ApplyConfirmOutcome } from '../state/apply-confirm-store.js';
import { showSuccessNotice } from './notice.js';

/**
 * The calls behind the confirmation bar and the public /confirm page. POST sysconf/confirm
 * is public: the token is the credential, so it also works from the device's new address
 * where this browser has no session.
 */

export const CONFIRM_API_PATH = 'sysconf/confirm';
/** The public page that confirms with the token in its hash: `/confirm#<token>`. */
export const CONFIRM_PAGE_PATH = '/confirm';
/**
 * The daemon's answers to a token it no longer waits for: the change was already confirmed
 * or put back (its deadline passed, or it was reverted from elsewhere).
 */
export const CONFIRM_GONE_MSGS: ReadonlySet<string> = new Set(['msg.confirmInvalid', 'msg.confirmExpired']);

/** GET sysconf/confirm: whether the device waits for a confirmation (never the token). */
export interface ConfirmStatus {
  pending: boolean;
  secondsLeft: number | null;
}

export function confirmPageLink(token: string): string {
  return `${CONFIRM_PAGE_PATH}#${encodeURIComponent(token)}`;
}

/** The token of `/confirm#<token>`; empty when there is none. */
export function tokenFromHash(hash: string): string {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  try {
    return decodeURIComponent(raw).trim();
  } catch {
    return raw.trim();
  }
}

export function parseConfirmStatus(data: unknown): ConfirmStatus {
  const record = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  const seconds = record.secondsLeft;
  return {
    pending: record.pending === true,
    secondsLeft: typeof seconds === 'number' && Number.isFinite(seconds) ? Math.max(0, seconds) : null,
  };
}

export async function readConfirmStatus(): Promise<ConfirmStatus> {
  return parseConfirmStatus(await apiGet<unknown>(CONFIRM_API_PATH));
}

/** Keeps the change. The action is named: the client would otherwise send `update`. */
export function sendConfirm(token: string): Promise<ApiReply<unknown>> {
  return apiPost<unknown>(CONFIRM_API_PATH, { token, action: 'confirm' });
}

/** Puts the previous configuration back now instead of waiting for the deadline. */
export function sendRevert(token: string): Promise<ApiReply<unknown>> {
  return apiPost<unknown>(CONFIRM_API_PATH, { token, action: 'revert' });
}

/** The device no longer waits for this token. */
export function isGoneReply(reply: ApiReply<unknown>): boolean {
  return !reply.success && CONFIRM_GONE_MSGS.has(reply.msg);
}

export interface WaitOptions {
  readStatus: () => Promise<ConfirmStatus>;
  sleep: (ms: number) => Promise<void>;
  /** Questions asked at most before giving up and reloading anyway. */
  attempts: number;
  intervalMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const DEVICE_WAIT: WaitOptions = { readStatus: readConfirmStatus, sleep, attempts: 10, intervalMs: 3000 };

/**
 * Waits until the device no longer waits for a confirmation, i.e. it has put the previous
 * configuration back. While it does, it may not answer at all (its addresses are being
 * changed back), so failures just mean "ask again". Returns whether it said it was done.
 */
export async function waitForDevice(options: WaitOptions): Promise<boolean> {
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    await options.sleep(options.intervalMs);
    try {
      if (!(await options.readStatus()).pending) return true;
    } catch {
      // Not reachable yet.
    }
  }
  return false;
}

function reloadPage(): void {
  window.location.reload();
}

let restoring: Promise<void> | null = null;

/**
 * The confirmation is over (the deadline passed, "Revert now", or the device no longer knew
 * the token): say so, wait until the device no longer waits, then reload so every page shows
 * the configuration in use. The outcome is kept in this tab and said once after the reload.
 */
export function restoreAndReload(
  outcome: ApplyConfirmOutcome,
  wait: WaitOptions = DEVICE_WAIT,
  reload: () => void = reloadPage,
): Promise<void> {
  restoring ??= (async () => {
    useApplyConfirmStore.getState().startRestoring(outcome);
    try {
      await waitForDevice(wait);
    } finally {
      restoring = null;
      reload();
    }
  })();
  return restoring;
}

type PutBack = (outcome: ApplyConfirmOutcome) => Promise<void>;

/** The bar's "Confirm". */
export async function confirmPending(putBack: PutBack = restoreAndReload): Promise<void> {
  const pending = useApplyConfirmStore.getState().pending;
  if (!pending) return;
  try {
    const reply = await sendConfirm(pending.token);
    if (reply.success) {
      useApplyConfirmStore.getState().clear();
      showSuccessNotice(i18n.t('maintain.confirm.confirmed'));
    } else if (isGoneReply(reply)) {
      await putBack('gone');
    }
    // Any other refusal was reported by the client; the bar stays so it can be tried again.
  } catch {
    // Not sent (reported by the client): this address may be cut off; the bar keeps the link.
  }
}

/** The bar's "Revert now". */
export async function revertPending(putBack: PutBack = restoreAndReload): Promise<void> {
  const pending = useApplyConfirmStore.getState().pending;
  if (!pending) return;
  try {
    const reply = await sendRevert(pending.token);
    if (reply.success) await putBack('reverted');
    else if (isGoneReply(reply)) await putBack('gone');
  } catch {
    // Reported by the client; the bar stays.
  }
}

/**
 * After a reload: asks the device how long it still waits. If it no longer waits, the
 * change was confirmed elsewhere (or already put back) and the bar goes away.
 */
export async function syncPending(): Promise<void> {
  if (!useApplyConfirmStore.getState().pending) return;
  try {
    const status = await readConfirmStatus();
    const store = useApplyConfirmStore.getState();
    if (!status.pending) store.clear();
    else if (status.secondsLeft !== null) store.resync(status.secondsLeft);
  } catch {
    // Reported by the client; the countdown goes on from what this tab remembered.
  }
}
