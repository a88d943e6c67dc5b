import { useCallback, useEffect, useRef } from 'react';
import { createPoller, type PollInterval, type Poller } from './dashboard-poller.js';

/**
 * Polls while the component is mounted and the browser tab is visible; a tab in the
 * background sends nothing and catches up as soon as it is shown again. The latest `task`
 * is always the one run, so it may close over fresh state.
 */
export function usePolling(
  task: () => Promise<unknown>,
  interval: PollInterval,
  /** A new value restarts polling at once (e.g. another chart range was chosen). */
  restartKey?: unknown,
): { refresh: () => void } {
  const taskRef = useRef(task);
  taskRef.current = task;
  const intervalRef = useRef(interval);
  intervalRef.current = interval;
  const pollerRef = useRef<Poller | null>(null);

  useEffect(() => {
    const poller = createPoller(
      () => taskRef.current(),
      () => {
        const current = intervalRef.current;
        return typeof current === 'function' ? current() : current;
      },
    );
    pollerRef.current = poller;
    const visible = () => typeof document === 'undefined' || document.visibilityState !== 'hidden';
    const onVisibility = () => (visible() ? poller.start() : poller.stop());
    if (visible()) poller.start();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      poller.stop();
      pollerRef.current = null;
    };
  }, [restartKey]);

  const refresh = useCallback(() => pollerRef.current?.refresh(), []);
  return { refresh };
}
