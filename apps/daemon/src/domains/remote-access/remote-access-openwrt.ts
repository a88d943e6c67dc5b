import type { RenderOutput } from '../../engine/engine-types.js';
import { defineSets, fw4Include, nftString, type NetworkPlan, type RulesetPart } from '../network/network-public.js';

/**
 * Remote access on the `openwrt` driver as fw4 includes, the same rules as the linux part:
 * our sets and chain at the end of `table inet fw4` (table-post), a jump for new connections
 * from the WAN devices at the top of fw4's input chain (before its zones, whose WAN input
 * drops), and the port redirect at the top of its dstnat chain. Files sort after the
 * firewall's (30-), so the firewall's port mappings come first, as on linux. fw4's NAT chain
 * is `inet`, so the redirect holds over IPv6 too.
 */
export const OPENWRT_REMOTE_ACCESS_FILES = {
  table: '/usr/share/nftables.d/table-post/40-portico-remote-access.nft',
  input: '/usr/share/nftables.d/chain-pre/input/40-portico-remote-access.nft',
  dstnat: '/usr/share/nftables.d/chain-pre/dstnat/40-portico-remote-access.nft',
} as const;

const CHAIN = 'portico_remote_access';

/** The includes of the part; none when it is null (the old ones are then removed). */
export function renderOpenwrtRemoteAccess(part: RulesetPart | null, plan: NetworkPlan): RenderOutput[] {
  if (!part) return [];
  const wanDevices = plan.wans.map((w) => nftString(w.l3));
  const wans = wanDevices.length === 1 ? wanDevices[0]! : `{ ${wanDevices.join(', ')} }`;
  // The sets of the part, renamed so they cannot meet a set of fw4's or the firewall's.
  const rename = (text: string) => text.replace(/@remote_access_(v4|v6)\b/g, '@portico_remote_access_$1');
  const sets = (part.filter?.sets ?? []).map((set) => ({ ...set, name: `portico_${set.name}` }));
  const rules = (part.filter?.hooks?.wan_to_device ?? []).map(rename);
  const redirects = part.nat?.hooks?.prerouting_rules ?? [];
  const file = (target: string, lines: readonly string[]) => fw4Include(target, 'Portico remote access', lines);
  const files = [
    file(OPENWRT_REMOTE_ACCESS_FILES.table, [...defineSets(sets), `chain ${CHAIN} {`, ...rules.map((rule) => `\t${rule}`), '}']),
    file(OPENWRT_REMOTE_ACCESS_FILES.input, [`ct state new iifname ${wans} jump ${CHAIN}`]),
  ];
  if (redirects.length) files.push(file(OPENWRT_REMOTE_ACCESS_FILES.dstnat, redirects));
  return [{ domain: 'network', files }];
}
