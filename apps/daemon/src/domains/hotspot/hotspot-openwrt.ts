import { hotspotRadius } from '@portico/schema';
import type { ConfigSnapshot } from '../../config/config-types.js';
import type { RenderedFile, RenderOutput } from '../../engine/engine-types.js';
import type { UciSection } from '../../engine/uci-format.js';
import { collectTable, declareSets, fw4Include, defineSets, flushSets, type NetworkPlan, type NftChainDeclaration, type RulesetPart } from '../network/network-public.js';
import { hotspotConfigOf } from './hotspot-config.js';
import { HOTSPOT_BASE_CHAINS, hotspotRulesetPart, WHITE_DNS_SET, whiteDomain } from './hotspot-ruleset.js';
import { radiusRulesetPart } from './radius/radius-ruleset.js';
import { cmccRulesetPartOf } from './cmcc/cmcc-ruleset.js';

/**
 * The hotspot on the `openwrt` driver. fw4 owns `table inet fw4` only, so the hotspot keeps its
 * sets and base chains in `table inet portico`, the table the data plane (hotspot-dataplane.ts)
 * and the reminder change element by element, as on linux. The file is an fw4 `ruleset-post`
 * include: fw4 loads it in the same transaction as its own table on every reload (boot
 * included), after Smart QoS's include of the same table (`30-`), whose `flush table` it
 * follows. It never flushes the table itself, only its own chains and the sets it fills, so
 * the runtime sets (signed-in clients, counters, white-listed DNS answers) keep their elements.
 *
 * What the linux part hooks into the base ruleset's `lan_to_device` chain goes into a base
 * chain of its own on the input hook (priority -10, before fw4's input): its drops are final;
 * its accept (the portal port) only ends this chain, and fw4's LAN zone accepts input anyway.
 *
 * With no zone the file is still written, its chains empty: a removed include would leave the
 * last rules live, since nothing else flushes them.
 */
export const OPENWRT_HOTSPOT_FILES = {
  table: '/usr/share/nftables.d/ruleset-post/40-portico-hotspot.nft',
  radius: '/usr/share/nftables.d/chain-pre/input/40-portico-hotspot-radius.nft',
  cmcc: '/usr/share/nftables.d/chain-pre/input/40-portico-hotspot-cmcc.nft',
} as const;

const TAB = '\t';

/** The chains the include owns, with the hooks of the base ones. */
const OWN_CHAINS: readonly NftChainDeclaration[] = [
  { name: 'hs_forward', base: HOTSPOT_BASE_CHAINS.hs_forward, rules: [] },
  { name: 'hs_from_client', rules: [] },
  { name: 'hs_to_client', rules: [] },
  { name: 'hs_prerouting', base: HOTSPOT_BASE_CHAINS.hs_prerouting, rules: [] },
  { name: 'hs_input', base: 'type filter hook input priority -10; policy accept;', rules: [] },
];

function chainLines(chain: NftChainDeclaration, withRules: boolean): string[] {
  const rules = withRules ? chain.rules.map((rule) => `${TAB}${TAB}${rule}`) : [];
  return [`${TAB}chain ${chain.name} {`, ...(chain.base ? [`${TAB}${TAB}${chain.base}`] : []), ...rules, `${TAB}}`];
}

/** The include's text: declare, flush what it owns, define again; one transaction. */
export function renderOpenwrtHotspotTable(part: RulesetPart | null): string {
  const table = collectTable(part ? [part] : [], (p) => p.filter);
  const rulesOf = (name: string) => (name === 'hs_input' ? (table.hooks.get('lan_to_device') ?? []) : (table.chains.find((c) => c.name === name)?.rules ?? []));
  const unknown = table.chains.find((c) => !OWN_CHAINS.some((own) => own.name === c.name && own.base === c.base));
  if (unknown) throw new Error(`hotspot chain ${unknown.name} is not one the OpenWrt include owns`);
  const chains = OWN_CHAINS.map((chain) => ({ ...chain, rules: rulesOf(chain.name) }));
  const out = [
    '# Portico hotspot (fw4 include). Generated; changes are overwritten.',
    'table inet portico {',
    ...declareSets(table.sets),
    ...chains.flatMap((chain) => chainLines(chain, false)),
    '}',
    ...chains.map((chain) => `flush chain inet portico ${chain.name}`),
    ...flushSets('inet', 'portico', table.sets),
  ];
  if (part) out.push('table inet portico {', ...defineSets(table.sets), ...chains.flatMap((chain) => ['', ...chainLines(chain, true)]), '}');
  return `${out.join('\n')}\n`;
}

export function renderOpenwrtHotspot(snapshot: ConfigSnapshot, plan: NetworkPlan, portalPort: number): RenderOutput[] {
  const part = hotspotRulesetPart(hotspotConfigOf(snapshot), plan, portalPort);
  const file: RenderedFile = { target: OPENWRT_HOTSPOT_FILES.table, content: renderOpenwrtHotspotTable(part), check: 'nft', mode: 0o644 };
  return [{ domain: 'network', files: [file] }];
}

/**
 * The white list's domains as a dnsmasq `ipset` section of /etc/config/dhcp: OpenWrt's dnsmasq
 * puts their answers in `inet portico hs_white_dns` (nftset), as the linux part's lines do.
 * DHCP option 114 (the captive API) is not announced on OpenWrt: the LAN's `dhcp` section is
 * the network domain's.
 */
export function hotspotOpenwrtDhcp(snapshot: ConfigSnapshot, plan: NetworkPlan): UciSection[] {
  const config = hotspotConfigOf(snapshot);
  if (!hotspotRulesetPart(config, plan, 1)) return [];
  const domains = [...new Set(config.whiteList.filter((e) => e.type === 'url').map((e) => whiteDomain(e.value)).filter((d): d is string => d !== null))];
  if (domains.length === 0) return [];
  return [{ type: 'ipset', options: { name: [WHITE_DNS_SET], domain: domains, table: 'portico', table_family: 'inet' } }];
}

/**
 * RADIUS Disconnect and CoA on OpenWrt: the linux part's accepts at the top of fw4's input
 * chain, before its zones (a server on the WAN side would meet the WAN zone's drop).
 */
export function renderOpenwrtRadius(snapshot: ConfigSnapshot): RenderOutput[] {
  const stored = snapshot[hotspotRadius.name]?.find((row) => row.id === '')?.data ?? {};
  const rules = radiusRulesetPart(hotspotRadius.schema.parse(stored))?.filter?.hooks?.input_rules ?? [];
  if (rules.length === 0) return [];
  return [{ domain: 'network', files: [fw4Include(OPENWRT_HOTSPOT_FILES.radius, 'Portico hotspot RADIUS', rules)] }];
}

/** The CMCC portal server's requests on OpenWrt: the linux part's accept at the top of fw4's input chain. */
export function renderOpenwrtCmcc(snapshot: ConfigSnapshot): RenderOutput[] {
  const rules = cmccRulesetPartOf(snapshot)?.filter?.hooks?.input_rules ?? [];
  if (rules.length === 0) return [];
  return [{ domain: 'network', files: [fw4Include(OPENWRT_HOTSPOT_FILES.cmcc, 'Portico hotspot CMCC', rules)] }];
}
