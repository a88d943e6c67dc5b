import { realScheduler, type Scheduler } from '../../config/config-types.js';

/**
 * Channel planning of the console's /wirelessmanage/wifiplaning page (spec §4): one run scans
 * every online AP, plans the channels from the scans and holds the plan until the
 * administrator saves it.
 *
 *   idle ─start─┬─▶ scanning ─┬─▶ optimising ─┬─▶ planned ─save─▶ saving ─┬─▶ saved
 *               │             │               │       ▲                   │
 *               │             │               │       └── apply refused ──┘ (error saveFailed)
 *               │             │               └─▶ planFailed (the planner refused the scans)
 *               │             └─▶ scanFailed (every scan failed)
 *               └─▶ allOffline (no AP online at the start)
 *   scanning, optimising, planned ─cancel─▶ cancelled
 *
 * Scanning asks each online AP for a scan (the AP listens 5–15 s), at most `concurrency` at a
 * time: an AP scanning is off its own channel part of the time, so fewer at once keeps the
 * others' neighbour lists faithful, while a site of hundreds of APs still finishes in minutes.
 * A scan that fails or has not answered within SCAN_TIMEOUT_MS (15 s) counts as failed; the
 * run goes on with the others and names the failed APs (`failedApIds`, the console's "some AP
 * scans failed"); only when all fail does it end in scanFailed. `cancel` stops a run before it
 * is saved (state cancelled; scans in flight are aborted through their signal, late answers
 * ignored); saving cannot be cancelled halfway. `start` is refused while a run is scanning,
 * optimising or saving; from any other state it begins a new run (an unsaved plan is dropped).
 *
 * Everything outside is injected: the device protocol's scan request, the planner, the apply of
 * a plan, and the clock and timers (tests move fake time). The snapshot is what the API polls.
 *
 * Codes (the console maps them to i18n keys): start refusal `planningRunning`; save refusals
 * `planningRunning`, `noPlan`, and `saveFailed` when the apply was rejected; snapshot errors
 * `planFailed` (with the planner's own code as `detail` when it gave one) and `saveFailed`.
 */

export const CHANNEL_PLANNING_STATES = [
  'idle',
  'allOffline',
  'scanning',
  'scanFailed',
  'optimising',
  'planFailed',
  'planned',
  'saving',
  'saved',
  'cancelled',
] as const;
export type ChannelPlanningState = (typeof CHANNEL_PLANNING_STATES)[number];

/** States in which `start` is refused and `cancel` (but for saving) applies. */
const RUNNING: ReadonlySet<ChannelPlanningState> = new Set(['scanning', 'optimising', 'saving']);

/** The longest an AP scan may take (spec §4: 5–15 s per AP). */
export const SCAN_TIMEOUT_MS = 15_000;
export const DEFAULT_SCAN_CONCURRENCY = 8;

export type ChannelPlanningRefusal = 'planningRunning' | 'noPlan' | 'saveFailed';
export type ChannelPlanningErrorCode = 'planFailed' | 'saveFailed';

export interface PlanningAp {
  id: string;
  online: boolean;
}

export interface ChannelPlanningDeps<Scan, Plan> {
  /** Asks the AP to scan; resolves with its scan. `signal` aborts when the answer is no longer wanted. */
  requestScan(apId: string, signal: AbortSignal): Promise<Scan>;
  /** The channel plan of the scans that came back (by AP id). */
  plan(scans: ReadonlyMap<string, Scan>): Plan | Promise<Plan>;
  /** Makes the plan the configuration. */
  applyPlan(plan: Plan): Promise<void>;
  schedule?: Scheduler;
  /** Milliseconds since the epoch. */
  now?: () => number;
  scanTimeoutMs?: number;
  concurrency?: number;
}

export interface ChannelPlanningSnapshot<Plan> {
  state: ChannelPlanningState;
  /** Scans finished (answered, failed or timed out) of the scans asked for. */
  progress: { done: number; total: number };
  /** APs whose scan failed or timed out, in the order they failed. */
  failedApIds: string[];
  /** APs offline at the start, not asked. */
  offlineApIds: string[];
  plan: Plan | null;
  startedAt: number | null;
  finishedAt: number | null;
  error: { code: ChannelPlanningErrorCode; detail?: string } | null;
}

export type ChannelPlanningResult = { ok: true } | { ok: false; code: ChannelPlanningRefusal };

export interface ChannelPlanning<Plan> {
  start(aps: readonly PlanningAp[]): ChannelPlanningResult;
  save(): Promise<ChannelPlanningResult>;
  /** True when a run was stopped. */
  cancel(): boolean;
  snapshot(): ChannelPlanningSnapshot<Plan>;
}

/** The code an error carries (the planner's WirelessPlanError has one), if any. */
function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function createChannelPlanning<Scan, Plan>(deps: ChannelPlanningDeps<Scan, Plan>): ChannelPlanning<Plan> {
  const schedule = deps.schedule ?? realScheduler;
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.scanTimeoutMs ?? SCAN_TIMEOUT_MS;
  const concurrency = Math.max(1, Math.floor(deps.concurrency ?? DEFAULT_SCAN_CONCURRENCY));

  let current: ChannelPlanningSnapshot<Plan> = {
    state: 'idle',
    progress: { done: 0, total: 0 },
    failedApIds: [],
    offlineApIds: [],
    plan: null,
    startedAt: null,
    finishedAt: null,
    error: null,
  };
  // Each run has its own number and abort controller: whatever a stopped run's promises do
  // later finds a newer number and changes nothing.
  let run = 0;
  let abort = new AbortController();

  const finish = (patch: Partial<ChannelPlanningSnapshot<Plan>>): void => {
    current = { ...current, ...patch, finishedAt: now() };
  };

  /** One AP's scan: its answer, or undefined when it failed or ran out of time. */
  function scanOne(apId: string, signal: AbortSignal): Promise<{ scan: Scan } | undefined> {
    return new Promise((resolve) => {
      const apSignal = new AbortController();
      let settled = false;
      const settle = (outcome: { scan: Scan } | undefined) => {
        if (settled) return;
        settled = true;
        cancelTimer();
        signal.removeEventListener('abort', onAbort);
        apSignal.abort();
        resolve(outcome);
      };
      const onAbort = () => settle(undefined);
      const cancelTimer = schedule(timeoutMs, () => settle(undefined));
      signal.addEventListener('abort', onAbort);
      let request: Promise<Scan>;
      try {
        request = Promise.resolve(deps.requestScan(apId, apSignal.signal));
      } catch {
        request = Promise.reject(new Error('scan request failed'));
      }
      request.then(
        (scan) => settle({ scan }),
        () => settle(undefined),
      );
    });
  }

  async function scanAndPlan(id: number, apIds: string[], signal: AbortSignal): Promise<void> {
    const scans = new Map<string, Scan>();
    const queue = [...apIds];
    const worker = async (): Promise<void> => {
      for (let apId = queue.shift(); apId !== undefined && id === run; apId = queue.shift()) {
        const outcome = await scanOne(apId, signal);
        if (id !== run) return;
        if (outcome) scans.set(apId, outcome.scan);
        current = {
          ...current,
          progress: { ...current.progress, done: current.progress.done + 1 },
          failedApIds: outcome ? current.failedApIds : [...current.failedApIds, apId],
        };
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, apIds.length) }, worker));
    if (id !== run) return;
    if (scans.size === 0) return finish({ state: 'scanFailed' });
    current = { ...current, state: 'optimising' };
    try {
      const plan = await deps.plan(scans);
      if (id === run) finish({ state: 'planned', plan });
    } catch (error) {
      if (id === run) finish({ state: 'planFailed', error: { code: 'planFailed', detail: errorCode(error) } });
    }
  }

  return {
    start(aps) {
      if (RUNNING.has(current.state)) return { ok: false, code: 'planningRunning' };
      run += 1;
      abort = new AbortController();
      const online = aps.filter((ap) => ap.online).map((ap) => ap.id);
      current = {
        state: online.length === 0 ? 'allOffline' : 'scanning',
        progress: { done: 0, total: online.length },
        failedApIds: [],
        offlineApIds: aps.filter((ap) => !ap.online).map((ap) => ap.id),
        plan: null,
        startedAt: now(),
        finishedAt: online.length === 0 ? now() : null,
        error: null,
      };
      if (online.length > 0) void scanAndPlan(run, online, abort.signal);
      return { ok: true };
    },

    async save() {
      if (RUNNING.has(current.state)) return { ok: false, code: 'planningRunning' };
      const plan = current.plan;
      if (current.state !== 'planned' || plan === null) return { ok: false, code: 'noPlan' };
      const id = run;
      current = { ...current, state: 'saving', error: null };
      try {
        await deps.applyPlan(plan);
      } catch {
        if (id === run) current = { ...current, state: 'planned', error: { code: 'saveFailed' } };
        return { ok: false, code: 'saveFailed' };
      }
      if (id === run) finish({ state: 'saved' });
      return { ok: true };
    },

    cancel() {
      if (current.state !== 'scanning' && current.state !== 'optimising' && current.state !== 'planned') return false;
      run += 1;
      abort.abort();
      finish({ state: 'cancelled', plan: null });
      return true;
    },

    snapshot() {
      return { ...current, progress: { ...current.progress }, failedApIds: [...current.failedApIds], offlineApIds: [...current.offlineApIds] };
    },
  };
}
