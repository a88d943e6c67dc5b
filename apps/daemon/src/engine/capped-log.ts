import { closeSync, fstatSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An append-only line log the daemon writes itself, bounded on disk: size-capped segments
 * (`<name>.log`, then `<name>.log.1` … `<name>.log.<segments-1>`, oldest last), the oldest
 * dropped when a new one starts. Nothing written here can grow past
 * `segments × segmentBytes` (a line longer than a segment is cut to fit), so no log fills the disk.
 */
export interface CappedLogLimits {
  /** Bytes per segment file. */
  segmentBytes: number;
  /** Files kept, the one being written included. */
  segments: number;
}

export const DEFAULT_LOG_LIMITS: CappedLogLimits = { segmentBytes: 1024 * 1024, segments: 4 };

export class CappedLog {
  private fd: number | null = null;
  private size = 0;

  constructor(
    private readonly dir: string,
    private readonly name: string,
    private readonly limits: CappedLogLimits = DEFAULT_LOG_LIMITS,
  ) {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(name)) throw new Error(`log name ${name}`);
    if (!(limits.segmentBytes >= 256 && limits.segments >= 2)) throw new RangeError('log limits');
  }

  private path(index: number): string {
    return join(this.dir, index === 0 ? `${this.name}.log` : `${this.name}.log.${index}`);
  }

  private open(): number {
    if (this.fd === null) {
      this.fd = openSync(this.path(0), 'a', 0o600);
      this.size = fstatSync(this.fd).size;
    }
    return this.fd;
  }

  /** Appends one line (a line break ends it here; `line` must hold none). */
  append(line: string): void {
    let bytes = Buffer.from(`${line}\n`, 'utf8');
    if (bytes.length > this.limits.segmentBytes) bytes = Buffer.concat([bytes.subarray(0, this.limits.segmentBytes - 1), Buffer.from('\n')]);
    this.open();
    if (this.size > 0 && this.size + bytes.length > this.limits.segmentBytes) this.rotate();
    const fd = this.open();
    writeSync(fd, bytes);
    this.size += bytes.length;
  }

  /** The current segment becomes `.1`, every older one moves down, the last is dropped. */
  private rotate(): void {
    this.close();
    rmSync(this.path(this.limits.segments - 1), { force: true });
    for (let index = this.limits.segments - 2; index >= 0; index--) {
      try {
        renameSync(this.path(index), this.path(index + 1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }

  /** The segment files that exist, oldest first. */
  files(): string[] {
    let present: Set<string>;
    try {
      present = new Set(readdirSync(this.dir));
    } catch {
      return [];
    }
    const files: string[] = [];
    // Segments past the limit (a smaller limit since they were written) are left out and go at the next rotation.
    for (let index = this.limits.segments - 1; index >= 0; index--) {
      const path = this.path(index);
      if (present.has(path.slice(this.dir.length + 1))) files.push(path);
    }
    return files;
  }

  /** Removes every segment, the ones past the limit too. */
  clear(): void {
    this.close();
    let names: string[] = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name === `${this.name}.log` || (name.startsWith(`${this.name}.log.`) && /^\d+$/.test(name.slice(this.name.length + 5)))) rmSync(join(this.dir, name), { force: true });
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.size = 0;
  }
}
