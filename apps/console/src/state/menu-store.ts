import { create } from 'zustand';
import type { MenuSection } from '@portico/schema';

export type MenuStatus = 'idle' | 'loading' | 'ready' | 'failed';

interface MenuState {
  sections: MenuSection[];
  status: MenuStatus;
  setLoading(): void;
  setSections(sections: MenuSection[]): void;
  setFailed(): void;
  /** Another account may see another menu: dropped on sign-in and sign-out. */
  reset(): void;
}

export const useMenuStore = create<MenuState>()((set) => ({
  sections: [],
  status: 'idle',
  setLoading: () => set({ status: 'loading' }),
  setSections: (sections) => set({ sections, status: 'ready' }),
  setFailed: () => set({ status: 'failed' }),
  reset: () => set({ sections: [], status: 'idle' }),
}));
