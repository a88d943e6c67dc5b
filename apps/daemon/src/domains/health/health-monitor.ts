import { HEALTH_MONITOR_INTERVAL, type HealthFinding, type HealthFindingKind, type HealthLink, type HealthReport } from '@portico/schema';
import type { Scheduler } from '../../config/config-types.js';
import { detectionKey, probeInterface, type Detection, type L2Probe, type LoopProbes, type ProbeTarget } from './health-detectors.js';
import type { HealthEventStore } from './health-events.js';
import type { UpstreamTarget, UpstreamTimes } from './health-network-probe.js';
import { LinkStatistics, type DiskUse, type LinkCounters, type MemoryUse } from './health-system.js';

/** What one monitoring round reads; each is replaced by a test's fake. */
export interface HealthSources {
  /** LAN probes; null where the driver has no packet access (sim). */
  probe: L2Probe | null;
  /** The gateway's links and their MACs. */
  macs(): Promise<Map<string, string>>;
  /** The LANs to probe, from the configuration. */
  targets(): ProbeTarget[];
  /** The other devices' addresses on a LAN device (its neighbour table). */
  neighbours(device: string): Promise<string[]>;
  /** The links whose statistics are shown, with their counters now. */
  links(): Array<{ interface: string; device: string; counters: LinkCounters }>;
  upstreams(): UpstreamTarget[];
  measure(target: UpstreamTarget): Promise<UpstreamTimes>;
  disk(): DiskUse[];
  memory(): MemoryUse | null;
  /** Which finding kinds are recorded as events (`sysconf/events`). */
  eventKinds(): Readonly<Record<HealthFindingKind, boolean>>;
}

/** Rounds a finding may go unseen before it is gone: one lost answer does not make a new event. */
export const FINDING_GRACE_ROUNDS = 3;

interface Held {
  finding: HealthFinding;
  missed: number;
}

/**
 * The health monitor (spec §2 /security/health, §9 interval 10 s): every interval one round
 * reads disk, memory and link statistics, measures the upstream's DNS and HTTP response
 * times and runs the LAN probes. A finding first seen appends an event when its kind is
 * enabled. Rounds never overlap: the next is scheduled when one ends.
 */
export class HealthMonitor {
  private readonly held = new Map<string, Held>();
  private readonly stats = new LinkStatistics();
  private readonly loops: LoopProbes = new Map();
  /** Interfaces whose probes failed last round: a LAN with its link down is logged once, not every 10 s. */
  private readonly failing = new Set<string>();
  private last: Omit<HealthReport, 'events' | 'findings' | 'interval' | 'probes'> = { sampled: null, disk: [], memory: null, network: [], links: [] };
  private running: Promise<void> | null = null;
  private cancel: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly sources: HealthSources,
    private readonly events: HealthEventStore,
    private readonly now: () => number,
    private readonly schedule: Scheduler,
    private readonly report: (error: unknown) => void,
  ) {}

  get probing(): boolean {
    return this.sources.probe !== null;
  }

  start(): void {
    this.stopped = false;
    this.next(0);
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
  }

  private next(ms: number): void {
    if (this.stopped) return;
    this.cancel = this.schedule(ms, () => {
      this.cancel = null;
      void this.round()
        .catch((error: unknown) => this.report(error))
        .finally(() => this.next(HEALTH_MONITOR_INTERVAL * 1000));
    });
  }

  /** One round, or the one under way. */
  round(): Promise<void> {
    this.running ??= this.runRound().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async runRound(): Promise<void> {
    const at = this.now();
    let links: HealthLink[] = this.last.links;
    try {
      links = this.stats.sample(at, this.sources.links());
    } catch (error) {
      this.report(error);
    }
    const network = await Promise.all(
      this.sources.upstreams().map(async (target) => {
        const times = await this.sources.measure(target).catch(() => ({ dnsTime: null, httpTime: null }));
        return { interface: target.interface, domain: target.domain, server: target.server, ...times };
      }),
    );
    if (this.sources.probe) await this.probeLans(this.sources.probe);
    this.last = { sampled: this.now(), disk: this.sources.disk(), memory: this.sources.memory(), network, links };
  }

  private async probeLans(probe: L2Probe): Promise<void> {
    let macs: Map<string, string>;
    try {
      macs = await this.sources.macs();
    } catch (error) {
      this.report(error);
      return;
    }
    const own = new Set(macs.values());
    const seen = new Map<string, Detection>();
    const probed = new Set<string>();
    for (const target of this.sources.targets()) {
      const mac = macs.get(target.device);
      if (!mac) continue;
      try {
        const neighbours = await this.sources.neighbours(target.device);
        for (const d of await probeInterface({ ...target, neighbours }, mac, own, probe, this.loops)) seen.set(detectionKey(d), d);
        probed.add(target.interface);
        this.failing.delete(target.interface);
      } catch (error) {
        if (!this.failing.has(target.interface)) this.report(error);
        this.failing.add(target.interface);
      }
    }
    const at = this.now();
    const enabled = this.sources.eventKinds();
    for (const [key, d] of seen) {
      const held = this.held.get(key);
      if (held) {
        held.finding.lastSeen = at;
        held.missed = 0;
        continue;
      }
      this.held.set(key, { finding: { ...d, firstSeen: at, lastSeen: at }, missed: 0 });
      if (enabled[d.kind]) this.events.append({ time: at, ...d });
    }
    for (const [key, held] of this.held) {
      if (seen.has(key)) continue;
      // An interface no longer configured or probed keeps nothing.
      if (!probed.has(held.finding.interface) || ++held.missed >= FINDING_GRACE_ROUNDS) this.held.delete(key);
    }
  }

  findings(): HealthFinding[] {
    return [...this.held.values()].map((h) => ({ ...h.finding }));
  }

  snapshot(): Omit<HealthReport, 'events'> {
    return { interval: HEALTH_MONITOR_INTERVAL, probes: this.probing ? 'running' : 'unsupported', ...this.last, findings: this.findings() };
  }
}
