import { intToIpv4, ISP_FILE_GROUPS, parsePortRange } from '@portico/schema';
import type { ConfigSnapshot } from '../../config/config-types.js';
import type { RenderOutput } from '../../engine/engine-types.js';
import type { NetworkPlan, WanPlan } from '../network/network-public.js';
import { cidr4, hex32, identifier, integer, RenderValueError, mwan3InterfaceIds, mwan3Mark, MWAN3_MMX_MASK } from '../network/network-public.js';
import { ispNetworks, qosConfigOf, type QosConfig } from './qos-config.js';
import { DOMAIN_SET_TIMEOUT, domainClassSet } from './qos-nftables.js';
import type { UciSection } from '../../engine/uci-format.js';

/**
 * Smart QoS port routes and domain routes on the `openwrt` driver.
 *
 * Why mwan3's own marks: on OpenWrt mwan3 owns policy routing. It marks every new connection
 * in iptables' mangle PREROUTING (priority -150) with the id of the interface its policy picks,
 * in the bits of its `mmx_mask`, saves that in the connection mark and routes by
 * `ip rule fwmark <id>/<mask> lookup <id>`, in per-interface tables it keeps up to date with
 * each WAN's gateway (DHCP and PPPoE included) and removes when the WAN goes down. It leaves a
 * packet alone whose mark already has bits in the mask. So our chain runs just before it
 * (priority mangle - 5) and sets the chosen WAN's mwan3 mark: mwan3 saves and routes it, and
 * nothing else has to know the gateways. The linux driver's marks (index << 8 in 0xff00) are
 * never used here: they overlap the mask and would read as another interface's id.
 *
 * Rejected: mwan3 `rule` sections per route. Port routes would fit (proto, dest_port), but
 * mwan3 still matches through iptables, whose `ipset` match cannot see nftables sets, and
 * OpenWrt's dnsmasq fills nftables sets only, so domain routes could not be expressed; and
 * our own `ip rule`/per-WAN tables in /etc/config/network would need static gateways, which
 * DHCP and PPPoE WANs do not have, and would race mwan3's rules.
 *
 * The chain and its sets go in `table inet portico` (the table 30-portico-qos.nft defines)
 * from a second include read after it, so dnsmasq writes the DNS answers of all domain sets
 * into one table. Set names end in `_v4`: OpenWrt's dnsmasq init infers a set's family from
 * a trailing 4 or 6 in its name before it asks nft, and `qos_route_6` would read as IPv6.
 */

export const OPENWRT_QOS_ROUTE_FILES = {
  nftInclude: '/usr/share/nftables.d/ruleset-post/31-portico-qos-route.nft',
} as const;

const TAB = '\t';
const CHAIN = 'qos_wan_route';
const TABLE = 'portico';

export function openwrtRouteSet(wan: WanPlan): string {
  return identifier(`qos_route_${integer(wan.index, 1, 999, 'WAN index')}_v4`);
}

/** `meta l4proto … th dport { … }` for a port route's protocol and ports. */
function portMatch(proto: 'tcp' | 'udp' | 'all', ports: readonly string[]): string {
  const items = ports.map((port) => {
    const range = parsePortRange(port);
    if (!range) throw new RenderValueError(`port ${JSON.stringify(port)} cannot be rendered`);
    const first = integer(range.first, 1, 65535, 'port');
    return range.first === range.last ? first : `${first}-${integer(range.last, 1, 65535, 'port')}`;
  });
  const l4 = proto === 'all' ? '{ tcp, udp }' : proto;
  return items.length ? `meta l4proto ${l4} th dport { ${items.join(', ')} }` : `meta l4proto ${l4}`;
}

/** A domain as dnsmasq matches it: letters, digits, inner dots and hyphens. */
function domainName(value: string): string {
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(value) || value.includes('..')) {
    throw new RenderValueError(`domain ${JSON.stringify(value)} cannot be rendered`);
  }
  return value.toLowerCase();
}

interface RouteTargets {
  /** WANs a route may name: those mwan3 routes, with their marks. */
  marks: Map<string, { wan: WanPlan; mark: number }>;
}

function routeTargets(network: NetworkPlan): RouteTargets {
  const ids = mwan3InterfaceIds(network);
  const marks = new Map<string, { wan: WanPlan; mark: number }>();
  // With one WAN there is nothing to choose.
  if (!network.multiWan) return { marks };
  for (const wan of network.wans) {
    const id = ids.get(wan.name);
    if (id !== undefined) marks.set(wan.name, { wan, mark: mwan3Mark(id) });
  }
  return { marks };
}

/** The ISP sets the Smart QoS part declares in the same table (qos-nftables.ts), per WAN. */
function ispRoutes(config: QosConfig, targets: RouteTargets): Array<{ set: string; mark: number }> {
  if (!config.base.balance) return [];
  const out: Array<{ set: string; mark: number }> = [];
  for (const row of config.loadBalance) {
    const target = targets.marks.get(row.interface);
    const networks = ispNetworks(config, row.isp);
    if (!target || !(ISP_FILE_GROUPS as readonly string[]).includes(row.isp) || networks.length === 0) continue;
    out.push({ set: identifier(`qos_isp_${row.isp}`), mark: target.mark });
  }
  return out;
}

function toWan(mark: number): string {
  const value = hex32(mark);
  return `ct mark set ct mark | ${value} meta mark set meta mark | ${value} return`;
}

/** The rules of the route chain, first match wins; empty when no route applies. */
function routeRules(config: QosConfig, network: NetworkPlan, targets: RouteTargets): string[] {
  const rules: string[] = [];
  for (const rule of config.portRules) {
    const target = rule.enabled && rule.userule ? targets.marks.get(rule.interface) : undefined;
    if (target) rules.push(`${portMatch(rule.proto, rule.dport)} ${toWan(target.mark)}`);
  }
  for (const { wan, mark } of targets.marks.values()) {
    if (config.domainRules.some((r) => r.enabled && r.userule && r.dest_domain.length && r.interface === wan.name)) {
      rules.push(`ip daddr @${openwrtRouteSet(wan)} ${toWan(mark)}`);
    }
  }
  // ISP networks of the load-balance rows go out through that ISP's WAN; the rest is spread
  // by mwan3's own balance policy (the multi-WAN weights).
  for (const isp of ispRoutes(config, targets)) rules.push(`ip daddr @${isp.set} ${toWan(isp.mark)}`);
  if (rules.length === 0) return [];
  const mask = hex32(MWAN3_MMX_MASK);
  const lanNetworks = [...new Set(network.lanSides.map((side) => cidr4(`${intToIpv4(side.address.first)}/${side.address.prefix}`)))];
  return [
    'iifname != @lan_ifaces return',
    'ct state != new return',
    // A choice made already (by mwan3's connection mark or an earlier rule) stands.
    `meta mark & ${mask} != 0x00000000 return`,
    `ct mark & ${mask} != 0x00000000 return`,
    // The gateway itself and the LAN networks are reached by the main table, never a WAN.
    'fib daddr type { local, broadcast, multicast } return',
    ...(lanNetworks.length ? [`ip daddr { ${lanNetworks.join(', ')} } return`] : []),
    ...rules,
  ];
}

/**
 * The fw4 include: the table's device set and the route sets declared (the same declarations
 * as in 30-portico-qos.nft, so the file also stands alone for `nft -c`), the route chain
 * emptied and filled. Runtime sets keep what dnsmasq put in them across reloads.
 */
export function renderQosOpenwrtRoutes(config: QosConfig, network: NetworkPlan): string {
  const targets = routeTargets(network);
  const rules = routeRules(config, network, targets);
  const routeSets = network.wans.map((wan) => `${TAB}set ${openwrtRouteSet(wan)} { type ipv4_addr; flags timeout; timeout ${DOMAIN_SET_TIMEOUT}; }`);
  // Declared as the part declares them; their elements are written by 30-portico-qos.nft.
  const ispSets = [...new Set(ispRoutes(config, targets).map((isp) => isp.set))].map((set) => `${TAB}set ${set} { type ipv4_addr; flags interval; auto-merge; }`);
  const lines = [
    '# Portico Smart QoS port and domain routes, in mwan3 marks (fw4 include). Generated; changes are overwritten.',
    `table inet ${TABLE} {`,
    `${TAB}set lan_ifaces { type ifname; }`,
    ...routeSets,
    ...ispSets,
    '',
    `${TAB}chain ${CHAIN} {`,
    `${TAB}${TAB}type filter hook prerouting priority mangle - 5; policy accept;`,
    `${TAB}}`,
    '}',
    `flush chain inet ${TABLE} ${CHAIN}`,
  ];
  if (rules.length) {
    lines.push(`table inet ${TABLE} {`, `${TAB}chain ${CHAIN} {`, ...rules.map((rule) => `${TAB}${TAB}${rule}`), `${TAB}}`, '}');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * dnsmasq `ipset` sections of /etc/config/dhcp: OpenWrt's dnsmasq init turns each into
 * `nftset=/<domains>/<family>#inet#portico#<set>,…`, so DNS answers for a domain rule's names
 * fill its class set and, for a domain route, its WAN's route set. Needs a dnsmasq built with
 * nftset support (dnsmasq-full), as on the linux driver.
 */
export function qosDhcpIpsetSections(config: QosConfig, network: NetworkPlan): UciSection[] {
  const targets = routeTargets(network);
  const sections: UciSection[] = [];
  for (const rule of config.domainRules) {
    if (!rule.enabled || rule.dest_domain.length === 0) continue;
    const names = [identifier(domainClassSet(rule.target))];
    const route = rule.userule ? targets.marks.get(rule.interface) : undefined;
    if (route) names.push(openwrtRouteSet(route.wan));
    sections.push({
      type: 'ipset',
      options: { name: names, domain: rule.dest_domain.map(domainName), table: TABLE, table_family: 'inet' },
    });
  }
  return sections;
}

/** The route include as one of the network's files (Smart QoS's contributor adds it on OpenWrt). */
export function qosOpenwrtRouteFiles(snapshot: ConfigSnapshot, plan: NetworkPlan): RenderOutput {
  const content = renderQosOpenwrtRoutes(qosConfigOf(snapshot), plan);
  return { domain: 'network', files: [{ target: OPENWRT_QOS_ROUTE_FILES.nftInclude, content, check: 'nft', mode: 0o644 }] };
}

/** The dnsmasq sections of the route and class sets, for /etc/config/dhcp. */
export function qosOpenwrtDhcp(snapshot: ConfigSnapshot, plan: NetworkPlan): UciSection[] {
  return qosDhcpIpsetSections(qosConfigOf(snapshot), plan);
}
