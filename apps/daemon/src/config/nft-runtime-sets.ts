import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandRunner } from '../engine/command-runner.js';

/**
 * Sets the daemon fills while running (hotspot clients, DNS answers, connection meters) are
 * declared by the ruleset but never flushed, so a reload keeps their elements. nft refuses a
 * file that declares such a set differently from the one the kernel holds, which happens once
 * after an update changed a set's type, flags or size and the daemon restarted without a reboot:
 * every apply would then fail its check, for good.
 *
 * Only when a ruleset has failed its check, this finds the runtime sets the kernel holds in
 * another shape and deletes them right after their table's flush, in the same file and so in
 * the same transaction: the file then declares them anew, and the firewall is never open in
 * between. Their elements are lost: at start the hotspot engine restores its clients after the
 * first apply, and DNS answers fill their sets again.
 */

export interface RuntimeSet {
  family: string;
  table: string;
  kind: 'set' | 'map';
  name: string;
  /** The declaration's statements: `type ipv4_addr; flags timeout; size 65536;`. */
  body: string;
}

const TABLE_OPEN = /^table (inet|ip|ip6|arp|bridge|netdev) ([A-Za-z0-9_]+) \{$/;
const DECLARATION = /^\t(set|map) ([A-Za-z0-9_]+) \{ (.*) \}$/;
const FLUSH_SET = /^flush (?:set|map) (\S+) (\S+) (\S+)$/;
const FLUSH_TABLE = /^flush table (\S+) (\S+)$/;

/** The sets a ruleset file declares but does not flush, by table (network-nftables.ts layout). */
export function runtimeSetsOf(content: string): RuntimeSet[] {
  return declaredSetsOf(content, false);
}

/** The sets a ruleset file declares, by table; with `flushedToo`, the ones it refills as well. */
export function declaredSetsOf(content: string, flushedToo = true): RuntimeSet[] {
  const declared = new Map<string, RuntimeSet>();
  const flushed = new Set<string>();
  let table: { family: string; table: string } | null = null;
  for (const line of content.split('\n')) {
    const open = TABLE_OPEN.exec(line);
    if (open) {
      table = { family: open[1]!, table: open[2]! };
      continue;
    }
    if (line === '}') {
      table = null;
      continue;
    }
    const flush = FLUSH_SET.exec(line);
    if (flush) {
      flushed.add(`${flush[1]} ${flush[2]} ${flush[3]}`);
      continue;
    }
    const declaration = table ? DECLARATION.exec(line) : null;
    if (table && declaration) {
      const key = `${table.family} ${table.table} ${declaration[2]}`;
      // The first declaration of a set is the one without elements.
      if (!declared.has(key)) declared.set(key, { ...table, kind: declaration[1] as 'set' | 'map', name: declaration[2]!, body: declaration[3]! });
    }
  }
  return [...declared].filter(([key]) => flushedToo || !flushed.has(key)).map(([, set]) => set);
}

/**
 * The sets of `content` that the kernel holds in a shape the file's declaration does not
 * match. Mostly runtime sets; a configured set's type can change too (Smart QoS's download
 * maps are keyed differently on the two download sides, qos-plan.ts).
 */
export async function staleDeclaredSets(content: string, run: CommandRunner): Promise<RuntimeSet[]> {
  const stale: RuntimeSet[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'portico-nft-'));
  try {
    for (const set of declaredSetsOf(content)) {
      // Terse: the shape without the elements, which may be many.
      const live = await run(['nft', '-t', 'list', set.kind, set.family, set.table, set.name]);
      if (live.exitCode !== 0) continue;
      const probe = join(dir, 'probe.nft');
      await writeFile(probe, `table ${set.family} ${set.table} {\n\t${set.kind} ${set.name} { ${set.body} }\n}\n`);
      if ((await run(['nft', '-c', '-f', probe])).exitCode !== 0) stale.push(set);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return stale;
}

/** `content` with a `delete` of each stale set right after its table's flush. */
export function recreatingSets(content: string, stale: readonly RuntimeSet[]): string {
  const out: string[] = [];
  for (const line of content.split('\n')) {
    out.push(line);
    const flush = FLUSH_TABLE.exec(line);
    if (!flush) continue;
    for (const set of stale) if (set.family === flush[1] && set.table === flush[2]) out.push(`delete ${set.kind} ${set.family} ${set.table} ${set.name}`);
  }
  return out.join('\n');
}
