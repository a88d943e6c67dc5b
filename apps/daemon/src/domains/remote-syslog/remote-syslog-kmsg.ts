import { open, readFile, type FileHandle } from 'node:fs/promises';
import { parseKmsg, type Facility, type Severity } from './remote-syslog-format.js';

/**
 * The kernel's log as it is written (/dev/kmsg, one record per read). Records from before the
 * reader started are skipped by their timestamp (the ring buffer is read from its start), so a
 * daemon restart does not send the whole ring again.
 */
export class KmsgReader {
  private handle: FileHandle | null = null;
  private stopped = false;

  constructor(
    private readonly path: string,
    private readonly deliver: (record: { severity: Severity; facility: Facility; text: string }) => void,
    private readonly report: (error: unknown) => void,
  ) {}

  async start(): Promise<void> {
    const uptime = Number((await readFile('/proc/uptime', 'utf8')).split(' ')[0]);
    const since = Math.floor(uptime * 1e6);
    this.handle = await open(this.path, 'r');
    void this.loop(since);
  }

  private async loop(sinceUsec: number): Promise<void> {
    const buffer = Buffer.alloc(8192);
    while (!this.stopped && this.handle) {
      try {
        const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) continue;
        const record = buffer.toString('utf8', 0, bytesRead);
        const usec = Number(record.split(',')[2]);
        if (usec < sinceUsec) continue;
        const parsed = parseKmsg(record);
        if (parsed) this.deliver(parsed);
      } catch (error) {
        // EPIPE: records were overwritten before they were read; the next read goes on.
        if ((error as NodeJS.ErrnoException).code === 'EPIPE') continue;
        if (!this.stopped) this.report(error);
        return;
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const handle = this.handle;
    this.handle = null;
    await handle?.close().catch(() => undefined);
  }
}
