import { IPTV_BRIDGE, lanSideOf, RULE_PRIORITY_MAIN, RULE_PRIORITY_MARK, RULE_PRIORITY_SOURCE, WAN_MARK_MASK, type NetworkPlan, type WanPlan } from './network-plan.js';
import type { WanPolicy } from './network-hook-records.js';
import { cidr4, cidr6, device, hex32, integer, ipv4, ipv6, mac } from './network-syntax.js';

/**
 * `ip -batch` files (iproute2). Three phases, so a strict file never trips over state it does
 * not own:
 * - links (tolerant): create bridges, bonds and sub-interfaces, enslave ports, and remove what
 *   these files configured last time (our rules and routes carry `proto static`);
 * - state (strict): link state and MTU, addresses, policy routing, WAN routes, ARP bindings;
 * - routes (tolerant): static routes, each of which may name a link that is down.
 */

export const ROUTE_PROTO = 'static';
const HEADER = '# Portico network configuration. Generated; changes are overwritten.';

function table(wan: WanPlan): string {
  return integer(wan.table, 1, 252, 'routing table');
}

export function renderLinksBatch(plan: NetworkPlan): string {
  const lines = [HEADER, '# Run with ip -force -batch: creating a link that exists fails harmlessly.'];
  for (const iface of plan.interfaces) {
    if (iface.kind === 'bridge') lines.push(`link add name ${device(iface.l2)} type bridge`);
    if (iface.kind === 'bond') lines.push(`link add name ${device(iface.l2)} type bond mode 802.3ad`);
  }
  if (plan.iptv?.type === 'bridge') lines.push(`link add name ${device(IPTV_BRIDGE)} type bridge`);
  for (const wan of plan.wans) {
    if (wan.link !== wan.l2) lines.push(`link add link ${device(wan.l2)} name ${device(wan.link)} type vlan id ${integer(wan.row.vlan_tag, 1, 4094, 'WAN tag')}`);
  }
  const tv = plan.iptv?.upstreamVlan;
  if (tv) lines.push(`link add link ${device(tv.lower)} name ${device(plan.iptv!.upstream)} type vlan id ${integer(tv.tag, 1, 4094, 'IPTV tag')}`);
  for (const sub of plan.subInterfaces) {
    if (sub.kind === 'vlan') {
      lines.push(`link add link ${device(sub.lower)} name ${device(sub.device)} type vlan id ${integer(sub.row.tag, 1, 4094, 'VLAN tag')}`);
    } else {
      lines.push(`link add link ${device(sub.lower)} name ${device(sub.device)} type macvlan mode private`);
    }
  }

  lines.push('# Ports join their bridge or bond, or leave the one they were in.');
  for (const port of plan.ports) {
    if (!port.master) lines.push(`link set dev ${device(port.name)} nomaster`);
    else {
      // A port is enslaved to a bond only while it is down.
      if (port.masterKind === 'bond') lines.push(`link set dev ${device(port.name)} down`);
      lines.push(`link set dev ${device(port.name)} master ${device(port.master)}`);
    }
  }

  lines.push('# What these files configured before is removed before it is configured again.');
  lines.push(`rule flush protocol ${ROUTE_PROTO}`);
  for (const wan of plan.wans) lines.push(`route flush table ${table(wan)}`);
  lines.push(`route flush proto ${ROUTE_PROTO}`);
  // A batch has no family switch and flushes IPv4 only; an IPv6 prefix makes a delete IPv6.
  for (const wan of plan.wans) lines.push(`route del ::/0 dev ${device(wan.l3)} proto ${ROUTE_PROTO}`);
  for (const iface of plan.interfaces) {
    if (iface.row.proto !== 'static') continue;
    // Addresses a DHCPv6 client or SLAAC gave are left alone: only IPv4 is ours then.
    const scope = iface.row.ipv6 === 'dhcpv6' || iface.row.ipv6 === 'slaac' ? ' to 0.0.0.0/0' : '';
    lines.push(`address flush dev ${device(iface.l3)} scope global${scope}`);
  }
  for (const sub of plan.subInterfaces) lines.push(`address flush dev ${device(sub.device)} scope global`);
  lines.push('neigh flush nud permanent');
  return `${lines.join('\n')}\n`;
}

export function renderStateBatch(plan: NetworkPlan): string {
  const lines = [HEADER, '# Run with ip -batch; every line must succeed.', '# Ports'];
  for (const port of plan.ports) {
    const mtu = port.mtu === undefined ? '' : ` mtu ${integer(port.mtu, 46, 1500, 'MTU')}`;
    lines.push(`link set dev ${device(port.name)}${mtu} ${port.up ? 'up' : 'down'}`);
  }

  lines.push('# Bridges, bonds and sub-interfaces');
  for (const iface of plan.interfaces) {
    const pppoe = iface.row.proto === 'pppoe';
    if (iface.kind !== 'port') {
      const mtu = pppoe ? '' : ` mtu ${integer(iface.row.mtu, 46, 1500, 'MTU')}`;
      lines.push(`link set dev ${device(iface.l2)}${iface.link === iface.l2 ? mtu : ''} up`);
    }
    if (iface.link !== iface.l2) {
      lines.push(`link set dev ${device(iface.link)}${pppoe ? '' : ` mtu ${integer(iface.row.mtu, 46, 1500, 'MTU')}`} up`);
    }
  }
  if (plan.iptv) {
    if (plan.iptv.upstreamVlan) lines.push(`link set dev ${device(plan.iptv.upstream)} up`);
    if (plan.iptv.type === 'bridge') {
      // The set-top port and the ISP's VLAN share the internal VLAN `lantag`, untagged.
      lines.push(`link set dev ${device(IPTV_BRIDGE)} type bridge vlan_filtering 1 vlan_default_pvid ${integer(plan.iptv.lantag, 1, 4094, 'LAN tag')}`);
      lines.push(`link set dev ${device(plan.iptv.upstream)} master ${device(IPTV_BRIDGE)}`);
      lines.push(`link set dev ${device(IPTV_BRIDGE)} up`);
    }
  }
  for (const sub of plan.subInterfaces) {
    const address = sub.row.mac ? ` address ${mac(sub.row.mac)}` : '';
    lines.push(`link set dev ${device(sub.device)}${address} up`);
  }

  lines.push('# Addresses');
  for (const iface of plan.interfaces) {
    for (const address of iface.addresses) lines.push(`address replace ${cidr4(address.cidr)} dev ${device(iface.l3)}`);
    if (iface.row.ipv6 === 'static' && iface.row.ip6addr) lines.push(`address replace ${cidr6(iface.row.ip6addr)} dev ${device(iface.l3)}`);
  }
  for (const sub of plan.subInterfaces) {
    if (sub.address) lines.push(`address replace ${cidr4(sub.address.cidr)} dev ${device(sub.device)}`);
  }

  if (plan.multiWan) {
    lines.push('# Policy routing: each WAN has its table; connection marks and source addresses choose it.');
    lines.push(`rule add priority ${RULE_PRIORITY_MAIN} lookup main suppress_prefixlength 0 protocol ${ROUTE_PROTO}`);
    for (const wan of plan.wans) {
      const priority = integer(RULE_PRIORITY_MARK + wan.index, RULE_PRIORITY_MARK, RULE_PRIORITY_SOURCE - 1, 'rule priority');
      lines.push(`rule add priority ${priority} fwmark ${hex32(wan.mark)}/${hex32(WAN_MARK_MASK)} lookup ${table(wan)} protocol ${ROUTE_PROTO}`);
      if (!wan.dynamic && wan.addresses[0]) {
        const source = integer(RULE_PRIORITY_SOURCE + wan.index, RULE_PRIORITY_SOURCE, RULE_PRIORITY_SOURCE + 99, 'rule priority');
        lines.push(`rule add priority ${source} from ${ipv4(wan.addresses[0].address)} lookup ${table(wan)} protocol ${ROUTE_PROTO}`);
      }
      if (wan.gateway) lines.push(`route replace default via ${ipv4(wan.gateway)} dev ${device(wan.l3)} table ${table(wan)} proto ${ROUTE_PROTO}`);
    }
  }

  lines.push('# Default routes');
  lines.push(...defaultRouteLines(wanRoutesOf(plan)));
  for (const wan of plan.wans) {
    const metric = integer(wan.metric, 0, 9999, 'metric');
    if (wan.dynamic) {
      const client = wan.row.proto === 'pppoe' ? 'PPPoE' : 'DHCP';
      lines.push(`# ${device(wan.name)}: its ${client} client on ${device(wan.l3)} installs the routes (table ${table(wan)}, metric ${metric}).`);
      continue;
    }
    if (wan.row.ipv6 === 'static' && wan.row.ip6gw) {
      lines.push(`route replace default via ${ipv6(wan.row.ip6gw)} dev ${device(wan.l3)} proto ${ROUTE_PROTO} metric ${metric}`);
    }
    // Health probes to the track addresses always leave through their own WAN.
    for (const track of wan.trackIps) {
      if (wan.gateway) lines.push(`route replace ${cidr4(`${track}/32`)} via ${ipv4(wan.gateway)} dev ${device(wan.l3)} proto ${ROUTE_PROTO}`);
    }
  }

  lines.push('# ARP bindings');
  for (const bind of plan.config.arpBinds) {
    const dev = bind.interface ? plan.deviceOf.get(bind.interface) : lanSideOf(plan, bind.ip)?.device;
    if (!dev) continue;
    lines.push(`neigh replace ${ipv4(bind.ip)} lladdr ${mac(bind.mac)} dev ${device(dev)} nud permanent`);
  }
  return `${lines.join('\n')}\n`;
}

/** A static WAN's IPv4 default route: what the state batch writes and the WAN health monitor rewrites. */
export interface WanRoute {
  name: string;
  device: string;
  gateway: string;
  metric: number;
  /** Set for a balance member: it shares the multipath default route. */
  weight?: number;
  trackIps: string[];
}

/** The static WANs with a gateway, their values checked for the batch syntax. */
export function wanRoutesOf(plan: NetworkPlan): WanRoute[] {
  return plan.wans
    .filter((wan) => !wan.dynamic && wan.gateway)
    .map((wan) => ({
      name: wan.name,
      device: device(wan.l3),
      gateway: ipv4(wan.gateway!),
      metric: Number(integer(wan.metric, 0, 9999, 'metric')),
      ...(wan.weight !== undefined ? { weight: Number(integer(wan.weight, 1, 100, 'weight')) } : {}),
      trackIps: wan.trackIps.map((ip) => ipv4(ip)),
    }));
}

/**
 * IPv4 default routes with the WANs in `down` left out: balance members share one multipath
 * route (deleted when none is up), every other WAN has its own route at its metric (deleted
 * while it is down, so the next metric carries the traffic). With nothing down this is the
 * state batch's part; the health monitor runs it with `ip -force -batch`.
 */
export function defaultRouteLines(routes: readonly WanRoute[], down: ReadonlySet<string> = new Set()): string[] {
  const lines: string[] = [];
  const balance = routes.filter((route) => route.weight !== undefined);
  const multipath = balance.length > 1;
  if (multipath) {
    const metric = integer(balance[0]!.metric, 0, 9999, 'metric');
    const up = balance.filter((route) => !down.has(route.name));
    const hops = up.map((r) => `nexthop via ${ipv4(r.gateway)} dev ${device(r.device)} weight ${integer(r.weight!, 1, 100, 'weight')}`);
    lines.push(up.length ? `route replace default proto ${ROUTE_PROTO} metric ${metric} ${hops.join(' ')}` : `route del default proto ${ROUTE_PROTO} metric ${metric}`);
  }
  for (const route of routes) {
    if (multipath && route.weight !== undefined) continue;
    const verb = down.has(route.name) ? 'del' : 'replace';
    lines.push(`route ${verb} default via ${ipv4(route.gateway)} dev ${device(route.device)} proto ${ROUTE_PROTO} metric ${integer(route.metric, 0, 9999, 'metric')}`);
  }
  return lines;
}

/** Seconds between probe rounds, failed rounds before a WAN is down, good rounds before it is up. */
export const WAN_PROBE = { intervalSeconds: 5, failAfter: 3, recoverAfter: 2 } as const;

export interface WanHealthConfig {
  probe: typeof WAN_PROBE;
  routes: WanRoute[];
}

/** The WAN health monitor's input: the default routes and the track IPs proving each WAN. */
export function renderWanHealth(plan: NetworkPlan): string {
  const config: WanHealthConfig = { probe: WAN_PROBE, routes: wanRoutesOf(plan) };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * A dynamic (DHCP or PPPoE) WAN's share of multi-WAN policy routing, which its client sets once
 * it has an address: its table and the priority of its source-address rule. None without multi-WAN.
 */
export function wanPolicyOf(plan: NetworkPlan, wan: WanPlan): WanPolicy {
  if (!plan.multiWan) return {};
  return {
    table: Number(table(wan)),
    rulePriority: Number(integer(RULE_PRIORITY_SOURCE + wan.index, RULE_PRIORITY_SOURCE, RULE_PRIORITY_SOURCE + 99, 'rule priority')),
  };
}

/**
 * The DHCP WANs whose client the daemon supervises (wan-dhcp.json): device, default-route
 * metric, and with multi-WAN the WAN's table and source-rule priority.
 */
export function renderWanDhcp(plan: NetworkPlan): string {
  const clients = plan.wans
    .filter((wan) => wan.row.proto === 'dhcp')
    .map((wan) => ({
      name: device(wan.name),
      device: device(wan.l3),
      metric: Number(integer(wan.metric, 0, 9999, 'metric')),
      ...wanPolicyOf(plan, wan),
    }));
  return `${JSON.stringify({ clients }, null, 2)}\n`;
}

export function renderRoutesBatch(plan: NetworkPlan): string {
  const lines = [HEADER, '# Run with ip -force -batch: a route through a link that is down fails alone.'];
  for (const route of plan.config.staticRoutes) {
    if (!route.enabled) continue;
    const dev = route.interface ? plan.deviceOf.get(route.interface) : undefined;
    if (route.interface && !dev) continue; // its interface is disabled
    const via = route.gateway ? ` via ${ipv4(route.gateway)}` : '';
    const on = dev ? ` dev ${device(dev)}` : '';
    lines.push(`route replace ${cidr4(route.target)}${via}${on} proto ${ROUTE_PROTO} metric ${integer(route.metric, 0, 9999, 'metric')}`);
  }
  return `${lines.join('\n')}\n`;
}

const VERBS: Readonly<Record<string, readonly string[]>> = {
  link: ['add', 'set'],
  address: ['replace', 'flush'],
  route: ['replace', 'flush', 'del'],
  rule: ['add', 'flush'],
  neigh: ['replace', 'flush'],
};
const TOKEN = /^[A-Za-z0-9._:/-]+$/;
const DEVICE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,14}$/;

/**
 * Syntax check of an ip batch file: every line is empty, a comment, or an allowed object and
 * verb followed by single-space separated plain tokens (no quotes, no `#`, which ip would
 * read as the start of a comment), and every `dev`, `name` or `link` argument is a device
 * name. Answers the problems found, one per line; empty when the file is fine.
 */
export function checkIpBatch(content: string): string[] {
  const problems: string[] = [];
  if (!content.endsWith('\n')) problems.push('file does not end with a newline');
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, index) => {
    const at = `line ${index + 1}`;
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(line)) return problems.push(`${at}: control character`);
    if (line === '') return;
    if (line.startsWith('#')) {
      if (!/^[\x20-\x7e]*$/.test(line)) problems.push(`${at}: comment is not printable ASCII`);
      return;
    }
    const tokens = line.split(' ');
    if (tokens.some((t) => !TOKEN.test(t))) return problems.push(`${at}: unexpected token`);
    const verbs = VERBS[tokens[0]!];
    if (!verbs) return problems.push(`${at}: unknown object ${tokens[0]}`);
    if (!verbs.includes(tokens[1] ?? '')) return problems.push(`${at}: unknown verb ${tokens[1] ?? ''}`);
    tokens.forEach((token, i) => {
      if (['dev', 'name', 'master'].includes(token) || (token === 'link' && i > 0)) {
        if (!DEVICE.test(tokens[i + 1] ?? '')) problems.push(`${at}: bad device after ${token}`);
      }
    });
    return undefined;
  });
  return problems;
}
