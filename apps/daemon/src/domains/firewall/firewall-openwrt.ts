import type { RenderedFile, RenderOutput } from '../../engine/engine-types.js';
import type { NetworkPlan, NftChainDeclaration, NftSetDeclaration } from '../network/network-public.js';
import { nftString } from '../network/network-public.js';
import type { FirewallConfig } from './firewall-config.js';
import { buildFirewallRules } from './firewall-nftables.js';

/**
 * The firewall on the `openwrt` driver as fw4 include files. fw4 reads
 * /usr/share/nftables.d: `table-post/*.nft` inside `table inet fw4` (our sets and chains) and
 * `chain-pre/<chain>/*.nft` at the top of its own chains (our jumps). fw4's chains come before
 * its connection-state rules there, so our forward and input jumps judge new connections only.
 * LAN and WAN devices are our own sets: fw4 names its zones differently.
 *
 * The fragments are not whole rulesets, so they are checked by wrapping them in a table of
 * fw4's shape (see firewall-openwrt golden tests) rather than on their own.
 */
export const OPENWRT_FIREWALL_FILES = {
  table: '/usr/share/nftables.d/table-post/30-portico-firewall.nft',
  forward: '/usr/share/nftables.d/chain-pre/forward/30-portico-firewall.nft',
  input: '/usr/share/nftables.d/chain-pre/input/30-portico-firewall.nft',
  dstnat: '/usr/share/nftables.d/chain-pre/dstnat/30-portico-firewall.nft',
  srcnat: '/usr/share/nftables.d/chain-pre/srcnat/30-portico-firewall.nft',
} as const;

const DEVICE_SETS = { lan: '@portico_lan', wan: '@portico_wan' };
const HEADER = '# Portico firewall for fw4. Generated; changes are overwritten.';

function setText(set: NftSetDeclaration): string {
  const statements = [`type ${set.type};`];
  if (set.flags?.length) statements.push(`flags ${set.flags.join(', ')};`);
  for (const extra of set.extra ?? []) statements.push(`${extra};`);
  if (!set.runtime && set.elements?.length) statements.push(`elements = { ${set.elements.join(', ')} }`);
  return `${set.kind ?? 'set'} ${set.name} { ${statements.join(' ')} }`;
}

function chainText(chain: NftChainDeclaration): string[] {
  return [`chain ${chain.name} {`, ...chain.rules.map((rule) => `\t${rule}`), '}'];
}

function file(target: string, lines: readonly string[]): RenderedFile {
  return { target, content: `${[HEADER, ...lines].join('\n')}\n`, check: 'none', mode: 0o644 };
}

export function renderOpenwrtFirewall(config: FirewallConfig, plan: NetworkPlan): RenderOutput[] {
  const rules = buildFirewallRules(config, plan, DEVICE_SETS);
  const lanDevices = [...new Set([...plan.lanSides.map((s) => s.device), ...plan.lans.map((l) => l.l3)])];
  const sets: NftSetDeclaration[] = [
    { name: 'portico_lan', type: 'ifname', elements: lanDevices.map(nftString) },
    { name: 'portico_wan', type: 'ifname', elements: plan.wans.map((w) => nftString(w.l3)) },
    ...rules.filterSets,
    ...rules.natSets,
  ];
  const chains = [...rules.filterChains, ...rules.natChains];
  const onNew = (lines: readonly string[]) => lines.map((line) => (line.startsWith('ct state new ') ? line : `ct state new ${line}`));
  const files = [
    file(OPENWRT_FIREWALL_FILES.table, [...sets.map(setText), ...chains.flatMap(chainText)]),
    file(OPENWRT_FIREWALL_FILES.forward, onNew(rules.forward.map((line) => line.replace(' ct state new ', ' ')))),
    file(OPENWRT_FIREWALL_FILES.input, onNew(rules.input)),
    file(OPENWRT_FIREWALL_FILES.dstnat, rules.dstnat.length ? ['jump fw_dstnat'] : []),
    file(OPENWRT_FIREWALL_FILES.srcnat, rules.srcnat.length ? ['jump fw_srcnat'] : []),
  ];
  return [{ domain: 'network', files }];
}
