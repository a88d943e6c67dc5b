import { HEALTH_FINDING_KINDS, type CheckItem, type CheckMode, type HealthCheck, type HealthFindingKind } from '@portico/schema';
import type { HealthMonitor } from './health-monitor.js';
import type { HealthSources } from './health-monitor.js';

/** A WAN line as the live status has it. */
export interface LineState {
  name: string;
  up: boolean;
  /** Whether it holds an IPv4 address (or is a dialled link that is up). */
  addressed: boolean;
}

export interface ExaminationSources extends Pick<HealthSources, 'disk' | 'memory' | 'upstreams' | 'measure'> {
  lines(): LineState[];
  /** Whether a WAN holds a global IPv6 address; null where the driver cannot tell. */
  ipv6(): Promise<boolean | null>;
}

/** Disk and memory use at which the check warns, and the disk use at which it fails (percent). */
export const CHECK_LIMITS = { diskWarn: 90, diskFail: 98, memoryWarn: 90 } as const;

type Step = () => Promise<CheckItem[]>;

const item = (key: CheckItem['key'], result: CheckItem['result'], state: CheckItem['state'], subject = '', value: number | null = null): CheckItem => ({
  key,
  result,
  state,
  subject,
  value,
});

/**
 * The routing health check (spec §2 /security/examination, §4 results): a quick check reads
 * what the device knows now (lines, disk, memory, the monitor's findings); a full check also
 * runs a fresh monitoring round, IPv6 and the upstream's DNS and HTTP. One check at a time;
 * stop ends it after the item under way, start again restarts it.
 */
export class HealthExamination {
  private state: HealthCheck = { running: false, mode: null, started: null, finished: null, stopped: false, items: [], done: 0, total: 0 };
  private generation = 0;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly sources: ExaminationSources,
    private readonly monitor: HealthMonitor,
    private readonly now: () => number,
  ) {}

  read(): HealthCheck {
    return { ...this.state, items: this.state.items.map((i) => ({ ...i })) };
  }

  /** Settles when the check under way (if any) has ended. */
  settled(): Promise<void> {
    return this.done;
  }

  start(mode: CheckMode): HealthCheck {
    const steps = this.steps(mode);
    const generation = ++this.generation;
    this.state = { running: true, mode, started: this.now(), finished: null, stopped: false, items: [], done: 0, total: steps.length };
    this.done = (async () => {
      for (const step of steps) {
        let items: CheckItem[];
        try {
          items = await step();
        } catch {
          items = [];
        }
        if (generation !== this.generation) return;
        this.state.items.push(...items);
        this.state.done++;
      }
      this.state.running = false;
      this.state.finished = this.now();
    })();
    return this.read();
  }

  stop(): HealthCheck {
    if (this.state.running) {
      this.generation++;
      this.state.running = false;
      this.state.stopped = true;
      this.state.finished = this.now();
    }
    return this.read();
  }

  private steps(mode: CheckMode): Step[] {
    const full = mode === 'full';
    const steps: Step[] = [async () => this.lines()];
    if (full) steps.push(() => this.ipv6(), async () => [item('sdlan', 'unknown', 'sdlanNotEnabled')]);
    steps.push(async () => this.disk(), async () => this.memory());
    if (full) steps.push(() => this.upstream());
    // A full check probes the LANs afresh; a quick one reports the monitor's last round.
    steps.push(async () => {
      if (full && this.monitor.probing) await this.monitor.round();
      return this.findings();
    });
    return steps;
  }

  private lines(): CheckItem[] {
    const lines = this.sources.lines();
    // No WAN configured: there is no line to speak of.
    if (lines.length === 0) return [item('line', 'unknown', 'notProbed')];
    return lines.map((l) => (l.up && l.addressed ? item('line', 'ok', 'lineOk', l.name) : item('line', 'fail', 'lineInterrupted', l.name)));
  }

  private async ipv6(): Promise<CheckItem[]> {
    const running = await this.sources.ipv6();
    if (running === null) return [item('ipv6', 'unknown', 'notProbed')];
    return [running ? item('ipv6', 'ok', 'ipv6Running') : item('ipv6', 'warning', 'ipv6NotObtained')];
  }

  private disk(): CheckItem[] {
    const disks = this.sources.disk();
    if (disks.length === 0) return [item('disk', 'unknown', 'diskUnused')];
    return disks.map((d) => {
      if (d.usage >= CHECK_LIMITS.diskFail) return item('disk', 'fail', 'diskAlmostFull', d.partition, d.usage);
      if (d.usage >= CHECK_LIMITS.diskWarn) return item('disk', 'warning', 'diskAlmostFull', d.partition, d.usage);
      return item('disk', 'ok', 'diskInUse', d.partition, d.usage);
    });
  }

  private memory(): CheckItem[] {
    const m = this.sources.memory();
    if (!m) return [item('memory', 'unknown', 'notProbed')];
    return [m.usage >= CHECK_LIMITS.memoryWarn ? item('memory', 'warning', 'memoryHigh', '', m.usage) : item('memory', 'ok', 'memoryOk', '', m.usage)];
  }

  private async upstream(): Promise<CheckItem[]> {
    const targets = this.sources.upstreams();
    if (targets.length === 0) return [item('dns', 'warning', 'noUpstream'), item('http', 'warning', 'noUpstream')];
    const out: CheckItem[] = [];
    for (const target of targets) {
      const times = await this.sources.measure(target).catch(() => ({ dnsTime: null, httpTime: null }));
      const subject = `${target.interface} ${target.server}`;
      out.push(times.dnsTime === null ? item('dns', 'fail', 'noAnswer', subject) : item('dns', 'ok', 'answered', subject, times.dnsTime));
      out.push(times.httpTime === null ? item('http', 'fail', 'noAnswer', target.domain) : item('http', 'ok', 'answered', target.domain, times.httpTime));
    }
    return out;
  }

  private findings(): CheckItem[] {
    const findings = this.monitor.findings();
    return HEALTH_FINDING_KINDS.map((kind: HealthFindingKind) => {
      if (!this.monitor.probing) return item(kind, 'unknown', 'notProbed');
      const of = findings.filter((f) => f.kind === kind);
      return of.length ? item(kind, 'fail', 'found', [...new Set(of.map((f) => f.interface))].join(' '), of.length) : item(kind, 'ok', 'none');
    });
  }
}
