/**
 * Progress of the long maintenance operations (spec §4: factory reset, reboot and config
 * upload show progress text with a counter). Pure parts here; the modal renders them.
 */

export type ProgressKind = 'upload' | 'reboot' | 'reset' | 'upgrade';

export interface ProgressState {
  kind: ProgressKind;
  /** Epoch milliseconds the operation started at. */
  startedAt: number;
  /** What the device said a restart takes; null while uploading. */
  expectedSeconds: number | null;
  /** working: counting; back: the device answers again; late: it has not answered for long. */
  phase: 'working' | 'back' | 'late';
}

/** Time between two questions to a restarting device. */
export const POLL_INTERVAL_MS = 2000;
/** A restart not over after this many times its expected length is reported as late. */
export const LATE_FACTOR = 3;
/** ...and never before this many seconds. */
export const LATE_MIN_SECONDS = 120;

export function startProgress(kind: ProgressKind, now: number, expectedSeconds: number | null = null): ProgressState {
  return { kind, startedAt: now, expectedSeconds, phase: 'working' };
}

export function elapsedSeconds(state: Pick<ProgressState, 'startedAt'>, now: number): number {
  return Math.max(0, Math.floor((now - state.startedAt) / 1000));
}

/** Whether a restart has run so long that the console should say where to look for the device. */
export function isLate(state: ProgressState, now: number): boolean {
  if (state.kind === 'upload' || state.expectedSeconds === null) return false;
  return elapsedSeconds(state, now) > Math.max(LATE_MIN_SECONDS, state.expectedSeconds * LATE_FACTOR);
}

/** The i18n key of the counter line. */
export function progressKey(kind: ProgressKind): string {
  return `maintain.progress.${kind}`;
}

type Timer = ReturnType<typeof setTimeout>;

export interface WatchOptions {
  /** One question to the device: true when it answers normally. */
  answers: (signal: AbortSignal) => Promise<boolean>;
  onBack: () => void;
  intervalMs?: number;
  /** Each question gives up after this long: a device going down may leave it hanging. */
  questionTimeoutMs?: number;
  setTimer?: (work: () => void, ms: number) => Timer;
  clearTimer?: (timer: Timer) => void;
}

/**
 * Asks the device every interval whether it answers again, until it does or the watch is
 * cancelled (the returned function).
 */
export function watchForDevice(options: WatchOptions): () => void {
  const interval = options.intervalMs ?? POLL_INTERVAL_MS;
  const setTimer = options.setTimer ?? ((work, ms) => setTimeout(work, ms));
  const clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer));
  let stopped = false;
  let timer: Timer | undefined;
  let inFlight: AbortController | undefined;

  const ask = async () => {
    if (stopped) return;
    inFlight = new AbortController();
    const giveUp = setTimer(() => inFlight?.abort(), options.questionTimeoutMs ?? interval * 2);
    let back = false;
    try {
      back = await options.answers(inFlight.signal);
    } catch {
      back = false;
    } finally {
      clearTimer(giveUp);
    }
    if (stopped) return;
    if (back) {
      stopped = true;
      options.onBack();
      return;
    }
    timer = setTimer(() => void ask(), interval);
  };
  timer = setTimer(() => void ask(), interval);
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimer(timer);
    inFlight?.abort();
  };
}
