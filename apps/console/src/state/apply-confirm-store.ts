import { create } from 'zustand';

/**
 * A write that can cut the administrator off is applied with a confirmation deadline
 * (DESIGN §4): its reply carries `data.confirm`, and unless the one-time token comes back
 * before the deadline the device puts the previous configuration back. This store keeps the
 * token while it is waiting, in memory and in this tab's sessionStorage so a reload shows the
 * confirmation bar again.
 */

/** `data.confirm` of a write reply. */
export interface ApplyConfirmOffer {
  token: string;
  /** The device's deadline, on the device's clock (ms). */
  deadline: number;
  /** Seconds the device gives from its reply. */
  seconds: number;
}

/** A confirmation the console is waiting for; the deadline is on this browser's clock. */
export interface PendingConfirm {
  token: string;
  deadline: number;
}

/**
 * Said once after the reload that follows the end of a confirmation: the deadline passed,
 * "Revert now" was used, or the device no longer knew the token (confirmed or put back
 * from elsewhere).
 */
export type ApplyConfirmOutcome = 'expired' | 'reverted' | 'gone';

const OUTCOMES: readonly string[] = ['expired', 'reverted', 'gone'];

export const PENDING_STORAGE_KEY = 'portico.applyConfirm';
export const OUTCOME_STORAGE_KEY = 'portico.applyConfirm.outcome';

type SessionStorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Reads `data.confirm` from a reply's data; anything else is not an offer. */
export function confirmOfferOf(data: unknown): ApplyConfirmOffer | null {
  if (!data || typeof data !== 'object') return null;
  const confirm = (data as { confirm?: unknown }).confirm;
  if (!confirm || typeof confirm !== 'object') return null;
  const { token, deadline, seconds } = confirm as Record<string, unknown>;
  if (typeof token !== 'string' || token === '') return null;
  if (!finite(seconds) && !finite(deadline)) return null;
  return { token, deadline: finite(deadline) ? deadline : 0, seconds: finite(seconds) ? seconds : 0 };
}

/**
 * The deadline on this browser's clock. The device's clock may differ from the browser's
 * by minutes, so the seconds it granted count from now; its absolute deadline is used only
 * when no seconds came.
 */
export function localDeadline(offer: ApplyConfirmOffer, now: number): number {
  return offer.seconds > 0 ? now + offer.seconds * 1000 : offer.deadline;
}

/** Whole seconds left, rounded up so the bar shows 1 until the very end; never negative. */
export function secondsLeft(deadline: number, now: number): number {
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

/** Storage can be absent (server renderer, tests) or refuse access (sandboxed frames). */
function browserSession(): SessionStorageLike | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}

export function readStoredPending(storage: SessionStorageLike | undefined, now: number): PendingConfirm | null {
  try {
    const raw = storage?.getItem(PENDING_STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<PendingConfirm> | null;
    if (!value || typeof value.token !== 'string' || value.token === '' || !finite(value.deadline)) return null;
    return value.deadline > now ? { token: value.token, deadline: value.deadline } : null;
  } catch {
    return null;
  }
}

function writeStored(storage: SessionStorageLike | undefined, key: string, value: string | null): void {
  try {
    if (value === null) storage?.removeItem(key);
    else storage?.setItem(key, value);
  } catch {
    // Kept in memory only: the bar still shows until this page is left.
  }
}

function readOutcome(storage: SessionStorageLike | undefined): ApplyConfirmOutcome | null {
  try {
    const value = storage?.getItem(OUTCOME_STORAGE_KEY);
    return value && OUTCOMES.includes(value) ? (value as ApplyConfirmOutcome) : null;
  } catch {
    return null;
  }
}

interface ApplyConfirmState {
  pending: PendingConfirm | null;
  /** The deadline passed or a revert was asked: waiting for the device before reloading. */
  restoring: boolean;
  outcome: ApplyConfirmOutcome | null;
  /** Takes `data.confirm` of a reply; returns whether it was one. */
  offer(data: unknown, now?: number): boolean;
  /** Moves the deadline to what the device reports (seconds left). */
  resync(seconds: number, now?: number): void;
  /** Confirmed, or the device no longer waits: the bar goes away. */
  clear(): void;
  /** The change is being put back; the outcome is remembered across the coming reload. */
  startRestoring(outcome: ApplyConfirmOutcome): void;
  /** Page load: a token still in time shows the bar again; an outcome is shown once. */
  restore(now?: number): void;
  dismissOutcome(): void;
}

export const useApplyConfirmStore = create<ApplyConfirmState>()((set, get) => ({
  pending: null,
  restoring: false,
  outcome: null,
  offer(data, now = Date.now()) {
    const offer = confirmOfferOf(data);
    if (!offer) return false;
    const pending = { token: offer.token, deadline: localDeadline(offer, now) };
    writeStored(browserSession(), PENDING_STORAGE_KEY, JSON.stringify(pending));
    writeStored(browserSession(), OUTCOME_STORAGE_KEY, null);
    set({ pending, restoring: false, outcome: null });
    return true;
  },
  resync(seconds, now = Date.now()) {
    const current = get().pending;
    if (!current || !finite(seconds)) return;
    const pending = { token: current.token, deadline: now + Math.max(0, seconds) * 1000 };
    writeStored(browserSession(), PENDING_STORAGE_KEY, JSON.stringify(pending));
    set({ pending });
  },
  clear() {
    writeStored(browserSession(), PENDING_STORAGE_KEY, null);
    set({ pending: null, restoring: false });
  },
  startRestoring(outcome) {
    const storage = browserSession();
    writeStored(storage, PENDING_STORAGE_KEY, null);
    writeStored(storage, OUTCOME_STORAGE_KEY, outcome);
    set({ pending: null, restoring: true, outcome });
  },
  restore(now = Date.now()) {
    const storage = browserSession();
    const current = get();
    // Mid-restore the outcome must survive the coming reload untouched.
    if (current.restoring) return;
    // What this page already holds wins over storage (the shell can mount again, and
    // storage may refuse writes); an expired token is forgotten either way.
    const held = current.pending && current.pending.deadline > now ? current.pending : null;
    const pending = held ?? readStoredPending(storage, now);
    const outcome = current.outcome ?? readOutcome(storage);
    if (!pending) writeStored(storage, PENDING_STORAGE_KEY, null);
    writeStored(storage, OUTCOME_STORAGE_KEY, null);
    set({ pending, outcome });
  },
  dismissOutcome: () => set({ outcome: null }),
}));

/** The API client hands every successful write's data here. */
export function offerApplyConfirm(data: unknown): void {
  useApplyConfirmStore.getState().offer(data);
}
