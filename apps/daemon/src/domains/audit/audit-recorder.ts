import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { BEHAVIOUR_AUDIT } from '@portico/schema';
import { AuditStore, type FlowRecord, type UrlRecord } from './audit-store.js';

/**
 * Between the capture and the store: records are buffered and written in one transaction a
 * second (or every BATCH records), and the retention of spec §9 runs after a write at most
 * once a minute of the daemon's clock: records older than the retention the disk's size gives
 * go, and above 80 % disk use the oldest day goes too. A disk of 500 MB or less records nothing.
 */

const DAY_MS = 86_400_000;
const BATCH = 2000;
const FLUSH_MS = 1000;
const MAINTAIN_EVERY_MS = 60_000;
/** Six months. */
const MAX_DAYS = BEHAVIOUR_AUDIT.retentionMaxMonths * 30 + 3;

export interface DiskSpace {
  /** Bytes. */
  total: number;
  free: number;
}
export type DiskProbe = (path: string) => Promise<DiskSpace>;

export const statfsProbe: DiskProbe = async (path) => {
  const stats = await statfs(path);
  return { total: stats.blocks * stats.bsize, free: stats.bavail * stats.bsize };
};

/**
 * Days of records a disk of `total` bytes keeps: 3 days per 500 MB, from 3 days up to six
 * months; null when the disk is too small to audit at all (spec §5).
 */
export function retentionDays(total: number): number | null {
  if (total <= BEHAVIOUR_AUDIT.minDiskBytes) return null;
  return Math.min(MAX_DAYS, Math.max(BEHAVIOUR_AUDIT.retentionMinDays, Math.floor((BEHAVIOUR_AUDIT.retentionMinDays * total) / BEHAVIOUR_AUDIT.minDiskBytes)));
}

export function usedPercent(space: DiskSpace): number {
  return space.total > 0 ? ((space.total - space.free) / space.total) * 100 : 100;
}

/** Where the records of a disk live: the device's own storage, or a folder on the chosen disk. */
export function auditFileOf(stateDir: string, disk: string): string {
  return disk === '' ? join(stateDir, 'audit', 'audit.db') : join(disk, 'portico-audit', 'audit.db');
}

export interface RecorderStatus {
  /** The disk is 500 MB or smaller: nothing is recorded. */
  refused: boolean;
  retentionDays: number | null;
  disk: DiskSpace | null;
  lastMaintained: number | null;
}

export class AuditRecorder {
  private urls: UrlRecord[] = [];
  private flows: FlowRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private lastMaintained: number | null = null;
  private maintaining: Promise<void> | null = null;
  private space: DiskSpace | null = null;
  private days: number | null = null;
  private closed = false;

  constructor(
    readonly store: AuditStore,
    private readonly diskPath: string,
    private readonly now: () => number,
    private readonly probe: DiskProbe,
    private readonly report: (error: unknown) => void,
  ) {}

  addUrl(record: UrlRecord): void {
    if (this.closed || this.refused()) return;
    this.urls.push(record);
    this.schedule();
  }

  addFlow(record: FlowRecord): void {
    if (this.closed || this.refused()) return;
    this.flows.push(record);
    this.schedule();
  }

  private refused(): boolean {
    return this.space !== null && this.days === null;
  }

  private schedule(): void {
    if (this.urls.length + this.flows.length >= BATCH) return this.flush();
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Writes what is buffered; starts a retention pass when one is due. */
  flush(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const urls = this.urls;
    const flows = this.flows;
    this.urls = [];
    this.flows = [];
    try {
      this.store.add(urls, flows);
    } catch (error) {
      this.report(error);
    }
    if (this.lastMaintained === null || this.now() - this.lastMaintained >= MAINTAIN_EVERY_MS) void this.maintain();
  }

  /** One retention pass (spec §9); passes never overlap. */
  maintain(): Promise<void> {
    if (this.maintaining) return this.maintaining;
    this.lastMaintained = this.now();
    this.maintaining = this.pass()
      .catch((error: unknown) => this.report(error))
      .finally(() => (this.maintaining = null));
    return this.maintaining;
  }

  private async pass(): Promise<void> {
    const space = await this.probe(this.diskPath);
    if (this.closed) return;
    this.space = space;
    this.days = retentionDays(space.total);
    const now = this.now();
    if (this.days !== null) this.store.deleteBefore(now - this.days * DAY_MS);
    if (usedPercent(space) > BEHAVIOUR_AUDIT.cleanAbovePercent) {
      // The oldest day goes at each pass until the disk is back under the mark.
      const oldest = this.store.oldest();
      if (oldest !== null) this.store.deleteBefore(oldest + DAY_MS);
    }
  }

  status(): RecorderStatus {
    return { refused: this.refused(), retentionDays: this.days, disk: this.space, lastMaintained: this.lastMaintained };
  }

  close(): void {
    this.flush();
    this.closed = true;
    this.store.close();
  }
}

/** The services every part of the audit shares, set when the daemon starts the module. */
export interface AuditRuntime {
  stateDir: string;
  now: () => number;
  probe: DiskProbe;
  report: (error: unknown) => void;
}

/** The recorders of one daemon, one per disk: the capture writes through it, the routes read its store. */
export class AuditRecorders {
  private readonly recorders = new Map<string, AuditRecorder>();

  constructor(private readonly runtime: AuditRuntime) {}

  /** The recorder of a disk; the device's own storage when `disk` is ''. */
  of(disk: string): AuditRecorder {
    const file = auditFileOf(this.runtime.stateDir, disk);
    let recorder = this.recorders.get(file);
    if (!recorder) {
      const { stateDir, now, probe, report } = this.runtime;
      recorder = new AuditRecorder(new AuditStore(file), disk === '' ? stateDir : disk, now, probe, report);
      this.recorders.set(file, recorder);
    }
    return recorder;
  }

  close(): void {
    for (const recorder of this.recorders.values()) recorder.close();
    this.recorders.clear();
  }
}

/**
 * The recorders of the daemon that runs the device's activation (one daemon per device; tests
 * that build several apps in one process never activate on linux).
 */
let active: AuditRecorders | null = null;

export function setActiveRecorders(recorders: AuditRecorders | null, only?: AuditRecorders): void {
  if (only === undefined || active === only) active = recorders;
}

export function activeRecorders(): AuditRecorders {
  if (!active) throw new Error('the audit module has not started');
  return active;
}
