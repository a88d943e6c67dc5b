/**
 * Runs a task now and then again one interval after each run finishes. Waiting for the
 * previous answer before scheduling the next means a slow device is never sent a queue of
 * overlapping requests. A failed run is retried on the same rhythm.
 */
export interface Poller {
  start(): void;
  stop(): void;
  /** Runs at once (or right after the run in flight) and restarts the rhythm. */
  refresh(): void;
  readonly running: boolean;
}

export interface PollerTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const globalTimers: PollerTimers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** A fixed interval, or one read before each wait (it may follow the data, e.g. a series step). */
export type PollInterval = number | (() => number);

export function createPoller(task: () => Promise<unknown>, interval: PollInterval, timers: PollerTimers = globalTimers): Poller {
  let running = false;
  let inFlight = false;
  let again = false;
  let timer: unknown = null;
  // Bumped on stop so a run that finishes after stop() schedules nothing.
  let generation = 0;

  function clearTimer() {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
  }

  function schedule(gen: number) {
    clearTimer();
    timer = timers.setTimeout(
      () => {
        timer = null;
        run(gen);
      },
      typeof interval === 'function' ? interval() : interval,
    );
  }

  function run(gen: number) {
    if (!running || gen !== generation) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    again = false;
    let settled: Promise<unknown>;
    try {
      settled = Promise.resolve(task());
    } catch (error) {
      settled = Promise.reject(error);
    }
    settled
      .catch(() => undefined)
      .then(() => {
        inFlight = false;
        if (!running) return;
        // Restarted while this run was out, or refreshed meanwhile: run for the current start.
        if (again || gen !== generation) run(generation);
        else schedule(generation);
      });
  }

  return {
    start() {
      if (running) return;
      running = true;
      generation++;
      run(generation);
    },
    stop() {
      running = false;
      generation++;
      again = false;
      clearTimer();
    },
    refresh() {
      if (!running) return;
      clearTimer();
      run(generation);
    },
    get running() {
      return running;
    },
  };
}
