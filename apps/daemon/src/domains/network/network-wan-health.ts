import type { CommandRunner } from '../../engine/command-runner.js';
import { defaultRouteLines, type WanHealthConfig, type WanRoute } from './network-ip-batch.js';

/** One WAN as the monitor sees it. */
export interface WanHealthState {
  name: string;
  up: boolean;
  /** Consecutive failed rounds (while up) or good rounds (while down). */
  streak: number;
  /** Round-trip time of the last answered probe, milliseconds. */
  rttMs: number | null;
  checkedAt: number | null;
}

/**
 * Multi-WAN track-IP health (spec: multi-WAN failover). A WAN whose link is up can still be
 * dead beyond its gateway; the kernel cannot tell, so every few seconds each WAN with track
 * IPs pings them out of its own device. After `failAfter` rounds with no answer from any of
 * them the WAN is down: its default route is taken out (or it leaves the balance multipath),
 * so new connections use the next WAN. After `recoverAfter` good rounds it is put back.
 *
 * The routes come from the same code as the state batch (`defaultRouteLines`), and are
 * rewritten with `ip -force -batch -`, so a route already gone does not stop the others.
 */
export class WanHealthMonitor {
  private config: WanHealthConfig | null = null;
  private readonly states = new Map<string, WanHealthState>();
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;

  constructor(
    private readonly options: {
      run: CommandRunner;
      now?: () => number;
      /** Reports a failure to rewrite routes; probing goes on. */
      report?: (error: unknown) => void;
    },
  ) {}

  /** Takes a new configuration (a fresh apply wrote every route, so every WAN starts up). */
  configure(config: WanHealthConfig): void {
    this.stopTimer();
    this.config = config;
    this.states.clear();
    for (const route of config.routes) this.states.set(route.name, { name: route.name, up: true, streak: 0, rttMs: null, checkedAt: null });
    if (config.routes.some((route) => route.trackIps.length > 0)) {
      this.timer = setInterval(() => void this.probeRound(), config.probe.intervalSeconds * 1000);
      this.timer.unref();
    }
  }

  /** Writes the routes again when a WAN is down: a network re-apply put every route back. */
  async reassert(): Promise<void> {
    if (this.config && [...this.states.values()].some((state) => !state.up)) await this.writeRoutes(this.config);
  }

  status(): WanHealthState[] {
    return [...this.states.values()].map((state) => ({ ...state }));
  }

  /** One round of probes; rounds never overlap. Exposed so tests can drive time. */
  probeRound(): Promise<void> {
    this.round ??= this.runRound().finally(() => (this.round = null));
    return this.round;
  }

  async stop(): Promise<void> {
    this.stopTimer();
    this.config = null;
    await this.round;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async runRound(): Promise<void> {
    const config = this.config;
    if (!config) return;
    const now = this.options.now ?? Date.now;
    const tracked = config.routes.filter((route) => route.trackIps.length > 0);
    const results = await Promise.all(tracked.map(async (route) => [route, await this.probe(route)] as const));
    if (this.config !== config) return; // reconfigured meanwhile: these answers are stale
    let changed = false;
    for (const [route, rtt] of results) {
      const state = this.states.get(route.name)!;
      state.checkedAt = now();
      if (rtt !== null) state.rttMs = rtt;
      const good = rtt !== null;
      if (good === state.up) {
        state.streak = 0;
        continue;
      }
      state.streak += 1;
      if (state.streak >= (state.up ? config.probe.failAfter : config.probe.recoverAfter)) {
        state.up = !state.up;
        state.streak = 0;
        changed = true;
      }
    }
    if (changed) await this.writeRoutes(config);
  }

  /** Round-trip milliseconds of the first track IP that answers, or null when none does. */
  private async probe(route: WanRoute): Promise<number | null> {
    for (const ip of route.trackIps) {
      const started = performance.now();
      const result = await this.options.run(['ping', '-q', '-c', '1', '-W', '1', '-I', route.device, ip], { timeoutMs: 3000 });
      if (result.exitCode === 0) return Math.round((performance.now() - started) * 10) / 10;
    }
    return null;
  }

  private async writeRoutes(config: WanHealthConfig): Promise<void> {
    const down = new Set([...this.states.values()].filter((state) => !state.up).map((state) => state.name));
    const batch = `${defaultRouteLines(config.routes, down).join('\n')}\n`;
    const result = await this.options.run(['ip', '-force', '-batch', '-'], { input: batch });
    if (result.exitCode !== 0) this.options.report?.(new Error(`rewriting WAN default routes: ${result.stderr.slice(0, 500)}`));
  }
}
