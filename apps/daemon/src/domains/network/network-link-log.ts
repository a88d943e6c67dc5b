import type { NetifList } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { RuntimeService } from '../../config/domain-module.js';

/** How often the links are looked at: the port status page's refresh (spec: line monitoring, 5 s). */
export const LINK_SAMPLE_MS = 5000;

/**
 * The port log (Logs → port): each time an interface's link goes up or down, as the live
 * status reads it, one entry. The first look only learns the states; an interface that
 * appears or goes away is not a link change.
 */
export class LinkLog implements RuntimeService {
  private readonly states = new Map<string, string>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly read: () => NetifList,
    private readonly logs: Pick<AppContext['logs'], 'append'>,
    private readonly report: (error: unknown) => void = () => undefined,
  ) {}

  /** Compares the links with the last look and logs the changes. */
  sample(): void {
    for (const link of this.read().items) {
      const before = this.states.get(link.ifname);
      this.states.set(link.ifname, link.status);
      if (before === undefined || before === link.status) continue;
      this.logs.append('port', {
        level: link.status === 'up' ? 'notice' : 'warning',
        origin: link.ifname,
        key: link.status === 'up' ? 'logs.port.up' : 'logs.port.down',
        values: { ifname: link.ifname, role: link.role },
      });
    }
  }

  start(intervalMs = LINK_SAMPLE_MS): void {
    // A failed look (a link read mid-change) is told and tried again at the next one.
    const look = () => {
      try {
        this.sample();
      } catch (error) {
        this.report(error);
      }
    };
    look();
    this.timer = setInterval(look, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
