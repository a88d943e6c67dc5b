import { copyFile, mkdir, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogName } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { RuntimeService } from '../../config/domain-module.js';
import type { CompiledFilter } from './logs-filter.js';
import { parseJournalLine, parseSyslogLine } from './logs-syslog.js';
import { joinedSource, journalSource, providerSource, storedFilesSource, textFilesSource, type LogSource } from './logs-sources.js';

/** dnsmasq's DHCP log (`log-dhcp`, `log-facility`), under the system root. */
export const DHCP_LOG_FILE = '/var/log/portico/dhcp.log';
/** The kernel's log as rsyslog writes it, where no journal is read. */
export const KERNEL_LOG_FILE = '/var/log/kern.log';
/** dnsmasq's file is kept under this size (and one older copy of the same size). */
export const DHCP_LOG_CAP = 1024 * 1024;
export const DHCP_CAP_INTERVAL_MS = 60_000;

export interface LogsDeps {
  /** journalctl, or null where the kernel log is read from its file only. */
  journalctl?: string | null;
  /** Bytes above which dnsmasq's DHCP log is cut (tests make it small). */
  dhcpCap?: number;
}

/** The system root the logs of other programs are under: the rendered tree on `sim`. */
export function logRoot(ctx: Pick<AppContext, 'settings'>): string {
  return ctx.settings.driver === 'sim' ? join(ctx.settings.stateDir, 'rendered') : ctx.settings.systemRoot;
}

/** A source whose entries up to the log's last clean are hidden: files the daemon must not cut. */
function after(source: LogSource, since: () => number): LogSource {
  return { kind: source.kind, present: () => source.present(), batches: (filter: CompiledFilter) => source.batches({ ...filter, after: Math.max(filter.after, since()) }) };
}

/**
 * Every log of the Logs menu, read one way (logs-sources.ts): what the daemon writes itself
 * (config/log-book.ts), what a domain keeps (`provide`), the files other programs write (the
 * kernel's, dnsmasq's DHCP log, charon's). Cleaning empties what the daemon owns; a file it
 * does not own (the kernel's, the journal, charon's) keeps its lines and they are hidden from
 * the time of the clean on.
 */
export class LogsService implements RuntimeService {
  private readonly root: string;
  private readonly cleanedFile: string;
  private cleaned: Partial<Record<LogName, number>> = {};
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly deps: LogsDeps = {},
  ) {
    this.root = logRoot(ctx);
    this.cleanedFile = join(ctx.logs.dir, 'cleaned.json');
  }

  async start(): Promise<void> {
    const saved = await readFile(this.cleanedFile, 'utf8').then((text) => JSON.parse(text) as unknown, () => ({}));
    if (typeof saved === 'object' && saved !== null) {
      for (const [name, time] of Object.entries(saved)) if (typeof time === 'number') this.cleaned[name as LogName] = time;
    }
    // dnsmasq refuses to start when its log file cannot be opened: its folder exists first.
    if (this.ctx.settings.driver === 'linux') await mkdir(join(this.root, '/var/log/portico'), { recursive: true });
    this.timer = setInterval(() => void this.capDhcpLog().catch(() => undefined), DHCP_CAP_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private since(name: LogName): () => number {
    return () => this.cleaned[name] ?? Number.NEGATIVE_INFINITY;
  }

  private get dhcpFiles(): string[] {
    const path = join(this.root, DHCP_LOG_FILE);
    return [`${path}.1`, path];
  }

  private kernelSource(): LogSource {
    const journal = this.deps.journalctl === undefined ? '/usr/bin/journalctl' : this.deps.journalctl;
    // The journal is the host's: read only where the daemon runs the device itself.
    if (journal && this.ctx.settings.driver === 'linux' && this.ctx.settings.systemRoot === '/') {
      return journalSource(journal, parseJournalLine);
    }
    const path = join(this.root, KERNEL_LOG_FILE);
    return textFilesSource(() => [`${path}.1`, path], (line) => parseSyslogLine(line, this.ctx.now()));
  }

  /** Where the log `name` is read from. */
  async source(name: LogName): Promise<LogSource> {
    const { logs } = this.ctx;
    const now = () => this.ctx.now();
    const parts: LogSource[] = [storedFilesSource(() => logs.files(name)), providerSource(() => logs.provider(name))];
    const foreign = logs.filesOf(name).map((path) => join(this.root, path));
    if (foreign.length) parts.push(after(textFilesSource(() => foreign, (line) => parseSyslogLine(line, now())), this.since(name)));
    if (name === 'system') {
      const kernel = this.kernelSource();
      if (kernel.kind === 'journal' && !(await kernel.present())) {
        const path = join(this.root, KERNEL_LOG_FILE);
        parts.push(after(textFilesSource(() => [`${path}.1`, path], (line) => parseSyslogLine(line, now())), this.since(name)));
      } else {
        parts.push(after(kernel, this.since(name)));
      }
    }
    if (name === 'dhcp') parts.push(textFilesSource(() => this.dhcpFiles, (line) => parseSyslogLine(line, now())));
    const present: LogSource[] = [];
    for (const part of parts) if (await part.present()) present.push(part);
    return joinedSource(present);
  }

  async clean(name: LogName): Promise<void> {
    this.ctx.logs.clear(name);
    this.ctx.logs.provider(name)?.clear();
    if (name === 'dhcp') {
      const [older, current] = this.dhcpFiles;
      await rm(older!, { force: true });
      // dnsmasq appends (O_APPEND): cut to nothing, its next line lands at the start.
      await truncate(current!, 0).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
    this.cleaned[name] = this.ctx.now();
    const temp = `${this.cleanedFile}.tmp`;
    await mkdir(this.ctx.logs.dir, { recursive: true, mode: 0o700 });
    await writeFile(temp, JSON.stringify(this.cleaned), { mode: 0o600 });
    await rename(temp, this.cleanedFile);
  }

  /**
   * Keeps dnsmasq's DHCP log bounded: past the cap, it is copied to `.1` (the older copy
   * dropped) and cut to nothing, as logrotate's copytruncate does, so dnsmasq keeps its file
   * open. Lines written between the copy and the cut are lost; at most one check interval of
   * lines can pass the cap.
   */
  async capDhcpLog(): Promise<boolean> {
    const [older, current] = this.dhcpFiles;
    const size = await stat(current!).then((s) => s.size, () => 0);
    if (size <= (this.deps.dhcpCap ?? DHCP_LOG_CAP)) return false;
    await copyFile(current!, `${older!}.tmp`);
    await rename(`${older!}.tmp`, older!);
    await truncate(current!, 0);
    return true;
  }
}
