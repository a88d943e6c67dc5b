import { describe, expect, test } from 'vitest';
import {
  createFirmwareRollout,
  FirmwareRolloutError,
  type RolloutApStatus,
  type RolloutOptions,
} from '../src/domains/wireless/wireless-firmware-rollout.js';
import { FakeClock } from './fixtures/wireless/wireless-fake-clock.js';

const OLD = '1.0.0';
const NEW = '1.1.0';
const MIN = 60_000;

/** A fleet whose APs take the upgrade, or fail to be reached the first `offlineFor` sends. */
function fleet(ids: string[], options: Partial<RolloutOptions> = {}, offlineFor: Record<string, number> = {}) {
  const clock = new FakeClock();
  const sent: Array<{ id: string; at: number }> = [];
  const rolledBack: string[] = [];
  const startedAt = clock.now();
  const rollout = createFirmwareRollout(
    { targetVersion: NEW, aps: ids.map((id) => ({ id, version: OLD })), soakMs: 2 * MIN, returnDeadlineMs: 10 * MIN, ...options },
    {
      async upgrade(id) {
        sent.push({ id, at: clock.now() - startedAt });
        if ((offlineFor[id] ?? 0) >= sent.filter((s) => s.id === id).length) throw new Error('AP offline');
      },
      async rollback(id) {
        rolledBack.push(id);
      },
      schedule: clock.schedule,
      now: clock.now,
    },
  );
  const status = (id: string): RolloutApStatus => rollout.snapshot().aps.find((a) => a.id === id)!.status;
  const sentIds = () => sent.map((s) => s.id);
  return { clock, rollout, sent, sentIds, rolledBack, status };
}

describe('firmware rollout', () => {
  test('canary, then the rest: two waves complete', async () => {
    const { clock, rollout, sentIds, status } = fleet(['a', 'b', 'c', 'd'], { wavePercents: [100] });
    expect(rollout.snapshot()).toMatchObject({ state: 'pending', waveIndex: -1, waves: [['a'], ['b', 'c', 'd']] });
    expect(rollout.start()).toEqual({ ok: true });
    expect(rollout.start()).toEqual({ ok: false, code: 'rolloutStarted' });
    await clock.advance(0);
    expect(sentIds()).toEqual(['a']);
    expect(rollout.snapshot()).toMatchObject({ state: 'running', waveIndex: 0 });
    expect(status('a')).toBe('upgrading');

    await clock.advance(3 * MIN);
    rollout.apReconnected('a', NEW);
    rollout.apHealth('a', 95);
    expect(status('a')).toBe('upgraded');
    // The canary is watched for the soak before anyone else is sent the upgrade.
    await clock.advance(2 * MIN - 1);
    expect(sentIds()).toEqual(['a']);
    await clock.advance(1);
    expect(sentIds()).toEqual(['a', 'b', 'c', 'd']);
    expect(rollout.snapshot().waveIndex).toBe(1);

    await clock.advance(MIN);
    for (const id of ['b', 'c', 'd']) rollout.apReconnected(id, NEW);
    for (const id of ['b', 'c', 'd']) rollout.apHealth(id, 80);
    expect(rollout.snapshot().state).toBe('running');
    await clock.advance(2 * MIN);
    const done = rollout.snapshot();
    expect(done).toMatchObject({ state: 'done', failures: 0, haltReason: null, medianSanity: 80, finishedAt: clock.now() });
    expect(done.aps.map((a) => [a.id, a.status, a.version])).toEqual([
      ['a', 'upgraded', NEW],
      ['b', 'upgraded', NEW],
      ['c', 'upgraded', NEW],
      ['d', 'upgraded', NEW],
    ]);
    expect(clock.pending()).toEqual([]);
  });

  test('percentage waves are cumulative shares; APs already current are left alone', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `ap${i}`);
    const { rollout } = fleet(ids);
    expect(rollout.snapshot().waves.map((w) => w.length)).toEqual([1, 1, 8, 10]);
    const mixed = createFirmwareRollout(
      { targetVersion: NEW, aps: [{ id: 'x', version: NEW }, { id: 'y', version: OLD }] },
      { upgrade: async () => {}, rollback: async () => {} },
    );
    expect(mixed.snapshot().waves).toEqual([['y']]);
    expect(mixed.snapshot().aps.find((a) => a.id === 'x')).toMatchObject({ status: 'upToDate', wave: null });
  });

  test('halts when the upgraded APs’ median sanity drops; nobody else is sent the upgrade', async () => {
    const { clock, rollout, sentIds, status } = fleet(['a', 'b', 'c', 'd', 'e', 'f'], { canaryCount: 3, wavePercents: [100], minMedianSanity: 60 });
    rollout.start();
    await clock.advance(MIN);
    for (const id of ['a', 'b', 'c']) rollout.apReconnected(id, NEW);
    rollout.apHealth('a', 90);
    rollout.apHealth('b', 40);
    expect(rollout.snapshot().state).toBe('running');
    // Median of 90, 40, 30 is 40.
    rollout.apHealth('c', 30);
    expect(rollout.snapshot()).toMatchObject({ state: 'halted', haltReason: 'healthDropped', medianSanity: 40 });
    await clock.advance(60 * MIN);
    expect(sentIds()).toEqual(['a', 'b', 'c']);
    expect(['d', 'e', 'f'].map(status)).toEqual(['pending', 'pending', 'pending']);
  });

  test('halts on more than maxFailures APs that did not come back', async () => {
    const { clock, rollout, rolledBack, sentIds } = fleet(['a', 'b', 'c', 'd'], { canaryCount: 3, wavePercents: [100], maxFailures: 1 });
    rollout.start();
    await clock.advance(MIN);
    rollout.apReconnected('a', NEW);
    await clock.advance(9 * MIN);
    expect(rollout.snapshot()).toMatchObject({ state: 'halted', haltReason: 'tooManyFailures', failures: 2 });
    expect(rolledBack.sort()).toEqual(['b', 'c']);
    await clock.advance(60 * MIN);
    expect(sentIds()).toEqual(['a', 'b', 'c']);
  });

  test('an AP that does not come back on the new version in time is rolled back and counted failed', async () => {
    const { clock, rollout, rolledBack, status } = fleet(['a', 'b'], { maxFailures: 5, wavePercents: [100] });
    rollout.start();
    await clock.advance(MIN);
    // Back, but on the old firmware: the upgrade did not take.
    rollout.apReconnected('a', OLD);
    expect(status('a')).toBe('upgrading');
    expect(rollout.snapshot().aps[0]!.deadlineAt).toBe(clock.now() + 9 * MIN);
    await clock.advance(9 * MIN - 1);
    expect(rolledBack).toEqual([]);
    await clock.advance(1);
    expect(rolledBack).toEqual(['a']);
    expect(status('a')).toBe('rolledBack');
    expect(rollout.snapshot()).toMatchObject({ failures: 1, state: 'running' });
    // Coming back late changes nothing.
    rollout.apReconnected('a', NEW);
    expect(status('a')).toBe('rolledBack');
    // The wave settled (failed within maxFailures): the next wave follows the soak.
    await clock.advance(2 * MIN);
    expect(rollout.snapshot().waveIndex).toBe(1);
    expect(status('b')).toBe('upgrading');
  });

  test('an offline AP is retried with a capped exponential back-off, then succeeds', async () => {
    const { clock, rollout, sent, status } = fleet(['a'], { retry: { firstDelayMs: 30_000, maxDelayMs: 100_000, maxAttempts: 5 } }, { a: 3 });
    rollout.start();
    await clock.advance(0);
    expect(rollout.snapshot().aps[0]).toMatchObject({ status: 'waitingRetry', attempts: 1, nextAttemptAt: clock.now() + 30_000 });
    await clock.advance(10 * MIN);
    // 30 s, then 60 s, then 120 s capped at 100 s.
    expect(sent.map((s) => s.at)).toEqual([0, 30_000, 90_000, 190_000]);
    expect(status('a')).toBe('upgrading');
    rollout.apReconnected('a', NEW);
    expect(rollout.snapshot().aps[0]).toMatchObject({ status: 'upgraded', attempts: 4 });
  });

  test('an AP offline through every attempt is unreachable, not a failure; the rollout goes on', async () => {
    const { clock, rollout, sent, status } = fleet(['a', 'b'], { wavePercents: [100], retry: { firstDelayMs: 10_000, maxDelayMs: 60_000, maxAttempts: 3 } }, { a: 99 });
    rollout.start();
    await clock.advance(MIN);
    expect(sent.map((s) => s.at)).toEqual([0, 10_000, 30_000]);
    expect(status('a')).toBe('unreachable');
    expect(rollout.snapshot()).toMatchObject({ failures: 0, state: 'running' });
    await clock.advance(2 * MIN);
    expect(status('b')).toBe('upgrading');
  });

  test('cancel: nothing more is sent, waiting retries are dropped, a sent AP is still rolled back if it does not return', async () => {
    const { clock, rollout, sentIds, rolledBack, status } = fleet(['a', 'b', 'c', 'd'], { canaryCount: 2, wavePercents: [100], maxFailures: 5 }, { b: 1 });
    rollout.start();
    await clock.advance(0);
    expect(status('b')).toBe('waitingRetry');
    expect(rollout.cancel()).toBe(true);
    expect(rollout.snapshot()).toMatchObject({ state: 'cancelled', finishedAt: clock.now() });
    expect(['b', 'c', 'd'].map(status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(status('a')).toBe('upgrading');
    await clock.advance(60 * MIN);
    expect(sentIds()).toEqual(['a', 'b']);
    expect(rolledBack).toEqual(['a']);
    expect(status('a')).toBe('rolledBack');
    expect(rollout.snapshot().state).toBe('cancelled');
    expect(rollout.cancel()).toBe(false);
    expect(clock.pending()).toEqual([]);
  });

  test('options are checked', () => {
    const aps = [{ id: 'a', version: OLD }];
    const deps = { upgrade: async () => {}, rollback: async () => {} };
    const code = (options: Partial<RolloutOptions>) => {
      try {
        createFirmwareRollout({ targetVersion: NEW, aps, ...options }, deps);
      } catch (error) {
        expect(error).toBeInstanceOf(FirmwareRolloutError);
        return (error as FirmwareRolloutError).code;
      }
      return 'accepted';
    };
    expect(code({})).toBe('accepted');
    expect(code({ targetVersion: ' ' })).toBe('targetVersionInvalid');
    expect(code({ aps: [...aps, ...aps] })).toBe('duplicateAp');
    expect(code({ aps: [{ id: '', version: OLD }] })).toBe('apIdInvalid');
    expect(code({ canaryCount: -1 })).toBe('canaryInvalid');
    expect(code({ wavePercents: [50, 10, 100] })).toBe('wavesInvalid');
    expect(code({ wavePercents: [10, 50] })).toBe('wavesInvalid');
    expect(code({ minMedianSanity: 101 })).toBe('optionInvalid');
    expect(code({ retry: { maxAttempts: 0 } })).toBe('optionInvalid');
  });
});
