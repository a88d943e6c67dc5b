import { readFile } from 'node:fs/promises';
import type { CommandRunner } from '../../engine/command-runner.js';
import { isIpv4, isMac } from '@portico/schema';

/** The MAC of `ip` in /proc/net/arp text (complete entries only), or null. */
export function macFromProcArp(text: string, ip: string): string | null {
  for (const line of text.split('\n').slice(1)) {
    const [address, , flags, hw] = line.trim().split(/\s+/);
    if (address !== ip || flags === '0x0' || !hw) continue;
    const mac = hw.toLowerCase();
    if (isMac(mac) && mac !== '00:00:00:00:00:00') return mac;
  }
  return null;
}

/** Finds the MAC of a client by its address: the kernel's neighbour table on a device. */
export type NeighbourLookup = (ip: string) => Promise<string | null>;

/**
 * Reads the neighbour table of the daemon's own network namespace: /proc/net/arp first (a file
 * read, no process: a login storm must not start a command per request), then `ip neigh` for
 * an entry the file does not show complete.
 */
export function linuxNeighbours(run: CommandRunner, procArp = '/proc/net/arp'): NeighbourLookup {
  return async (ip) => {
    if (!isIpv4(ip)) return null;
    const fromProc = await readFile(procArp, 'utf8').then((text) => macFromProcArp(text, ip), () => null);
    if (fromProc) return fromProc;
    const result = await run(['ip', '-j', 'neigh', 'show', ip], { timeoutMs: 5000 });
    if (result.exitCode !== 0) return null;
    try {
      const entries = JSON.parse(result.stdout || '[]') as Array<{ lladdr?: string }>;
      const found = entries.map((e) => e.lladdr?.toLowerCase()).find((m): m is string => Boolean(m && isMac(m)));
      return found ?? null;
    } catch {
      return null;
    }
  };
}

/** The `sim` driver: a stable locally administered MAC made from the address. */
export const simNeighbours: NeighbourLookup = async (ip) => {
  if (!isIpv4(ip)) return null;
  const octets = ip.split('.').map((o) => Number(o).toString(16).padStart(2, '0'));
  return `02:00:${octets.join(':')}`;
};
