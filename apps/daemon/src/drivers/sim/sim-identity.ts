import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { formatSerial, writeFileAtomic } from '../live-source.js';
import { seededRandom, type Random } from './sim-rhythm.js';

/** Who the simulated device is: generated once, kept in the state folder across restarts. */
export interface SimIdentity {
  /** Seeds everything that must look the same after a restart. */
  seed: number;
  sn: string;
  /** Base MAC; the LAN port has it, the WAN ports the next addresses. */
  mac: string;
  /** ms epoch at which the identity was made. */
  created: number;
}

export const SIM_IDENTITY_FILE = 'sim-identity.json';

const identitySchema = z.object({
  seed: z.number().int().min(0).max(0xffffffff),
  sn: z.string().regex(/^PT[0-9A-F]{14}$/),
  mac: z.string().regex(/^00(:[0-9a-f]{2}){5}$/),
  created: z.number().int().nonnegative(),
});

const hex2 = (n: number) => n.toString(16).padStart(2, '0');

function makeIdentity(random: Random, created: number): SimIdentity {
  const seed = Math.floor(random() * 0x100000000) >>> 0;
  const gen = seededRandom(seed);
  const byte = () => Math.floor(gen() * 256);
  const serialHex = Array.from({ length: 7 }, () => hex2(byte())).join('');
  // Starts with 00 like every address the product generates (spec §3); the last octet leaves
  // room for the port addresses that follow it.
  const octets = [0, byte(), byte(), byte(), byte(), byte() & 0xf0];
  return { seed, sn: formatSerial(serialHex), mac: octets.map(hex2).join(':'), created };
}

/** Reads the identity from the state folder, or makes and saves a new one. */
export function loadSimIdentity(stateDir: string, random: Random, now: number): SimIdentity {
  const path = join(stateDir, SIM_IDENTITY_FILE);
  try {
    const parsed = identitySchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // Missing or unreadable: a new identity follows.
  }
  const identity = makeIdentity(random, now);
  writeFileAtomic(path, `${JSON.stringify(identity, null, 2)}\n`);
  return identity;
}

/** The base MAC plus `offset` in its last octet. */
export function macWithOffset(mac: string, offset: number): string {
  const octets = mac.split(':').map((o) => parseInt(o, 16));
  octets[5] = ((octets[5] ?? 0) + offset) & 0xff;
  return octets.map(hex2).join(':');
}
