import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import {
  confirmOfferOf,
  localDeadline,
  OUTCOME_STORAGE_KEY,
  PENDING_STORAGE_KEY,
  readStoredPending,
  secondsLeft,
  useApplyConfirmStore,
} from '../src/state/apply-confirm-store.js';

/** sessionStorage as the browser has it, for the node test environment. */
class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, String(value));
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

const NOW = 1_700_000_000_000;
let storage: MemoryStorage;

function resetStore() {
  useApplyConfirmStore.setState({ pending: null, restoring: false, outcome: null });
}

beforeEach(() => {
  storage = new MemoryStorage();
  vi.stubGlobal('sessionStorage', storage);
  resetStore();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('reading data.confirm', () => {
  test('token, deadline and seconds of a write reply', () => {
    expect(confirmOfferOf({ id: '3', confirm: { token: 'abc', deadline: NOW + 90_000, seconds: 90 } })).toEqual({
      token: 'abc',
      deadline: NOW + 90_000,
      seconds: 90,
    });
  });

  test('replies without a usable offer are not one', () => {
    expect(confirmOfferOf(undefined)).toBeNull();
    expect(confirmOfferOf({ id: '3' })).toBeNull();
    expect(confirmOfferOf([{ confirm: { token: 'a', seconds: 5 } }])).toBeNull();
    expect(confirmOfferOf({ confirm: { token: '', seconds: 90 } })).toBeNull();
    expect(confirmOfferOf({ confirm: { token: 'a' } })).toBeNull();
    expect(confirmOfferOf({ confirm: { token: 7, seconds: 90 } })).toBeNull();
    expect(confirmOfferOf({ confirm: 'abc' })).toBeNull();
  });
});

describe('countdown math', () => {
  test('the deadline counts the granted seconds from now, whatever the device clock says', () => {
    // The device clock is an hour behind: its absolute deadline would already be past here.
    const offer = { token: 't', deadline: NOW - 3_600_000 + 90_000, seconds: 90 };
    expect(localDeadline(offer, NOW)).toBe(NOW + 90_000);
  });

  test('without seconds the device deadline is used', () => {
    expect(localDeadline({ token: 't', deadline: NOW + 30_000, seconds: 0 }, NOW)).toBe(NOW + 30_000);
  });

  test('whole seconds, rounded up, never below zero', () => {
    const deadline = NOW + 90_000;
    expect(secondsLeft(deadline, NOW)).toBe(90);
    expect(secondsLeft(deadline, NOW + 1)).toBe(90);
    expect(secondsLeft(deadline, NOW + 999)).toBe(90);
    expect(secondsLeft(deadline, NOW + 1000)).toBe(89);
    expect(secondsLeft(deadline, NOW + 89_001)).toBe(1);
    expect(secondsLeft(deadline, NOW + 90_000)).toBe(0);
    expect(secondsLeft(deadline, NOW + 200_000)).toBe(0);
  });
});

describe('apply-confirm store', () => {
  test('an offer is kept in memory and in sessionStorage', () => {
    const store = useApplyConfirmStore.getState();
    expect(store.offer({ confirm: { token: 'tok-1', deadline: 1, seconds: 90 } }, NOW)).toBe(true);
    expect(useApplyConfirmStore.getState().pending).toEqual({ token: 'tok-1', deadline: NOW + 90_000 });
    expect(JSON.parse(storage.getItem(PENDING_STORAGE_KEY)!)).toEqual({ token: 'tok-1', deadline: NOW + 90_000 });
  });

  test('a reply without an offer changes nothing', () => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'tok-1', seconds: 90 } }, NOW);
    expect(useApplyConfirmStore.getState().offer({ id: '9' }, NOW)).toBe(false);
    expect(useApplyConfirmStore.getState().pending?.token).toBe('tok-1');
  });

  test('a new offer replaces the previous one and forgets an old outcome', () => {
    storage.setItem(OUTCOME_STORAGE_KEY, 'expired');
    useApplyConfirmStore.setState({ outcome: 'expired' });
    useApplyConfirmStore.getState().offer({ confirm: { token: 'a', seconds: 90 } }, NOW);
    useApplyConfirmStore.getState().offer({ confirm: { token: 'b', seconds: 30 } }, NOW + 5000);
    expect(useApplyConfirmStore.getState()).toMatchObject({ pending: { token: 'b', deadline: NOW + 35_000 }, outcome: null });
    expect(storage.getItem(OUTCOME_STORAGE_KEY)).toBeNull();
  });

  test('clear removes it from memory and storage', () => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'a', seconds: 90 } }, NOW);
    useApplyConfirmStore.getState().clear();
    expect(useApplyConfirmStore.getState().pending).toBeNull();
    expect(storage.getItem(PENDING_STORAGE_KEY)).toBeNull();
  });

  test('resync moves the deadline to what the device reports', () => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'a', seconds: 90 } }, NOW);
    useApplyConfirmStore.getState().resync(42, NOW + 10_000);
    expect(useApplyConfirmStore.getState().pending).toEqual({ token: 'a', deadline: NOW + 52_000 });
    expect(JSON.parse(storage.getItem(PENDING_STORAGE_KEY)!).deadline).toBe(NOW + 52_000);
  });

  test('restoring: the token is dropped and the outcome waits in storage for the reload', () => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'a', seconds: 90 } }, NOW);
    useApplyConfirmStore.getState().startRestoring('expired');
    expect(useApplyConfirmStore.getState()).toMatchObject({ pending: null, restoring: true, outcome: 'expired' });
    expect(storage.getItem(PENDING_STORAGE_KEY)).toBeNull();
    expect(storage.getItem(OUTCOME_STORAGE_KEY)).toBe('expired');
  });

  test('storage that refuses writes still leaves the bar working in memory', () => {
    vi.stubGlobal('sessionStorage', {
      getItem: () => null,
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => undefined,
    });
    expect(useApplyConfirmStore.getState().offer({ confirm: { token: 'a', seconds: 90 } }, NOW)).toBe(true);
    expect(useApplyConfirmStore.getState().pending?.token).toBe('a');
  });
});

describe('restore after a reload', () => {
  test('a token whose deadline is in the future shows the bar again', () => {
    storage.setItem(PENDING_STORAGE_KEY, JSON.stringify({ token: 'tok-9', deadline: NOW + 20_000 }));
    useApplyConfirmStore.getState().restore(NOW);
    expect(useApplyConfirmStore.getState().pending).toEqual({ token: 'tok-9', deadline: NOW + 20_000 });
    expect(storage.getItem(PENDING_STORAGE_KEY)).not.toBeNull();
  });

  test('an expired token is dropped', () => {
    storage.setItem(PENDING_STORAGE_KEY, JSON.stringify({ token: 'tok-9', deadline: NOW - 1 }));
    useApplyConfirmStore.getState().restore(NOW);
    expect(useApplyConfirmStore.getState().pending).toBeNull();
    expect(storage.getItem(PENDING_STORAGE_KEY)).toBeNull();
  });

  test('damaged or foreign storage content is ignored', () => {
    for (const raw of ['{not json', 'null', '{"token":"","deadline":99999999999999}', '{"token":"a","deadline":"soon"}']) {
      storage.setItem(PENDING_STORAGE_KEY, raw);
      expect(readStoredPending(storage, NOW), raw).toBeNull();
    }
    expect(readStoredPending(undefined, NOW)).toBeNull();
  });

  test('every outcome survives the reload; foreign values do not', () => {
    for (const outcome of ['expired', 'reverted', 'gone'] as const) {
      resetStore();
      storage.setItem(OUTCOME_STORAGE_KEY, outcome);
      useApplyConfirmStore.getState().restore(NOW);
      expect(useApplyConfirmStore.getState().outcome).toBe(outcome);
    }
    resetStore();
    storage.setItem(OUTCOME_STORAGE_KEY, '<script>');
    useApplyConfirmStore.getState().restore(NOW);
    expect(useApplyConfirmStore.getState().outcome).toBeNull();
  });

  test('the outcome of a put-back change is said once after the reload', () => {
    storage.setItem(OUTCOME_STORAGE_KEY, 'reverted');
    useApplyConfirmStore.getState().restore(NOW);
    expect(useApplyConfirmStore.getState().outcome).toBe('reverted');
    expect(storage.getItem(OUTCOME_STORAGE_KEY)).toBeNull();
    useApplyConfirmStore.getState().dismissOutcome();
    resetStore();
    useApplyConfirmStore.getState().restore(NOW);
    expect(useApplyConfirmStore.getState().outcome).toBeNull();
  });

  test('what the page already holds wins; mid-restore nothing is touched', () => {
    useApplyConfirmStore.getState().offer({ confirm: { token: 'held', seconds: 60 } }, NOW);
    storage.setItem(PENDING_STORAGE_KEY, JSON.stringify({ token: 'other', deadline: NOW + 5000 }));
    useApplyConfirmStore.getState().restore(NOW + 1000);
    expect(useApplyConfirmStore.getState().pending?.token).toBe('held');

    useApplyConfirmStore.getState().startRestoring('expired');
    useApplyConfirmStore.getState().restore(NOW + 2000);
    expect(useApplyConfirmStore.getState().restoring).toBe(true);
    expect(storage.getItem(OUTCOME_STORAGE_KEY)).toBe('expired');
  });

  test('without sessionStorage (server renderer) restore finds nothing and does not throw', () => {
    vi.stubGlobal('sessionStorage', undefined);
    expect(() => useApplyConfirmStore.getState().restore(NOW)).not.toThrow();
    expect(useApplyConfirmStore.getState().pending).toBeNull();
  });
});
