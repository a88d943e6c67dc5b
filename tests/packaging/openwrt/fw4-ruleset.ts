/**
 * A ruleset of fw4's shape (firewall4's templates/ruleset.uc) that pulls in files of
 * /usr/share/nftables.d where fw4 does, so `nft -c -f` checks them as fw4 would load them:
 * ruleset-pre before and ruleset-post after `table inet fw4 { … }`, table-pre before its
 * first chain and table-post after its last, chain-pre/<chain> before the chain's first rule
 * (after fw4's loopback accept in input and output) and chain-post/<chain> after its last.
 * Only fw4's own chains with their hooks are here, with a representative rule each; a chain
 * include naming a chain fw4 does not generate is refused, as fw4 would silently skip it.
 */

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const FW4_INCLUDES = '/usr/share/nftables.d/';

interface Fw4Chain {
  name: string;
  hook?: string;
  /** fw4's rules before chain-pre includes (the loopback accept). */
  head?: string[];
  /** fw4's rules between chain-pre and chain-post includes. */
  body: string[];
  /** Include positions fw4 puts in this chain; both unless said. */
  includes?: readonly ('chain-pre' | 'chain-post')[];
}

/** fw4's base chains (zone chains are left out: their names depend on the zones). */
const FW4_CHAINS: Fw4Chain[] = [
  { name: 'input', hook: 'type filter hook input priority filter; policy drop;', head: ['iifname "lo" accept'], body: ['ct state established,related accept', 'jump handle_reject'] },
  { name: 'forward', hook: 'type filter hook forward priority filter; policy drop;', body: ['ct state established,related accept'] },
  { name: 'output', hook: 'type filter hook output priority filter; policy accept;', head: ['oifname "lo" accept'], body: ['ct state established,related accept'] },
  { name: 'prerouting', hook: 'type filter hook prerouting priority filter; policy accept;', body: [], includes: [] },
  { name: 'handle_reject', body: ['meta l4proto tcp reject with tcp reset', 'reject'], includes: [] },
  { name: 'dstnat', hook: 'type nat hook prerouting priority dstnat; policy accept;', body: [] },
  { name: 'srcnat', hook: 'type nat hook postrouting priority srcnat; policy accept;', body: [] },
  { name: 'raw_prerouting', hook: 'type filter hook prerouting priority raw; policy accept;', body: [], includes: ['chain-post'] },
  { name: 'raw_output', hook: 'type filter hook output priority raw; policy accept;', body: [] },
  { name: 'mangle_prerouting', hook: 'type filter hook prerouting priority mangle; policy accept;', body: [] },
  { name: 'mangle_postrouting', hook: 'type filter hook postrouting priority mangle; policy accept;', body: [] },
  { name: 'mangle_input', hook: 'type filter hook input priority mangle; policy accept;', body: [] },
  { name: 'mangle_output', hook: 'type route hook output priority mangle; policy accept;', body: [] },
  { name: 'mangle_forward', hook: 'type filter hook forward priority mangle; policy accept;', body: [] },
];

/** Where one include goes, from its path under /usr/share/nftables.d. */
export function fw4Position(target: string): { position: string; chain?: string } {
  const [position, ...rest] = target.slice(FW4_INCLUDES.length).split('/');
  if (position === 'chain-pre' || position === 'chain-post') {
    if (rest.length !== 2) throw new Error(`${target}: a chain include lives in ${position}/<chain>/`);
    return { position, chain: rest[0] };
  }
  if (!['ruleset-pre', 'ruleset-post', 'table-pre', 'table-post'].includes(position!) || rest.length !== 1) {
    throw new Error(`${target}: fw4 does not include files from there`);
  }
  return { position: position! };
}

/**
 * The ruleset text; `pathOf` gives the file an include statement names (the includes as
 * written under a test folder).
 */
export function fw4Ruleset(targets: readonly string[], pathOf: (target: string) => string): string {
  const placed = targets.map((target) => ({ target, ...fw4Position(target) }));
  for (const { target, position, chain } of placed) {
    const known = FW4_CHAINS.find((c) => c.name === chain);
    if (chain && !known) throw new Error(`${target}: fw4 has no chain ${chain}`);
    if (known && !(known.includes ?? ['chain-pre', 'chain-post']).includes(position as 'chain-pre')) {
      throw new Error(`${target}: fw4 reads no ${position} includes in its chain ${chain}`);
    }
  }
  // fw4 globs each folder, so files are read in name order.
  const at = (position: string, chain?: string, pad = '') =>
    placed
      .filter((p) => p.position === position && p.chain === chain)
      .map((p) => p.target)
      .sort()
      .map((target) => `${pad}include "${pathOf(target)}"`);
  const lines = ['table inet fw4', 'flush table inet fw4', ...at('ruleset-pre'), 'table inet fw4 {', ...at('table-pre', undefined, '\t')];
  for (const chain of FW4_CHAINS) {
    lines.push(`\tchain ${chain.name} {`);
    if (chain.hook) lines.push(`\t\t${chain.hook}`);
    lines.push(...(chain.head ?? []).map((rule) => `\t\t${rule}`));
    lines.push(...at('chain-pre', chain.name, '\t\t'), ...chain.body.map((rule) => `\t\t${rule}`), ...at('chain-post', chain.name, '\t\t'));
    lines.push('\t}');
  }
  lines.push(...at('table-post', undefined, '\t'), '}', ...at('ruleset-post'), '');
  return lines.join('\n');
}

/**
 * The fw4 includes among `files` written under a new folder in `parent`, with the ruleset that
 * pulls them in as fw4 does; returns that ruleset's path (for `nft -c -f` or `nft -f`).
 */
export function writeFw4Tree(files: Iterable<{ target: string; content: string }>, parent: string): string {
  const includes = [...files].filter((file) => file.target.startsWith(FW4_INCLUDES));
  const dir = mkdtempSync(join(parent, 'fw4-'));
  for (const file of includes) {
    mkdirSync(dirname(join(dir, file.target)), { recursive: true });
    writeFileSync(join(dir, file.target), file.content);
  }
  const ruleset = join(dir, 'fw4.nft');
  writeFileSync(ruleset, fw4Ruleset(includes.map((file) => file.target), (target) => join(dir, target)));
  return ruleset;
}
