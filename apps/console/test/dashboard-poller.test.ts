import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createPoller } from '../src/pages/dashboard/dashboard-poller.js';

/** A task whose runs finish only when the test says so. */
function controlledTask() {
  const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const task = vi.fn(
    () =>
      new Promise<void>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
  );
  return {
    task,
    finish: async (fail = false) => {
      const next = pending.shift();
      if (!next) throw new Error('no run in flight');
      if (fail) next.reject(new Error('offline'));
      else next.resolve();
      // Let the poller's promise handlers run.
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

describe('dashboard poller', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test('runs at once, then every interval after each run finishes', async () => {
    const { task, finish } = controlledTask();
    const poller = createPoller(task, 5000);
    poller.start();
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(20_000);
    // Still waiting for the first answer: no second request piles up.
    expect(task).toHaveBeenCalledTimes(1);
    await finish();
    await vi.advanceTimersByTimeAsync(4999);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(2);
    poller.stop();
  });

  test('a failed run is retried on the same rhythm', async () => {
    const { task, finish } = controlledTask();
    const poller = createPoller(task, 5000);
    poller.start();
    await finish(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(task).toHaveBeenCalledTimes(2);
    poller.stop();
  });

  test('a task that throws synchronously does not stop polling', async () => {
    let calls = 0;
    const poller = createPoller(() => {
      calls++;
      throw new Error('boom');
    }, 1000);
    poller.start();
    await vi.advanceTimersByTimeAsync(3000);
    expect(calls).toBe(4);
    poller.stop();
  });

  test('stop cancels the next run, even when the run in flight ends afterwards', async () => {
    const { task, finish } = controlledTask();
    const poller = createPoller(task, 5000);
    poller.start();
    poller.stop();
    expect(poller.running).toBe(false);
    await finish();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(task).toHaveBeenCalledTimes(1);
  });

  test('refresh runs now and restarts the rhythm; during a run it queues one more', async () => {
    const { task, finish } = controlledTask();
    const poller = createPoller(task, 5000);
    poller.start();
    await finish();
    await vi.advanceTimersByTimeAsync(3000);
    poller.refresh();
    expect(task).toHaveBeenCalledTimes(2);
    poller.refresh();
    poller.refresh();
    expect(task).toHaveBeenCalledTimes(2);
    await finish();
    expect(task).toHaveBeenCalledTimes(3);
    await finish();
    await vi.advanceTimersByTimeAsync(4999);
    expect(task).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(4);
    poller.stop();
  });

  test('restarting while a run is out polls again once it ends', async () => {
    const { task, finish } = controlledTask();
    const poller = createPoller(task, 5000);
    poller.start();
    poller.stop();
    poller.start();
    expect(task).toHaveBeenCalledTimes(1);
    await finish();
    expect(task).toHaveBeenCalledTimes(2);
    poller.stop();
  });

  test('an interval given as a function is read before each wait', async () => {
    const { task, finish } = controlledTask();
    let interval = 1000;
    const poller = createPoller(task, () => interval);
    poller.start();
    interval = 30_000;
    await finish();
    await vi.advanceTimersByTimeAsync(29_999);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(2);
    poller.stop();
  });
});
