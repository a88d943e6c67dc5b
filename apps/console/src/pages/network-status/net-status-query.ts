import { useCallback, useRef, useState } from 'react';
import { apiGet, type QueryParams } from '../../api/api-client.js';
import { usePolling } from '../dashboard/use-polling.js';

/**
 * Reads one status route and reads it again every `intervalMs` while the page is shown; new
 * params restart at once. An answer to params no longer current is dropped, and a failed read
 * keeps the last answer on screen (the API client has shown the notice).
 */
export function useStatusQuery<T>(path: string, params: QueryParams, intervalMs: number): { data: T | null; failed: boolean; refresh: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [failed, setFailed] = useState(false);
  const key = JSON.stringify(params);
  const keyRef = useRef(key);
  keyRef.current = key;
  const paramsRef = useRef(params);
  paramsRef.current = params;

  const { refresh } = usePolling(
    useCallback(async () => {
      const asked = keyRef.current;
      try {
        const reply = await apiGet<T>(path, paramsRef.current);
        if (keyRef.current !== asked) return;
        setData(reply);
        setFailed(false);
      } catch (error) {
        setFailed(true);
        throw error;
      }
    }, [path]),
    intervalMs,
    `${path}?${key}`,
  );
  return { data, failed, refresh };
}

/** Device time of an instant, in the reader's language; empty for none. */
export function instantText(ms: number | null, language: string): string {
  if (ms === null) return '';
  return new Date(ms).toLocaleString(language, { hour12: false });
}

/** Pages of a paged list, at least one. */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}
