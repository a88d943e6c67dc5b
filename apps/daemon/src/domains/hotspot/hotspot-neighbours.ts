import type { CommandRunner } from '../../engine/command-runner.js';
import { isIpv4, isMac } from '@portico/schema';

/** Finds the MAC of a client by its address: the kernel's neighbour table on a device. */
export type NeighbourLookup = (ip: string) => Promise<string | null>;

export function linuxNeighbours(run: CommandRunner): NeighbourLookup {
  return async (ip) => {
    if (!isIpv4(ip)) return null;
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
