import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiResult } from './portal-api.js';

export type Loaded<T> = { status: 'loading' } | { status: 'failed'; msg: string } | { status: 'ready'; data: T };

/** Loads once on mount; the returned function loads again (retry, refresh). */
export function useLoad<T>(fetcher: () => Promise<ApiResult<T>>): [Loaded<T>, () => void] {
  const [state, setState] = useState<Loaded<T>>({ status: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    void fetcher().then((result) => {
      if (!current) return;
      // A failed refresh keeps what is already shown (the success page re-reads every minute).
      setState((previous) =>
        result.ok ? { status: 'ready', data: result.data } : previous.status === 'ready' ? previous : { status: 'failed', msg: result.msg },
      );
    });
    return () => {
      current = false;
    };
    // The fetcher is fixed per page; `round` asks for a new load.
  }, [round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return [state, reload];
}

/** Maps a server field error (`validation.x`) to the portal's own text key. */
export function fieldErrorKey(key: string, hasKey: (key: string) => boolean): string {
  const own = `portal.${key}`;
  return key.startsWith('validation.') && hasKey(own) ? own : 'portal.validation.invalid';
}
