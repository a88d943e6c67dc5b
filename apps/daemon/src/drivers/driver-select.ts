import type { Settings } from '../settings.js';
import type { LiveStatusSource } from './live-source.js';

/**
 * The live-status source of the configured driver (DESIGN §5). `sim` touches nothing on the
 * host; `linux` reads /proc and /sys. Each is loaded only when chosen. The openwrt driver is
 * refused earlier, by readSettings.
 */
export async function selectLiveSource(settings: Pick<Settings, 'driver' | 'stateDir'>, now?: () => number): Promise<LiveStatusSource> {
  switch (settings.driver) {
    case 'sim': {
      const { createSimLive } = await import('./sim/sim-live.js');
      return createSimLive({ stateDir: settings.stateDir, now });
    }
    case 'linux': {
      const { createLinuxLive } = await import('./linux/linux-live.js');
      return createLinuxLive({ stateDir: settings.stateDir, now });
    }
  }
}
