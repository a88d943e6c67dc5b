import { extensionPoint } from '../../config/domain-module.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import type { RenderedFile, RenderOutput } from '../../engine/engine-types.js';
import type { UciSection } from '../../engine/uci-format.js';
import type { NetworkPlan } from './network-plan.js';

/**
 * How other features (firewall, Smart QoS, hotspot) add to the ONE nftables ruleset the
 * network domain renders. The device loads a single file with `nft -f`, so every feature's
 * rules change in the same transaction as the base chains and never leave a window open.
 *
 * Every line a part gives is nft syntax its own renderer built from validated values (see
 * network-syntax.ts); this file only places the lines.
 */

/** The chains of `table inet portico` a part may add rules to; the base chains jump to them. */
export type FilterHook = 'input_rules' | 'forward_rules' | 'wan_to_device' | 'lan_to_device';
/** The chains of `table ip portico_nat` a part may add rules to. */
export type NatHook = 'prerouting_rules' | 'postrouting_rules';

export interface NftSetDeclaration {
  name: string;
  /** `set` matches keys; `map` maps keys to values (`type ipv4_addr : mark`). */
  kind?: 'set' | 'map';
  /** Everything after `type`, e.g. `ipv4_addr` or `ipv4_addr : mark`. */
  type: string;
  /** e.g. `interval`, `timeout`, `dynamic`. */
  flags?: readonly string[];
  /** Further statements, e.g. `size 65535`, `timeout 1h`. */
  extra?: readonly string[];
  /** Rendered elements (`10.0.0.1`, `10.0.0.1 : 0x10`); flushed and rewritten at each load. */
  elements?: readonly string[];
  /**
   * Filled while running (hotspot clients, DNS answers): declared but never flushed, so a
   * reload keeps its elements. Its declaration stays the same from one load to the next; when
   * an update changes it, the apply recreates the set, empty (config/nft-runtime-sets.ts).
   */
  runtime?: boolean;
}

export interface NftChainDeclaration {
  name: string;
  /** For a base chain: `type filter hook forward priority mangle; policy accept;`. */
  base?: string;
  rules: readonly string[];
}

export interface NftTablePart<Hook extends string> {
  sets?: readonly NftSetDeclaration[];
  chains?: readonly NftChainDeclaration[];
  /** Rules appended, in part order, to the extension chains. */
  hooks?: Partial<Record<Hook, readonly string[]>>;
}

export interface RulesetPart {
  /** Shown as a comment above the part's chains. */
  name: string;
  filter?: NftTablePart<FilterHook>;
  nat?: NftTablePart<NatHook>;
  /** Lines added to dnsmasq.conf (e.g. `nftset=`, `dhcp-option=`), built from validated values. */
  dnsmasq?: readonly string[];
}

/**
 * A feature that adds to the ruleset. `entities` are the entities its part is made from: a
 * change to any of them re-renders the ruleset (and only changed files are made live).
 */
export interface RulesetContributor {
  entities: readonly string[];
  part(snapshot: ConfigSnapshot, plan: NetworkPlan): RulesetPart | null;
  /**
   * The same feature on the `openwrt` driver: fw4 includes and UCI, checked like any file. Its
   * plan names WAN devices as netifd does (openwrtDevicePlan: a PPPoE WAN is `pppoe-<name>`).
   */
  openwrt?(snapshot: ConfigSnapshot, plan: NetworkPlan): RenderOutput[];
  /** Sections the feature adds to /etc/config/dhcp, which the network renders whole (e.g. dnsmasq nft sets). */
  openwrtDhcp?(snapshot: ConfigSnapshot, plan: NetworkPlan): UciSection[];
  /** DHCP options every LAN's server announces on OpenWrt (UCI `dhcp_option` values, `42,0.0.0.0`). */
  openwrtLanDhcpOptions?(snapshot: ConfigSnapshot): string[];
}

const TAB = '\t';

function setBody(set: NftSetDeclaration, withElements: boolean): string {
  const statements = [`type ${set.type};`];
  if (set.flags?.length) statements.push(`flags ${set.flags.join(', ')};`);
  for (const extra of set.extra ?? []) statements.push(`${extra};`);
  if (withElements && set.elements?.length) statements.push(`elements = { ${set.elements.join(', ')} }`);
  return `${set.kind ?? 'set'} ${set.name} { ${statements.join(' ')} }`;
}

/** Declarations of a table's sets with no elements, written before the flush. */
export function declareSets(sets: readonly NftSetDeclaration[]): string[] {
  return sets.map((set) => `${TAB}${setBody(set, false)}`);
}

/** `flush set|map` lines for the sets a render fills (runtime sets keep their elements). */
export function flushSets(family: string, table: string, sets: readonly NftSetDeclaration[]): string[] {
  return sets.filter((set) => !set.runtime).map((set) => `flush ${set.kind ?? 'set'} ${family} ${table} ${set.name}`);
}

/** The sets with their rendered elements, inside the table's definition. */
export function defineSets(sets: readonly NftSetDeclaration[]): string[] {
  return sets.map((set) => `${TAB}${setBody(set, !set.runtime)}`);
}

/** Everything the parts declare for one table, in part order. */
export function collectTable<Hook extends string>(
  parts: readonly RulesetPart[],
  pick: (part: RulesetPart) => NftTablePart<Hook> | undefined,
): { sets: NftSetDeclaration[]; chains: NftChainDeclaration[]; hooks: Map<Hook, string[]> } {
  const sets: NftSetDeclaration[] = [];
  const chains: NftChainDeclaration[] = [];
  const hooks = new Map<Hook, string[]>();
  for (const part of parts) {
    const table = pick(part);
    if (!table) continue;
    sets.push(...(table.sets ?? []));
    chains.push(...(table.chains ?? []));
    for (const [hook, rules] of Object.entries(table.hooks ?? {}) as Array<[Hook, readonly string[]]>) {
      const list = hooks.get(hook) ?? [];
      list.push(...rules);
      hooks.set(hook, list);
    }
  }
  return { sets, chains, hooks };
}

/**
 * One fw4 include of a contributor's `openwrt` (a fragment of fw4's table or of one of its
 * chains). It is not a ruleset of its own, so it has no checker: `fw4 reload` judges it inside
 * fw4's ruleset, and its refusal fails the apply, which puts the previous files back.
 */
export function fw4Include(target: string, title: string, lines: readonly string[]): RenderedFile {
  const header = `# ${title} (fw4 include). Generated; changes are overwritten.`;
  return { target, content: `${[header, ...lines].join('\n')}\n`, check: 'none', mode: 0o644 };
}

/** The extension point other domains fill with their share of the one ruleset. */
export const RULESET_PARTS = extensionPoint<RulesetContributor>('network.ruleset');
