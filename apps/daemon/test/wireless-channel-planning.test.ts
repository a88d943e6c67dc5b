import { describe, expect, test } from 'vitest';
import { createChannelPlanning, SCAN_TIMEOUT_MS, type PlanningAp } from '../src/domains/wireless/wireless-channel-planning.js';
import { WirelessPlanError } from '../src/domains/wireless/wireless-channel-planner.js';
import { FakeClock } from './fixtures/wireless/wireless-fake-clock.js';

/** How a fake AP answers a scan request: after `ms` with a scan, with an error, or never. */
type Answer = { ms: number; fails?: boolean } | 'never';

interface Scan {
  apId: string;
}

interface Plan {
  planned: string[];
}

function site(answers: Record<string, Answer>, options: { concurrency?: number; plan?: (scans: ReadonlyMap<string, Scan>) => Plan | Promise<Plan>; apply?: (plan: Plan) => Promise<void> } = {}) {
  const clock = new FakeClock();
  const asked: string[] = [];
  const aborted: string[] = [];
  const applied: Plan[] = [];
  const planned: Array<ReadonlyMap<string, Scan>> = [];
  const planning = createChannelPlanning<Scan, Plan>({
    requestScan(apId, signal) {
      asked.push(apId);
      signal.addEventListener('abort', () => aborted.push(apId));
      const answer = answers[apId]!;
      return new Promise((resolve, reject) => {
        if (answer === 'never') return;
        clock.schedule(answer.ms, () => (answer.fails ? reject(new Error('radio busy')) : resolve({ apId })));
      });
    },
    plan(scans) {
      planned.push(scans);
      return options.plan ? options.plan(scans) : { planned: [...scans.keys()].sort() };
    },
    async applyPlan(plan) {
      await options.apply?.(plan);
      applied.push(plan);
    },
    schedule: clock.schedule,
    now: clock.now,
    concurrency: options.concurrency,
  });
  return { clock, planning, asked, aborted, applied, planned };
}

const online = (...ids: string[]): PlanningAp[] => ids.map((id) => ({ id, online: true }));

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('channel planning', () => {
  test('idle → scanning → optimising → planned → saving → saved, with progress and offline APs', async () => {
    const planReady = deferred<Plan>();
    const saveDone = deferred<void>();
    const { clock, planning, asked, applied, planned } = site(
      { a: { ms: 5000 }, b: { ms: 7000 }, c: { ms: 6000 } },
      { concurrency: 2, plan: () => planReady.promise, apply: () => saveDone.promise },
    );
    expect(planning.snapshot()).toMatchObject({ state: 'idle', startedAt: null, plan: null });
    const startedAt = clock.now();
    expect(planning.start([...online('a', 'b', 'c'), { id: 'd', online: false }])).toEqual({ ok: true });
    expect(planning.snapshot()).toMatchObject({ state: 'scanning', progress: { done: 0, total: 3 }, offlineApIds: ['d'], startedAt });
    // Two at a time: a and b first, c when a is done.
    await clock.advance(0);
    expect(asked).toEqual(['a', 'b']);
    await clock.advance(5000);
    expect(asked).toEqual(['a', 'b', 'c']);
    expect(planning.snapshot().progress).toEqual({ done: 1, total: 3 });
    await clock.advance(2000);
    expect(planning.snapshot()).toMatchObject({ state: 'scanning', progress: { done: 2, total: 3 } });
    await clock.advance(4000);
    expect(planning.snapshot()).toMatchObject({ state: 'optimising', progress: { done: 3, total: 3 }, failedApIds: [] });
    expect([...planned[0]!.keys()].sort()).toEqual(['a', 'b', 'c']);

    planReady.resolve({ planned: ['a', 'b', 'c'] });
    await clock.advance(0);
    expect(planning.snapshot()).toMatchObject({ state: 'planned', plan: { planned: ['a', 'b', 'c'] }, finishedAt: clock.now() });
    expect(applied).toEqual([]);

    const saving = planning.save();
    expect(planning.snapshot().state).toBe('saving');
    expect(planning.start(online('a'))).toEqual({ ok: false, code: 'planningRunning' });
    expect(planning.cancel()).toBe(false);
    saveDone.resolve();
    expect(await saving).toEqual({ ok: true });
    expect(applied).toEqual([{ planned: ['a', 'b', 'c'] }]);
    expect(planning.snapshot().state).toBe('saved');
  });

  test('a scan that never answers fails at 15 s; the others are planned and the failed AP named', async () => {
    const { clock, planning, aborted, planned } = site({ a: { ms: 5000 }, silent: 'never', b: { ms: 9000 } });
    planning.start(online('a', 'silent', 'b'));
    await clock.advance(SCAN_TIMEOUT_MS - 1);
    expect(planning.snapshot()).toMatchObject({ state: 'scanning', progress: { done: 2, total: 3 }, failedApIds: [] });
    await clock.advance(1);
    expect(planning.snapshot()).toMatchObject({ state: 'planned', failedApIds: ['silent'], plan: { planned: ['a', 'b'] } });
    expect([...planned[0]!.keys()].sort()).toEqual(['a', 'b']);
    // The silent AP's request was told it is no longer wanted.
    expect(aborted).toContain('silent');
    expect(clock.pending()).toEqual([]);
  });

  test('a scan that fails is reported and the run goes on', async () => {
    const { clock, planning } = site({ a: { ms: 3000, fails: true }, b: { ms: 6000 } });
    planning.start(online('a', 'b'));
    await clock.advance(3000);
    expect(planning.snapshot()).toMatchObject({ state: 'scanning', failedApIds: ['a'], progress: { done: 1, total: 2 } });
    await clock.advance(3000);
    expect(planning.snapshot()).toMatchObject({ state: 'planned', failedApIds: ['a'], plan: { planned: ['b'] } });
  });

  test('every scan failed: scanFailed, nothing planned', async () => {
    const { clock, planning, planned } = site({ a: { ms: 2000, fails: true }, b: 'never' });
    planning.start(online('a', 'b'));
    await clock.advance(SCAN_TIMEOUT_MS);
    expect(planning.snapshot()).toMatchObject({ state: 'scanFailed', failedApIds: ['a', 'b'], plan: null, finishedAt: clock.now() });
    expect(planned).toEqual([]);
    expect(await planning.save()).toEqual({ ok: false, code: 'noPlan' });
  });

  test('no AP online at the start: allOffline, nobody asked', async () => {
    const { clock, planning, asked } = site({});
    expect(planning.start([{ id: 'a', online: false }, { id: 'b', online: false }])).toEqual({ ok: true });
    expect(planning.snapshot()).toMatchObject({ state: 'allOffline', progress: { done: 0, total: 0 }, offlineApIds: ['a', 'b'], finishedAt: clock.now() });
    await clock.advance(SCAN_TIMEOUT_MS);
    expect(asked).toEqual([]);
    expect(planning.snapshot().state).toBe('allOffline');
  });

  test('start is refused while scanning or optimising, allowed again once planned', async () => {
    const planReady = deferred<Plan>();
    const { clock, planning, asked } = site({ a: { ms: 5000 } }, { plan: () => planReady.promise });
    planning.start(online('a'));
    expect(planning.start(online('a'))).toEqual({ ok: false, code: 'planningRunning' });
    await clock.advance(5000);
    expect(planning.snapshot().state).toBe('optimising');
    expect(planning.start(online('a'))).toEqual({ ok: false, code: 'planningRunning' });
    expect(await planning.save()).toEqual({ ok: false, code: 'planningRunning' });
    planReady.resolve({ planned: ['a'] });
    await clock.advance(0);
    expect(planning.snapshot().state).toBe('planned');
    // A new run drops the unsaved plan.
    expect(planning.start(online('a'))).toEqual({ ok: true });
    expect(planning.snapshot()).toMatchObject({ state: 'scanning', plan: null, progress: { done: 0, total: 1 } });
    expect(asked).toEqual(['a', 'a']);
  });

  test('cancel while scanning aborts the scans in flight and ignores their late answers', async () => {
    const { clock, planning, aborted, planned } = site({ a: { ms: 4000 }, b: { ms: 8000 } });
    planning.start(online('a', 'b'));
    await clock.advance(4000);
    expect(planning.cancel()).toBe(true);
    expect(planning.snapshot()).toMatchObject({ state: 'cancelled', progress: { done: 1, total: 2 }, finishedAt: clock.now() });
    expect(aborted).toContain('b');
    await clock.advance(SCAN_TIMEOUT_MS);
    expect(planning.snapshot()).toMatchObject({ state: 'cancelled', progress: { done: 1, total: 2 } });
    expect(planned).toEqual([]);
    expect(planning.cancel()).toBe(false);
  });

  test('cancel while optimising: the plan that arrives later is dropped', async () => {
    const planReady = deferred<Plan>();
    const { clock, planning } = site({ a: { ms: 5000 } }, { plan: () => planReady.promise });
    planning.start(online('a'));
    await clock.advance(5000);
    expect(planning.cancel()).toBe(true);
    planReady.resolve({ planned: ['a'] });
    await clock.advance(0);
    expect(planning.snapshot()).toMatchObject({ state: 'cancelled', plan: null });
  });

  test('the planner refusing the scans ends in planFailed with its code', async () => {
    const { clock, planning } = site(
      { a: { ms: 5000 } },
      {
        plan: () => {
          throw new WirelessPlanError('signalInvalid', 'a');
        },
      },
    );
    planning.start(online('a'));
    await clock.advance(5000);
    expect(planning.snapshot()).toMatchObject({ state: 'planFailed', error: { code: 'planFailed', detail: 'signalInvalid' }, plan: null });
  });

  test('a save the device refuses goes back to planned with saveFailed; a second save succeeds', async () => {
    let refuse = true;
    const { clock, planning, applied } = site(
      { a: { ms: 5000 } },
      {
        apply: async () => {
          if (refuse) throw new Error('apply failed');
        },
      },
    );
    expect(await planning.save()).toEqual({ ok: false, code: 'noPlan' });
    planning.start(online('a'));
    await clock.advance(5000);
    expect(await planning.save()).toEqual({ ok: false, code: 'saveFailed' });
    expect(planning.snapshot()).toMatchObject({ state: 'planned', error: { code: 'saveFailed' }, plan: { planned: ['a'] } });
    refuse = false;
    expect(await planning.save()).toEqual({ ok: true });
    expect(planning.snapshot()).toMatchObject({ state: 'saved', error: null });
    expect(applied).toEqual([{ planned: ['a'] }]);
    expect(await planning.save()).toEqual({ ok: false, code: 'noPlan' });
  });
});
