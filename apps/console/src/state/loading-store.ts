import { create } from 'zustand';

interface LoadingState {
  /** Writes in flight; the indicator shows while this is above zero. */
  pending: number;
  begin(): void;
  end(): void;
}

/** Counts update calls so one indicator covers overlapping writes (spec §4, §7). */
export const useLoadingStore = create<LoadingState>()((set) => ({
  pending: 0,
  begin: () => set((s) => ({ pending: s.pending + 1 })),
  end: () => set((s) => ({ pending: Math.max(0, s.pending - 1) })),
}));
