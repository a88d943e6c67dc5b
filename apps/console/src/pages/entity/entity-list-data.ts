import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useDebouncedValue } from '@mantine/hooks';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { AnyEntity, ListPage } from '@portico/schema';
import { showSuccessNotice } from '../../shell/notice.js';
import { deleteEntityRecords, type EntityRecord } from './entity-api.js';
import { pageAfterShrink, readListState, withSearch, writeListState, type ListState } from './entity-list-query.js';

export type DeleteTarget = { id: string } | { ids: string[] };

export interface EntityListData {
  /** The list's search, sort and page, kept in the address. */
  state: ListState;
  setState(next: ListState): void;
  items: EntityRecord[];
  total: number;
  loading: boolean;
  /** The search box's text; the list follows it after a short pause. */
  search: string;
  setSearch(text: string): void;
  pendingDelete: DeleteTarget | null;
  setPendingDelete(target: DeleteTarget | null): void;
  deleting: boolean;
  confirmDelete(): Promise<void>;
  /** Reads the rows again (after a form saved over the list). */
  reload(): void;
}

/**
 * What every list page of a collection does with its rows (the generic list, the typed white
 * and black lists): the state in the address, a search that waits for a pause in typing,
 * loading that ignores answers overtaken by a newer request and steps back a page when the
 * last one emptied, and deletion after a confirmation. `load` must keep its identity while
 * what it fetches stays the same (useCallback).
 */
export function useEntityListData(
  entity: AnyEntity,
  load: (state: ListState) => Promise<ListPage<EntityRecord>>,
  events: { loaded?(items: EntityRecord[]): void; deleted?(): void } = {},
): EntityListData {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => readListState(entity, params), [entity, params]);
  const [items, setItems] = useState<EntityRecord[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [reloadToken, setReloadToken] = useState(0);
  const [pendingDelete, setPendingDelete] = useState<DeleteTarget | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [search, setSearch] = useState(state.q);
  const [debouncedSearch] = useDebouncedValue(search, 300);
  const latestRequest = useRef(0);
  const eventsRef = useRef(events);
  eventsRef.current = events;

  const setState = useCallback((next: ListState) => setParams(writeListState(entity, next), { replace: true }), [entity, setParams]);

  // Typing searches after a short pause; the address stays the source of truth. The state is
  // read through a ref so that paging alone never re-applies a stale search text.
  const stateRef = useRef(state);
  stateRef.current = state;
  useEffect(() => {
    const current = stateRef.current;
    const next = withSearch(current, debouncedSearch);
    if (next !== current) setState(next);
  }, [debouncedSearch, setState]);

  // Back/forward navigation can change q under the box.
  useEffect(() => {
    setSearch((current) => (current.trim() === state.q.trim() ? current : state.q));
  }, [state.q]);

  useEffect(() => {
    const request = ++latestRequest.current;
    setLoading(true);
    load(state)
      .then((page) => {
        if (request !== latestRequest.current) return;
        const shrunk = pageAfterShrink(state, page.total);
        if (shrunk !== null && page.items.length === 0 && page.total > 0) {
          setState({ ...state, page: shrunk });
          return;
        }
        setItems(page.items);
        setTotal(page.total);
        eventsRef.current.loaded?.(page.items);
      })
      .catch(() => {
        // The API client reports failures; keep what was shown.
      })
      .finally(() => {
        if (request === latestRequest.current) setLoading(false);
      });
  }, [load, state, reloadToken, setState]);

  async function confirmDelete() {
    if (!pendingDelete || deleting) return;
    setDeleting(true);
    try {
      const reply = await deleteEntityRecords(entity, pendingDelete);
      if (reply.success) {
        showSuccessNotice(t('entity.deleted'));
        eventsRef.current.deleted?.();
        setReloadToken((n) => n + 1);
      }
    } catch {
      // Reported by the API client.
    } finally {
      setDeleting(false);
      setPendingDelete(null);
    }
  }

  const reload = useCallback(() => setReloadToken((n) => n + 1), []);
  return { state, setState, items, total, loading, search, setSearch, pendingDelete, setPendingDelete, deleting, confirmDelete, reload };
}
