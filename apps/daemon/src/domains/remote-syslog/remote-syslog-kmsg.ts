import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { parseKmsg, type Facility, type Severity } from './remote-syslog-format.js';

/**
 * The kernel's log as it is written (/dev/kmsg, one record per read). The ring buffer is read
 * from its start: what it held when the reader started is drained unsent (up to the first
 * "nothing more"), so a daemon restart does not send the whole ring again. Opened non-blocking
 * and read again each second once drained, so no thread of the pool waits on the kernel.
 */
export class KmsgReader {
  private handle: FileHandle | null = null;
  private stopped = false;
  private markDrained: () => void = () => undefined;
  /** Settles once what the ring held at the start was read (and not sent). */
  readonly drained = new Promise<void>((resolve) => (this.markDrained = resolve));

  constructor(
    private readonly path: string,
    private readonly deliver: (record: { severity: Severity; facility: Facility; text: string }) => void,
    private readonly report: (error: unknown) => void,
  ) {}

  async start(): Promise<void> {
    this.handle = await open(this.path, constants.O_RDONLY | constants.O_NONBLOCK);
    void this.loop();
  }

  private async loop(): Promise<void> {
    const buffer = Buffer.alloc(8192);
    let draining = true;
    while (!this.stopped && this.handle) {
      try {
        const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) {
          // End of a plain file (a test's stand-in): as "nothing more for now".
          draining = false;
          this.markDrained();
          await pause();
          continue;
        }
        if (draining) continue;
        const parsed = parseKmsg(buffer.toString('utf8', 0, bytesRead));
        if (parsed) this.deliver(parsed);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // EPIPE: records were overwritten before they were read; the next read goes on.
        if (code === 'EPIPE') continue;
        if (code === 'EAGAIN') {
          draining = false;
          this.markDrained();
          await pause();
          continue;
        }
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

function pause(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 1000).unref());
}
