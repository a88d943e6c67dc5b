import { readFile } from 'node:fs/promises';
import type { AuditDisk } from '@portico/schema';
import { retentionDays, type DiskProbe } from './audit-recorder.js';

/** Mount points under which a disk the administrator plugged in is mounted. */
const REMOVABLE_ROOTS = ['/mnt/', '/media/'];

/** Mount points of block devices under /mnt or /media, from /proc/mounts text. */
export function diskMounts(mounts: string): string[] {
  const out = new Set<string>();
  for (const line of mounts.split('\n')) {
    const [device, mount] = line.split(' ');
    if (!device?.startsWith('/dev/') || !mount) continue;
    // /proc/mounts writes a space in a path as \040: such a path is not offered.
    if (!/^\/[A-Za-z0-9._/-]+$/.test(mount) || !REMOVABLE_ROOTS.some((root) => mount.startsWith(root))) continue;
    out.add(mount);
  }
  return [...out];
}

/** The disks records could be kept on: the device's own storage first, then mounted disks. */
export type DiskLister = () => Promise<AuditDisk[]>;

export function systemDisks(stateDir: string, probe: DiskProbe, mountsFile = '/proc/mounts'): DiskLister {
  return async () => {
    const mounts = diskMounts(await readFile(mountsFile, 'utf8').catch(() => ''));
    const out: AuditDisk[] = [];
    for (const [path, at] of [['', stateDir], ...mounts.map((m) => [m, m])] as Array<[string, string]>) {
      const space = await probe(at).catch(() => null);
      if (space) out.push({ path, total: space.total, free: space.free, retentionDays: retentionDays(space.total) });
    }
    return out;
  };
}
