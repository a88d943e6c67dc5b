import { create } from 'zustand';
import { apiGet } from '../api/api-client.js';
import { adoptServerLanguage } from '../i18n/console-i18n.js';

/** GET /api/changelang: the device's language and whether the switch is hidden. */
export interface DeviceLanguage {
  lang?: string;
  hidden?: boolean;
}

interface DeviceLanguageState {
  /** The capability `hidden_language` is set: the language is fixed by the vendor. */
  hidden: boolean;
  status: 'idle' | 'loading' | 'ready';
  load(): Promise<void>;
}

export const useDeviceLanguageStore = create<DeviceLanguageState>()((set, get) => ({
  hidden: false,
  status: 'idle',
  async load() {
    if (get().status !== 'idle') return;
    set({ status: 'loading' });
    try {
      const data = await apiGet<DeviceLanguage>('changelang');
      set({ hidden: data?.hidden === true, status: 'ready' });
      await adoptServerLanguage(data?.lang);
    } catch {
      // Already reported by the client; asked again the next time a switch is shown.
      set({ status: 'idle' });
    }
  },
}));
