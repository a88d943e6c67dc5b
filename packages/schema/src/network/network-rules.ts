import { IP_OVERLAP_MESSAGE, IP_RANGE_OVERLAP_MESSAGE, ipv4ToInt, rangesOverlap, type NumericRange } from '../common/ip-address.js';
import { LAN_TAG_CONFLICT_MESSAGE, VLAN_IN_USE_MESSAGE } from '../common/link-fields.js';
import type { ArpAuth } from './arp-auth.js';
import type { ArpBind } from './arp-bind.js';
import type { DhcpServer } from './dhcp-server.js';
import type { DhcpStatic } from './dhcp-static.js';
import type { Iptv } from './iptv-config.js';
import type { MultiWan } from './multi-wan.js';
import type { NetworkInterface } from './network-interface.js';
import { addressMaskPrefix, subnetOf } from './network-fields.js';
import type { PortAttribute } from './port-attribute.js';
import type { StaticRoute } from './static-route.js';
import type { Vlan } from './vlan-interface.js';
import type { VpnClient } from './vpn-client.js';
import type { FirewallAcl, FirewallDmz, FirewallHostMapping, FirewallLanForward, FirewallNat, FirewallPortMapping, FirewallShareBlock } from '../firewall/index.js';

/**
 * Rules of the Network section that need other stored records (spec §5, §8). Each is a pure
 * function of the candidate and the stored rows, so the write path, the import of a backup and
 * tests all apply the same rules. A write rule answers field errors (`{ field: i18nKey }`); a
 * delete rule answers one message key; `undefined` means the change is fine.
 *
 * On update the candidate is the full record as it will be stored (stored row merged with the
 * request) and carries its `id`; the stored row with that id is "previous" and is left out of
 * uniqueness and overlap checks.
 */

/** Stored rows by entity name; a singleton is a list of zero or one record. */
export interface NetworkRows {
  networkInterface?: readonly NetworkInterface[];
  vlan?: readonly Vlan[];
  dhcpServer?: readonly DhcpServer[];
  dhcpStatic?: readonly DhcpStatic[];
  staticRoute?: readonly StaticRoute[];
  arpBind?: readonly ArpBind[];
  multiWan?: readonly MultiWan[];
  portAttribute?: readonly PortAttribute[];
  vpnClient?: readonly VpnClient[];
  iptv?: readonly Iptv[];
  arpAuth?: readonly ArpAuth[];
  // Firewall rows name interfaces too: an interface they use cannot be deleted.
  firewallPortMapping?: readonly FirewallPortMapping[];
  firewallNat?: readonly FirewallNat[];
  firewallHostMapping?: readonly FirewallHostMapping[];
  firewallAcl?: readonly FirewallAcl[];
  firewallDmz?: readonly FirewallDmz[];
  firewallLanForward?: readonly FirewallLanForward[];
  firewallShareBlock?: readonly FirewallShareBlock[];
}

/** Entities outside the Network section whose rows name interfaces, read for the delete rules. */
export const INTERFACE_USER_ENTITIES = [
  'firewallPortMapping',
  'firewallNat',
  'firewallHostMapping',
  'firewallAcl',
  'firewallDmz',
  'firewallLanForward',
  'firewallShareBlock',
] as const;

export type FieldErrorMap = Record<string, string>;
/** Field errors, a message key, or undefined when the change is accepted. */
export type RuleVerdict = FieldErrorMap | string | undefined;
/** A record being added (no id yet) or updated (with its id). */
export type Candidate<T extends { id: string }> = Omit<T, 'id'> & { id?: string };

export const NAME_EXISTS_MESSAGE = 'validation.nameExists';
export const PORT_IN_USE_MESSAGE = 'validation.network.portInUse';
export const INTERFACE_IN_USE_MESSAGE = 'validation.network.inUse';
export const UNKNOWN_INTERFACE_MESSAGE = 'validation.network.unknownInterface';
/** Spec §8 "MWAN on WAN2 must be deleted first". */
export const MULTI_WAN_IN_USE_MESSAGE = 'validation.multiWan.inUse';
export const SUBIF_IN_USE_MESSAGE = 'validation.subif.inUse';

type Range = NumericRange<number>;

class Verdict {
  readonly errors: FieldErrorMap = {};
  add(field: string, message: string): void {
    this.errors[field] ??= message;
  }
  result(): FieldErrorMap | undefined {
    return Object.keys(this.errors).length ? this.errors : undefined;
  }
}

function others<T extends { id: string }>(rows: readonly T[] | undefined, candidate: { id?: string }): T[] {
  return (rows ?? []).filter((row) => candidate.id === undefined || row.id !== candidate.id);
}

function previousOf<T extends { id: string }>(rows: readonly T[] | undefined, candidate: { id?: string }): T | undefined {
  return candidate.id === undefined ? undefined : rows?.find((row) => row.id === candidate.id);
}

function enabledIptv(rows: NetworkRows): Iptv | undefined {
  const iptv = rows.iptv?.[0];
  return iptv?.enable ? iptv : undefined;
}

/** Every name in the interface namespace: interfaces, VLANs and VPN clients. */
function takenNames(rows: NetworkRows, candidate: { id?: string }, kind: 'interface' | 'vlan' | 'vpn'): Set<string> {
  const names = new Set<string>();
  const keep = <T extends { id: string }>(list: readonly T[] | undefined, own: boolean) =>
    own ? others(list, candidate) : [...(list ?? [])];
  for (const row of keep(rows.networkInterface, kind === 'interface')) names.add(row.ifname);
  for (const row of keep(rows.vlan, kind === 'vlan')) names.add(row.ifname);
  for (const row of keep(rows.vpnClient, kind === 'vpn')) names.add(row.name);
  return names;
}

/** The networks an interface holds: its primary network and those of its secondary addresses. */
export function interfaceNetworks(row: Pick<NetworkInterface, 'proto' | 'ipaddr' | 'netmask' | 'secondary'>): Range[] {
  if (row.proto !== 'static') return [];
  const out: Range[] = [];
  const primary = row.ipaddr && row.netmask ? subnetOf(row.ipaddr, row.netmask) : null;
  if (primary) out.push(primary);
  for (const entry of row.secondary) {
    const prefix = addressMaskPrefix(entry);
    if (prefix !== null) out.push(subnetOf(entry.split('/')[0]!, String(prefix))!);
  }
  return out;
}

function vlanNetwork(row: Pick<Vlan, 'ipaddr' | 'netmask'>): Range | null {
  return row.ipaddr && row.netmask ? subnetOf(row.ipaddr, row.netmask) : null;
}

/** The LAN-side interface (LAN, bond or VLAN) by name with its network, if it has an address. */
interface LanSide {
  name: string;
  address: string;
  network: Range;
  ipv6Prefix: boolean;
}

function lanSide(rows: NetworkRows, name: string): LanSide | undefined {
  const iface = rows.networkInterface?.find((row) => row.ifname === name);
  if (iface) {
    if (iface.role === 'wan' || iface.proto !== 'static' || !iface.ipaddr || !iface.netmask) return undefined;
    return { name, address: iface.ipaddr, network: subnetOf(iface.ipaddr, iface.netmask)!, ipv6Prefix: iface.ipv6 === 'static' && iface.ip6addr !== '' };
  }
  const sub = rows.vlan?.find((row) => row.ifname === name);
  const network = sub ? vlanNetwork(sub) : null;
  return sub && network ? { name, address: sub.ipaddr, network, ipv6Prefix: false } : undefined;
}

function allLanSides(rows: NetworkRows): LanSide[] {
  const names = [...(rows.networkInterface ?? []).map((r) => r.ifname), ...(rows.vlan ?? []).map((r) => r.ifname)];
  return names.map((name) => lanSide(rows, name)).filter((side): side is LanSide => side !== undefined);
}

/** The interface whose ports include `port`. */
export function portOwner(interfaces: readonly NetworkInterface[] | undefined, port: string): NetworkInterface | undefined {
  return interfaces?.find((row) => row.hwport.includes(port));
}

/** Port and tag pairs in use on the wire: WAN tags, VLANs and the IPTV VLAN. */
function usedTags(rows: NetworkRows, skip: { interfaceId?: string; vlanId?: string; iptv?: boolean }): Array<{ port: string; tag: number }> {
  const out: Array<{ port: string; tag: number }> = [];
  for (const row of rows.networkInterface ?? []) {
    if (row.id === skip.interfaceId || row.role !== 'wan' || row.vlan_tag === 0 || !row.hwport[0]) continue;
    out.push({ port: row.hwport[0], tag: row.vlan_tag });
  }
  for (const row of rows.vlan ?? []) if (row.id !== skip.vlanId) out.push({ port: row.port, tag: row.tag });
  const iptv = enabledIptv(rows);
  if (!skip.iptv && iptv && iptv.wantag > 0) {
    const wanPort = rows.networkInterface?.find((row) => row.ifname === iptv.wan)?.hwport[0];
    if (wanPort) out.push({ port: wanPort, tag: iptv.wantag });
  }
  return out;
}

/** Networks already configured on interfaces and VLANs, excluding the record being written. */
function configuredNetworks(rows: NetworkRows, skip: { interfaceId?: string; vlanId?: string }): Range[] {
  const out: Range[] = [];
  for (const row of rows.networkInterface ?? []) if (row.id !== skip.interfaceId) out.push(...interfaceNetworks(row));
  for (const row of rows.vlan ?? []) {
    const network = row.id === skip.vlanId ? null : vlanNetwork(row);
    if (network) out.push(network);
  }
  return out;
}

/** Names a record refers to, to refuse deleting what is still used. */
function referencedNames(rows: NetworkRows): Set<string> {
  const names = new Set<string>();
  for (const row of rows.dhcpServer ?? []) names.add(row.interface);
  for (const row of rows.staticRoute ?? []) if (row.interface) names.add(row.interface);
  for (const row of rows.arpBind ?? []) if (row.interface) names.add(row.interface);
  const iptv = enabledIptv(rows);
  if (iptv) names.add(iptv.wan);
  const firewallNames = [
    ...(rows.firewallPortMapping ?? []).map((row) => row.wan),
    ...(rows.firewallHostMapping ?? []).map((row) => row.wan),
    ...(rows.firewallDmz ?? []).map((row) => row.wan),
    ...(rows.firewallNat ?? []).map((row) => row.outif),
    ...(rows.firewallAcl ?? []).map((row) => row.iface),
    ...(rows.firewallLanForward ?? []).flatMap((row) => [...row.lan, ...row.rejlan]),
    ...(rows.firewallShareBlock ?? []).flatMap((row) => row.ifname),
  ];
  // An empty name means "every WAN" or "any interface": it names none.
  for (const name of firewallNames) if (name) names.add(name);
  return names;
}

// ---------------------------------------------------------------------------------------------
// Interfaces

/** networkInterface add/update. */
export function checkInterfaceWrite(candidate: Candidate<NetworkInterface>, rows: NetworkRows): RuleVerdict {
  const verdict = new Verdict();
  const previous = previousOf(rows.networkInterface, candidate);

  if (previous && rows.multiWan?.some((m) => m.interface === previous.ifname)) {
    if (candidate.role !== 'wan' || (previous.enabled && !candidate.enabled)) return MULTI_WAN_IN_USE_MESSAGE;
  }
  if (takenNames(rows, candidate, 'interface').has(candidate.ifname)) verdict.add('ifname', NAME_EXISTS_MESSAGE);

  const otherPorts = new Set(others(rows.networkInterface, candidate).flatMap((row) => row.hwport));
  const iptv = enabledIptv(rows);
  for (const port of candidate.hwport) {
    if (otherPorts.has(port) || (iptv?.type === 'bridge' && iptv.portnum === port)) verdict.add('hwport', PORT_IN_USE_MESSAGE);
    if (candidate.role === 'bond' && rows.vlan?.some((v) => v.port === port)) verdict.add('hwport', 'validation.vlan.bondPort');
  }

  if (candidate.role === 'wan' && candidate.vlan_tag > 0 && candidate.hwport[0]) {
    const port = candidate.hwport[0];
    const taken = usedTags(rows, { interfaceId: candidate.id ?? '\0' });
    if (taken.some((t) => t.port === port && t.tag === candidate.vlan_tag)) verdict.add('vlan_tag', VLAN_IN_USE_MESSAGE);
  }

  const existing = configuredNetworks(rows, { interfaceId: candidate.id ?? '\0' });
  const own = interfaceNetworks(candidate);
  own.forEach((network, index) => {
    if (existing.some((other) => rangesOverlap(network, other))) verdict.add(index === 0 ? 'ipaddr' : 'secondary', IP_RANGE_OVERLAP_MESSAGE);
  });

  if (previous && previous.subif_type !== candidate.subif_type) {
    if (rows.vlan?.some((v) => previous.hwport.includes(v.port))) verdict.add('subif_type', SUBIF_IN_USE_MESSAGE);
  }
  if (candidate.proto === 'pppoe' && !candidate.pppoe_password && !previous?.pppoe_password) {
    verdict.add('pppoe_password', 'validation.required');
  }
  for (const attribute of rows.portAttribute ?? []) {
    if (candidate.hwport.includes(attribute.port) && candidate.mtu > attribute.mtu) verdict.add('mtu', 'validation.mtu.port');
  }
  return verdict.result();
}

/** networkInterface delete: a WAN multi-WAN uses, or an interface something refers to, stays. */
export function checkInterfaceDelete(deleted: readonly NetworkInterface[], rows: NetworkRows): string | undefined {
  for (const row of deleted) {
    if (rows.multiWan?.some((m) => m.interface === row.ifname)) return MULTI_WAN_IN_USE_MESSAGE;
    if (referencedNames(rows).has(row.ifname)) return INTERFACE_IN_USE_MESSAGE;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// VLANs

/** vlan add/update (spec §5: tag unique, tag and port unused, non-bond ports, LanTag). */
export function checkVlanWrite(candidate: Candidate<Vlan>, rows: NetworkRows): RuleVerdict {
  const verdict = new Verdict();
  if (takenNames(rows, candidate, 'vlan').has(candidate.ifname)) verdict.add('ifname', NAME_EXISTS_MESSAGE);

  if (others(rows.vlan, candidate).some((row) => row.tag === candidate.tag)) verdict.add('tag', VLAN_IN_USE_MESSAGE);
  const taken = usedTags(rows, { vlanId: candidate.id ?? '\0' });
  if (taken.some((t) => t.port === candidate.port && t.tag === candidate.tag)) verdict.add('tag', VLAN_IN_USE_MESSAGE);
  const iptv = enabledIptv(rows);
  if (iptv && iptv.lantag === candidate.tag) verdict.add('tag', LAN_TAG_CONFLICT_MESSAGE);

  const owner = portOwner(rows.networkInterface, candidate.port);
  if (owner?.role === 'bond') verdict.add('port', 'validation.vlan.bondPort');
  else if (owner?.subif_type === 'none') verdict.add('port', 'validation.vlan.subifNone');
  else if (owner?.subif_type === 'mac' && candidate.mac === '') verdict.add('mac', 'validation.required');

  const network = vlanNetwork(candidate);
  if (network && configuredNetworks(rows, { vlanId: candidate.id ?? '\0' }).some((other) => rangesOverlap(network, other))) {
    verdict.add('ipaddr', IP_RANGE_OVERLAP_MESSAGE);
  }
  return verdict.result();
}

export function checkVlanDelete(deleted: readonly Vlan[], rows: NetworkRows): string | undefined {
  const used = referencedNames(rows);
  return deleted.some((row) => used.has(row.ifname)) ? INTERFACE_IN_USE_MESSAGE : undefined;
}

// ---------------------------------------------------------------------------------------------
// DHCP

/** The addresses a DHCP server hands out, or null when the start is outside the network. */
export function dhcpPool(server: Pick<DhcpServer, 'start' | 'pool_size'>, network: Range): Range | null {
  const first = ipv4ToInt(server.start);
  const lastHost = network.last - network.first > 1 ? network.last - 1 : network.last;
  const firstHost = network.last - network.first > 1 ? network.first + 1 : network.first;
  if (first < firstHost || first > lastHost) return null;
  const last = server.pool_size === 0 ? lastHost : first + server.pool_size - 1;
  return { first, last };
}

/** dhcpServer add/update. */
export function checkDhcpServerWrite(candidate: Candidate<DhcpServer>, rows: NetworkRows): RuleVerdict {
  const verdict = new Verdict();
  const side = lanSide(rows, candidate.interface);
  if (!side) return { interface: 'validation.dhcp.interface' };
  if (others(rows.dhcpServer, candidate).some((row) => row.interface === candidate.interface)) {
    verdict.add('interface', 'validation.dhcp.interfaceInUse');
  }
  const pool = dhcpPool(candidate, side.network);
  if (!pool) verdict.add('start', 'validation.dhcp.startSubnet');
  else if (pool.last >= side.network.last) verdict.add('pool_size', 'validation.dhcp.poolSize');
  if (candidate.dhcpv6 !== 'off' && !side.ipv6Prefix) verdict.add('dhcpv6', 'validation.dhcp.ipv6');
  return verdict.result();
}

/** dhcpStatic add/update: one lease per MAC and per address, inside a LAN-side network. */
export function checkDhcpStaticWrite(candidate: Candidate<DhcpStatic>, rows: NetworkRows): RuleVerdict {
  const verdict = new Verdict();
  const rest = others(rows.dhcpStatic, candidate);
  if (rest.some((row) => row.mac === candidate.mac)) verdict.add('mac', 'validation.dhcpStatic.macInUse');
  if (rest.some((row) => row.ip === candidate.ip)) verdict.add('ip', IP_OVERLAP_MESSAGE);
  const address = ipv4ToInt(candidate.ip);
  const sides = allLanSides(rows);
  if (sides.some((side) => side.address === candidate.ip)) verdict.add('ip', IP_OVERLAP_MESSAGE);
  else if (!sides.some((side) => address > side.network.first && address < side.network.last)) {
    verdict.add('ip', 'validation.dhcpStatic.subnet');
  }
  return verdict.result();
}

// ---------------------------------------------------------------------------------------------
// Routes, ARP, multi-WAN, ports

function knownInterface(rows: NetworkRows, name: string): boolean {
  return takenNames(rows, {}, 'interface').has(name);
}

/** staticRoute add/update. */
export function checkStaticRouteWrite(candidate: Candidate<StaticRoute>, rows: NetworkRows): RuleVerdict {
  const verdict = new Verdict();
  if (candidate.interface && !knownInterface(rows, candidate.interface)) verdict.add('interface', UNKNOWN_INTERFACE_MESSAGE);
  if (others(rows.staticRoute, candidate).some((row) => row.target === candidate.target && row.metric === candidate.metric)) {
    verdict.add('target', 'validation.staticRoute.exists');
  }
  return verdict.result();
}

/** arpBind add/update: one binding per address, on a LAN-side interface. */
export function checkArpBindWrite(candidate: Candidate<ArpBind>, rows: NetworkRows): RuleVerdict {
  const verdict = new Verdict();
  if (others(rows.arpBind, candidate).some((row) => row.ip === candidate.ip)) verdict.add('ip', 'validation.arpBind.ipInUse');
  if (candidate.interface && !lanSide(rows, candidate.interface)) verdict.add('interface', UNKNOWN_INTERFACE_MESSAGE);
  return verdict.result();
}

/** multiWan add/update: one entry per WAN interface. */
export function checkMultiWanWrite(candidate: Candidate<MultiWan>, rows: NetworkRows): RuleVerdict {
  const verdict = new Verdict();
  const wan = rows.networkInterface?.find((row) => row.ifname === candidate.interface);
  if (!wan || wan.role !== 'wan') verdict.add('interface', 'validation.multiWan.notWan');
  if (others(rows.multiWan, candidate).some((row) => row.interface === candidate.interface)) {
    verdict.add('interface', 'validation.multiWan.interfaceInUse');
  }
  return verdict.result();
}

/** portAttribute add/update: one entry per port; the port's MTU carries its interfaces'. */
export function checkPortAttributeWrite(candidate: Candidate<PortAttribute>, rows: NetworkRows): RuleVerdict {
  const verdict = new Verdict();
  if (others(rows.portAttribute, candidate).some((row) => row.port === candidate.port)) verdict.add('port', 'validation.portAttr.exists');
  const owner = portOwner(rows.networkInterface, candidate.port);
  if (owner && owner.mtu > candidate.mtu) verdict.add('mtu', 'validation.mtu.port');
  return verdict.result();
}

/** iptv update (singleton): the WAN, the tags against VLANs (spec §5) and the set-top port. */
export function checkIptvWrite(candidate: Iptv, rows: NetworkRows): RuleVerdict {
  if (!candidate.enable) return undefined;
  const verdict = new Verdict();
  const wan = rows.networkInterface?.find((row) => row.ifname === candidate.wan);
  if (!wan || wan.role !== 'wan') verdict.add('wan', 'validation.iptv.wan');
  else if (candidate.wantag > 0) {
    const port = wan.hwport[0];
    const taken = usedTags(rows, { iptv: true });
    if (taken.some((t) => t.port === port && t.tag === candidate.wantag)) verdict.add('wantag', VLAN_IN_USE_MESSAGE);
  }
  if (rows.vlan?.some((row) => row.tag === candidate.lantag)) verdict.add('lantag', LAN_TAG_CONFLICT_MESSAGE);
  if (candidate.portnum) {
    const owner = portOwner(rows.networkInterface, candidate.portnum);
    // Bridge mode takes the set-top port out of every interface; IGMP mode serves it on its LAN.
    if (candidate.type === 'bridge' && owner) verdict.add('portnum', PORT_IN_USE_MESSAGE);
    if (candidate.type === 'igmp' && owner?.role !== 'lan') verdict.add('portnum', 'validation.iptv.igmpPort');
  }
  return verdict.result();
}

/** vpnClient add/update: its name is an interface name. */
export function checkVpnClientWrite(candidate: Candidate<VpnClient>, rows: NetworkRows): RuleVerdict {
  return takenNames(rows, candidate, 'vpn').has(candidate.name) ? { name: NAME_EXISTS_MESSAGE } : undefined;
}

export function checkVpnClientDelete(deleted: readonly VpnClient[], rows: NetworkRows): string | undefined {
  const used = referencedNames(rows);
  return deleted.some((row) => used.has(row.name)) ? INTERFACE_IN_USE_MESSAGE : undefined;
}

/**
 * The rules by entity name, for the write path to look up: `write` runs on add and update
 * after the record's own validation, `delete` before rows are removed.
 */
export const NETWORK_RULES = {
  networkInterface: { write: checkInterfaceWrite, delete: checkInterfaceDelete },
  vlan: { write: checkVlanWrite, delete: checkVlanDelete },
  dhcpServer: { write: checkDhcpServerWrite },
  dhcpStatic: { write: checkDhcpStaticWrite },
  staticRoute: { write: checkStaticRouteWrite },
  arpBind: { write: checkArpBindWrite },
  multiWan: { write: checkMultiWanWrite },
  portAttribute: { write: checkPortAttributeWrite },
  iptv: { write: checkIptvWrite },
  vpnClient: { write: checkVpnClientWrite, delete: checkVpnClientDelete },
} as const;
