import { realScheduler, type Scheduler } from '../../config/config-types.js';

/**
 * Staged firmware upgrade of managed APs (the wireless controller's firmware page): the
 * targeted APs go in waves, a canary wave first (`canaryCount` APs, default 1), then waves up
 * to cumulative shares of the targets (`wavePercents`, default 10 %, 50 %, 100 %; a share that
 * adds nobody is skipped). APs already on the target version are `upToDate` and not touched.
 *
 * Each AP of a wave is sent the upgrade (`upgrade(apId)`, injected). When that fails (the AP
 * is offline or unreachable) it is retried after an exponential back-off (`retry.firstDelayMs`
 * doubling, at most `retry.maxDelayMs`) up to `retry.maxAttempts` attempts, then it is
 * `unreachable`: it never ran the new firmware, so it says nothing about it and does not count
 * as a failure. Once sent, the AP must come back on the target version (`apReconnected`)
 * within `returnDeadlineMs`; if it does not, it is rolled back (`rollback(apId)`, injected) and
 * counted as failed. When every AP of a wave is settled the rollout watches the upgraded APs
 * for `soakMs` before the next wave (or before `done` after the last).
 *
 * It halts (no further upgrade is sent) when the failures exceed `maxFailures` (default 0: the
 * first AP that does not come back halts it) or when the median sanity (0–100, `apHealth`) of
 * the upgraded APs falls below `minMedianSanity`; health reports count only from APs this
 * rollout upgraded, the latest per AP. Halted or cancelled, APs that were sent the upgrade are
 * still watched to their deadline and rolled back if they do not return; the ones not yet sent
 * stay `pending` (halted) or become `cancelled`.
 *
 * Everything outside is injected (device commands, clock, timers); device events come in
 * through `apReconnected` / `apHealth` and are ignored for APs outside the rollout or in a
 * state where they mean nothing. The snapshot is what the API shows.
 *
 * Codes (the console maps them to i18n keys): states ROLLOUT_STATES, AP statuses
 * ROLLOUT_AP_STATUSES, halt reasons ROLLOUT_HALT_REASONS; start refusal `rolloutStarted`;
 * option errors thrown as `FirmwareRolloutError` with ROLLOUT_ERROR_CODES.
 */

export const ROLLOUT_STATES = ['pending', 'running', 'halted', 'done', 'cancelled'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

/**
 * - `pending`: not sent yet; `upToDate`: already on the target version, left alone;
 * - `upgrading`: sent (or being sent), waiting for it to come back on the target version;
 * - `waitingRetry`: the send failed, retried at `nextAttemptAt`;
 * - `upgraded`: back on the target version;
 * - `rollingBack` → `rolledBack` / `rollbackFailed`: did not come back in time (failures);
 * - `unreachable`: every attempt to send failed; `cancelled`: the rollout was cancelled first.
 */
export const ROLLOUT_AP_STATUSES = [
  'pending',
  'upToDate',
  'upgrading',
  'waitingRetry',
  'upgraded',
  'rollingBack',
  'rolledBack',
  'rollbackFailed',
  'unreachable',
  'cancelled',
] as const;
export type RolloutApStatus = (typeof ROLLOUT_AP_STATUSES)[number];

export const ROLLOUT_HALT_REASONS = ['healthDropped', 'tooManyFailures'] as const;
export type RolloutHaltReason = (typeof ROLLOUT_HALT_REASONS)[number];

/**
 * - `targetVersionInvalid`: an empty target version; `apIdInvalid`, `duplicateAp`: the AP list;
 * - `canaryInvalid`: not a whole number ≥ 0; `wavesInvalid`: shares not rising within 1–100 or
 *   not ending at 100; `optionInvalid`: a time, count or threshold out of range.
 */
export const ROLLOUT_ERROR_CODES = ['targetVersionInvalid', 'apIdInvalid', 'duplicateAp', 'canaryInvalid', 'wavesInvalid', 'optionInvalid'] as const;
export type RolloutErrorCode = (typeof ROLLOUT_ERROR_CODES)[number];

export class FirmwareRolloutError extends Error {
  constructor(
    readonly code: RolloutErrorCode,
    readonly detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code);
    this.name = 'FirmwareRolloutError';
  }
}

export interface RolloutRetry {
  firstDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
}

export interface RolloutOptions {
  targetVersion: string;
  /** The targeted APs with the version they run, in the order they are to be upgraded. */
  aps: readonly { id: string; version: string }[];
  canaryCount?: number;
  wavePercents?: readonly number[];
  returnDeadlineMs?: number;
  soakMs?: number;
  minMedianSanity?: number;
  maxFailures?: number;
  retry?: Partial<RolloutRetry>;
}

export interface RolloutDeps {
  /** Sends the firmware and the upgrade command; rejects when the AP cannot be reached. */
  upgrade(apId: string): Promise<void>;
  /** Returns the AP to its previous firmware. */
  rollback(apId: string): Promise<void>;
  schedule?: Scheduler;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

export const DEFAULT_CANARY_COUNT = 1;
export const DEFAULT_WAVE_PERCENTS: readonly number[] = [10, 50, 100];
/** Flashing and rebooting an AP takes a few minutes; ten is past any healthy one. */
export const DEFAULT_RETURN_DEADLINE_MS = 10 * 60_000;
export const DEFAULT_SOAK_MS = 2 * 60_000;
export const DEFAULT_MIN_MEDIAN_SANITY = 60;
export const DEFAULT_MAX_FAILURES = 0;
export const DEFAULT_RETRY: RolloutRetry = { firstDelayMs: 30_000, maxDelayMs: 5 * 60_000, maxAttempts: 5 };

export interface RolloutApSnapshot {
  id: string;
  status: RolloutApStatus;
  /** Index of its wave; null for an AP already up to date. */
  wave: number | null;
  /** Sends tried. */
  attempts: number;
  /** Last version it reported. */
  version: string;
  /** Latest sanity since it was upgraded. */
  sanity: number | null;
  nextAttemptAt: number | null;
  deadlineAt: number | null;
}

export interface RolloutSnapshot {
  state: RolloutState;
  targetVersion: string;
  /** The wave under way (or the last one); -1 before the start. */
  waveIndex: number;
  waves: string[][];
  failures: number;
  medianSanity: number | null;
  haltReason: RolloutHaltReason | null;
  startedAt: number | null;
  finishedAt: number | null;
  aps: RolloutApSnapshot[];
}

export interface FirmwareRollout {
  start(): { ok: true } | { ok: false; code: 'rolloutStarted' };
  /** True when the rollout was stopped. */
  cancel(): boolean;
  apReconnected(apId: string, version: string): void;
  apHealth(apId: string, sanity: number): void;
  snapshot(): RolloutSnapshot;
}

interface ApRecord extends RolloutApSnapshot {
  cancelTimer: (() => void) | null;
}

/** Statuses an AP of a wave ends in. */
const SETTLED: ReadonlySet<RolloutApStatus> = new Set(['upgraded', 'rolledBack', 'rollbackFailed', 'unreachable', 'cancelled']);

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function check(ok: boolean, code: RolloutErrorCode, detail?: string): void {
  if (!ok) throw new FirmwareRolloutError(code, detail);
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;
const isDuration = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;

/** The waves: canary first, then each cumulative share; APs up to date are in none. */
function planWaves(ids: string[], canaryCount: number, percents: readonly number[]): string[][] {
  const waves: string[][] = [];
  let end = Math.min(canaryCount, ids.length);
  if (end > 0) waves.push(ids.slice(0, end));
  for (const percent of percents) {
    const upTo = Math.max(end, Math.ceil((percent / 100) * ids.length));
    if (upTo > end) waves.push(ids.slice(end, upTo));
    end = upTo;
  }
  return waves;
}

export function createFirmwareRollout(options: RolloutOptions, deps: RolloutDeps): FirmwareRollout {
  const schedule = deps.schedule ?? realScheduler;
  const now = deps.now ?? Date.now;
  const target = options.targetVersion;
  check(typeof target === 'string' && target.trim() !== '', 'targetVersionInvalid');
  const canaryCount = options.canaryCount ?? DEFAULT_CANARY_COUNT;
  check(isCount(canaryCount), 'canaryInvalid', String(canaryCount));
  const percents = options.wavePercents ?? DEFAULT_WAVE_PERCENTS;
  check(
    percents.length > 0 && percents.at(-1) === 100 && percents.every((p, i) => Number.isFinite(p) && p > 0 && p <= 100 && (i === 0 || p > percents[i - 1]!)),
    'wavesInvalid',
    percents.join(','),
  );
  const deadlineMs = options.returnDeadlineMs ?? DEFAULT_RETURN_DEADLINE_MS;
  const soakMs = options.soakMs ?? DEFAULT_SOAK_MS;
  const minMedianSanity = options.minMedianSanity ?? DEFAULT_MIN_MEDIAN_SANITY;
  const maxFailures = options.maxFailures ?? DEFAULT_MAX_FAILURES;
  const retry: RolloutRetry = { ...DEFAULT_RETRY, ...options.retry };
  check(isDuration(deadlineMs) && deadlineMs > 0 && isDuration(soakMs), 'optionInvalid', 'returnDeadlineMs/soakMs');
  check(typeof minMedianSanity === 'number' && minMedianSanity >= 0 && minMedianSanity <= 100 && isCount(maxFailures), 'optionInvalid', 'minMedianSanity/maxFailures');
  check(isDuration(retry.firstDelayMs) && isDuration(retry.maxDelayMs) && isCount(retry.maxAttempts) && retry.maxAttempts >= 1, 'optionInvalid', 'retry');

  const records = new Map<string, ApRecord>();
  for (const ap of options.aps) {
    check(typeof ap.id === 'string' && ap.id !== '', 'apIdInvalid');
    check(!records.has(ap.id), 'duplicateAp', ap.id);
    const upToDate = ap.version === target;
    records.set(ap.id, {
      id: ap.id,
      status: upToDate ? 'upToDate' : 'pending',
      wave: null,
      attempts: 0,
      version: ap.version,
      sanity: null,
      nextAttemptAt: null,
      deadlineAt: null,
      cancelTimer: null,
    });
  }
  const waves = planWaves(
    [...records.values()].filter((r) => r.status === 'pending').map((r) => r.id),
    canaryCount,
    percents,
  );
  waves.forEach((wave, index) => wave.forEach((id) => (records.get(id)!.wave = index)));

  let state: RolloutState = 'pending';
  let waveIndex = -1;
  let failures = 0;
  let haltReason: RolloutHaltReason | null = null;
  let startedAt: number | null = null;
  let finishedAt: number | null = null;
  let cancelSoak: (() => void) | null = null;

  const setTimer = (record: ApRecord, ms: number, work: () => void): void => {
    record.cancelTimer?.();
    record.cancelTimer = schedule(ms, () => {
      record.cancelTimer = null;
      work();
    });
  };
  const clearTimer = (record: ApRecord): void => {
    record.cancelTimer?.();
    record.cancelTimer = null;
  };

  const upgradedSanity = (): number | null =>
    median([...records.values()].filter((r) => r.status === 'upgraded' && r.sanity !== null).map((r) => r.sanity!));

  /** Stops sending: retries waiting go back to `leftAs`, the soak ends. Sent APs stay watched. */
  function stop(next: RolloutState, leftAs: 'pending' | 'cancelled'): void {
    state = next;
    finishedAt = now();
    cancelSoak?.();
    cancelSoak = null;
    for (const record of records.values()) {
      if (record.status === 'waitingRetry' || (record.status === 'pending' && leftAs === 'cancelled')) {
        clearTimer(record);
        record.status = leftAs;
        record.nextAttemptAt = null;
      }
    }
  }

  function halt(reason: RolloutHaltReason): void {
    haltReason = reason;
    stop('halted', 'pending');
  }

  /** Halts when the failures or the upgraded APs' health say so; true when it did. */
  function checkHealth(): boolean {
    if (state !== 'running') return false;
    const sanity = upgradedSanity();
    const reason: RolloutHaltReason | null =
      failures > maxFailures ? 'tooManyFailures' : sanity !== null && sanity < minMedianSanity ? 'healthDropped' : null;
    if (reason) halt(reason);
    return reason !== null;
  }

  function startWave(index: number): void {
    waveIndex = index;
    for (const id of waves[index]!) attempt(records.get(id)!);
  }

  /** After every change of an AP of the current wave: once all are settled, soak, then go on. */
  function waveProgress(): void {
    if (state !== 'running' || cancelSoak) return;
    if (!waves[waveIndex]!.every((id) => SETTLED.has(records.get(id)!.status))) return;
    cancelSoak = schedule(soakMs, () => {
      cancelSoak = null;
      if (checkHealth()) return;
      if (waveIndex + 1 < waves.length) startWave(waveIndex + 1);
      else {
        state = 'done';
        finishedAt = now();
      }
    });
  }

  function attempt(record: ApRecord): void {
    if (state !== 'running') return;
    record.attempts += 1;
    record.status = 'upgrading';
    record.nextAttemptAt = null;
    // The deadline runs from the send: an AP that reboots before the command "returns" is fine.
    record.deadlineAt = now() + deadlineMs;
    setTimer(record, deadlineMs, () => missedDeadline(record));
    let sending: Promise<void>;
    try {
      sending = Promise.resolve(deps.upgrade(record.id));
    } catch (error) {
      sending = Promise.reject(error);
    }
    sending.catch(() => {
      if (record.status !== 'upgrading') return;
      clearTimer(record);
      record.deadlineAt = null;
      if (record.attempts >= retry.maxAttempts || state !== 'running') {
        record.status = state === 'running' ? 'unreachable' : state === 'cancelled' ? 'cancelled' : 'pending';
        waveProgress();
        return;
      }
      const delay = Math.min(retry.firstDelayMs * 2 ** (record.attempts - 1), retry.maxDelayMs);
      record.status = 'waitingRetry';
      record.nextAttemptAt = now() + delay;
      setTimer(record, delay, () => attempt(record));
    });
  }

  function missedDeadline(record: ApRecord): void {
    if (record.status !== 'upgrading') return;
    record.status = 'rollingBack';
    record.deadlineAt = null;
    failures += 1;
    const settle = (status: RolloutApStatus) => {
      record.status = status;
      if (!checkHealth()) waveProgress();
    };
    let rolling: Promise<void>;
    try {
      rolling = Promise.resolve(deps.rollback(record.id));
    } catch (error) {
      rolling = Promise.reject(error);
    }
    rolling.then(
      () => settle('rolledBack'),
      () => settle('rollbackFailed'),
    );
  }

  return {
    start() {
      if (state !== 'pending') return { ok: false, code: 'rolloutStarted' };
      state = 'running';
      startedAt = now();
      if (waves.length === 0) {
        state = 'done';
        finishedAt = now();
      } else startWave(0);
      return { ok: true };
    },

    cancel() {
      if (state !== 'pending' && state !== 'running' && state !== 'halted') return false;
      stop('cancelled', 'cancelled');
      return true;
    },

    apReconnected(apId, version) {
      const record = records.get(apId);
      if (!record || typeof version !== 'string') return;
      record.version = version;
      if (record.status !== 'upgrading' || version !== target) return;
      clearTimer(record);
      record.status = 'upgraded';
      record.deadlineAt = null;
      waveProgress();
    },

    apHealth(apId, sanity) {
      const record = records.get(apId);
      if (!record || record.status !== 'upgraded') return;
      if (typeof sanity !== 'number' || !(sanity >= 0 && sanity <= 100)) return;
      record.sanity = sanity;
      checkHealth();
    },

    snapshot() {
      return {
        state,
        targetVersion: target,
        waveIndex,
        waves: waves.map((w) => [...w]),
        failures,
        medianSanity: upgradedSanity(),
        haltReason,
        startedAt,
        finishedAt,
        aps: [...records.values()].map(({ cancelTimer: _timer, ...ap }) => ({ ...ap })),
      };
    },
  };
}
