import type { Settings } from '../settings.js';
import type { LiveStatusSource } from './live-source.js';
import { createLinuxLive } from './linux/linux-live.js';
import { createSimLive } from './sim/sim-live.js';

/**
 * The live-status source of the configured driver (DESIGN §5). `sim` touches nothing on the
 * host; `linux` reads /proc and /sys. Both are imported statically: a dynamic import would make
 * the bundler keep @portico/schema whole (every module wrapped for lazy start-up) instead of
 * only what the daemon uses. OpenWrt is Linux: its status comes from the same /proc and /sys.
 */
export async function selectLiveSource(settings: Pick<Settings, 'driver' | 'stateDir'>, now?: () => number): Promise<LiveStatusSource> {
  switch (settings.driver) {
    case 'sim':
      return createSimLive({ stateDir: settings.stateDir, now });
    case 'linux':
    case 'openwrt':
      return createLinuxLive({ stateDir: settings.stateDir, now });
  }
}
