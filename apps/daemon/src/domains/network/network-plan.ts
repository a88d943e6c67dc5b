import { ipv4ToInt, netmaskToPrefix } from '@portico/schema';
import type { NetworkInterface, Vlan } from '@portico/schema';
import type { NetworkConfig } from './network-config.js';

/**
 * How the configured interfaces map onto Linux devices, worked out once so every file names
 * the same devices, tables and marks:
 * - a LAN on one port uses the port; on several ports a bridge `br-<name>`;
 * - a bond is `bond-<name>` over its ports;
 * - a tagged WAN uses `<port>.<tag>`; a PPPoE WAN's addresses live on `ppp-<name>`;
 * - a VLAN is `<port>.<tag>`, or a macvlan `<port>-<tag>` when the port's interface splits
 *   sub-interfaces by MAC;
 * - VPN client tunnels are `vpn-<name>`; the IPTV bridge is `iptv-br`.
 * Port and interface names are lower-case letters and digits, and a generated name has a dot,
 * or a dash followed by a letter (prefixes) or by digits (macvlans), so these forms cannot collide.
 */

export const IPTV_BRIDGE = 'iptv-br';
/** WAN n (1-based, in configuration order) routes through table 100+n and mark n<<8. */
export const WAN_TABLE_BASE = 100;
export const WAN_MARK_MASK = 0x0000ff00;
/** Policy rules: main without default routes first, then marks, then source addresses. */
export const RULE_PRIORITY_MAIN = 10000;
export const RULE_PRIORITY_MARK = 10100;
export const RULE_PRIORITY_SOURCE = 10200;
/** Default-route metrics: balance members, failover members (+ priority), WANs outside multi-WAN (+ index). */
export const METRIC_BALANCE = 10;
export const METRIC_FAILOVER = 100;
export const METRIC_STANDALONE = 200;

export interface AddressPlan {
  /** `a.b.c.d/len` as the kernel takes it. */
  cidr: string;
  address: string;
  prefix: number;
  /** First and last address of the network, as unsigned integers. */
  first: number;
  last: number;
}

export interface InterfacePlan {
  row: NetworkInterface;
  name: string;
  lanSide: boolean;
  kind: 'port' | 'bridge' | 'bond';
  /** Device grouping the ports: the port itself, the bridge or the bond. */
  l2: string;
  /** Device carrying the traffic: `l2`, or a VLAN on it for a tagged WAN. */
  link: string;
  /** Device holding the IP configuration: `link`, or the PPP device of a PPPoE WAN. */
  l3: string;
  ports: string[];
  addresses: AddressPlan[];
}

export interface WanPlan extends InterfacePlan {
  index: number;
  table: number;
  mark: number;
  metric: number;
  /** Set for a balance member of multi-WAN. */
  weight?: number;
  /** Routes come from the DHCP or PPPoE client, not from these files. */
  dynamic: boolean;
  gateway?: string;
  trackIps: string[];
}

export interface SubInterfacePlan {
  row: Vlan;
  name: string;
  kind: 'vlan' | 'macvlan';
  device: string;
  lower: string;
  address?: AddressPlan;
}

export interface PortPlan {
  name: string;
  up: boolean;
  /** The MTU to set on the port, when something decides one. */
  mtu?: number;
  /** Bridge or bond the port is enslaved to. */
  master?: string;
  masterKind?: 'bridge' | 'bond';
}

/** A LAN-side network the gateway serves: a LAN, a bond or a VLAN with an address. */
export interface LanSidePlan {
  name: string;
  device: string;
  address: AddressPlan;
  ipv6Prefix?: string;
}

export interface IptvPlan {
  type: 'bridge' | 'igmp';
  /** The device the IPTV service arrives on: the tagged VLAN, or the WAN itself. */
  upstream: string;
  /** Created for a tagged IPTV service. */
  upstreamVlan?: { lower: string; tag: number };
  /** Bridge mode: the set-top port and the internal VLAN. */
  port?: string;
  lantag: number;
  /** IGMP mode: the LAN device the set-top box sits behind. */
  downstream?: string;
}

export interface NetworkPlan {
  config: NetworkConfig;
  interfaces: InterfacePlan[];
  wans: WanPlan[];
  lans: InterfacePlan[];
  subInterfaces: SubInterfacePlan[];
  lanSides: LanSidePlan[];
  ports: PortPlan[];
  iptv?: IptvPlan;
  vpnDevices: string[];
  /** Whether an enabled PPTP client dials: its GRE replies are only related to it through conntrack's PPTP helper. */
  pptpClients: boolean;
  ipsecPeers: string[];
  /** Policy routing and connection marks are needed with two or more WANs. */
  multiWan: boolean;
  ipv6: boolean;
  /** Device of each interface, VLAN and VPN client name, for references. */
  deviceOf: Map<string, string>;
}

export function addressPlan(address: string, mask: string): AddressPlan {
  const prefix = /^\d{1,2}$/.test(mask) ? Number(mask) : netmaskToPrefix(mask);
  if (prefix === null || prefix < 0 || prefix > 32) throw new RangeError(`bad netmask ${mask}`);
  const size = 2 ** (32 - prefix);
  const first = Math.floor(ipv4ToInt(address) / size) * size;
  return { cidr: `${address}/${prefix}`, address, prefix, first, last: first + size - 1 };
}

/**
 * Port names in natural order (`eth2` before `eth10`), as `localeCompare(b, 'en', { numeric:
 * true })` orders them. That call brings ICU's collation into the process (its code and data
 * pages, about 3 MB of resident memory, and the collator's set-up time) at the first apply of
 * every start, for names that are nearly always lower-case letters and digits: for those the
 * same order is computed here, digit runs compared by value (leading zeros do not count, as in
 * the collation); any other name goes to ICU as before.
 */
const PLAIN_NAME = /^[a-z0-9]*$/;
const DIGIT_RUN = /\d+|\D+/g;

export function comparePortNames(a: string, b: string): number {
  if (!PLAIN_NAME.test(a) || !PLAIN_NAME.test(b)) return a.localeCompare(b, 'en', { numeric: true });
  const left = a.match(DIGIT_RUN) ?? [];
  const right = b.match(DIGIT_RUN) ?? [];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!;
    const y = right[i]!;
    const xDigits = x.charCodeAt(0) <= 57;
    const yDigits = y.charCodeAt(0) <= 57;
    // A digit sorts before a letter in the collation, as in ASCII.
    if (xDigits !== yDigits) return xDigits ? -1 : 1;
    if (xDigits) {
      const byValue = compareDigitRuns(x, y);
      if (byValue !== 0) return byValue;
    } else if (x !== y) {
      // Letter runs: a run that is a prefix of the other ends first, and what follows it (a
      // digit or nothing) sorts before a letter; otherwise the first differing letter decides.
      return x < y ? -1 : 1;
    }
  }
  return Math.sign(left.length - right.length);
}

function compareDigitRuns(x: string, y: string): number {
  const a = x.replace(/^0+(?=\d)/, '');
  const b = y.replace(/^0+(?=\d)/, '');
  return a.length !== b.length ? Math.sign(a.length - b.length) : a < b ? -1 : a > b ? 1 : 0;
}

function interfaceAddresses(row: NetworkInterface): AddressPlan[] {
  if (row.proto !== 'static' || !row.ipaddr || !row.netmask) return [];
  const out = [addressPlan(row.ipaddr, row.netmask)];
  for (const entry of row.secondary) {
    const [address, mask] = entry.split('/') as [string, string];
    out.push(addressPlan(address, mask));
  }
  return out;
}

function planInterface(row: NetworkInterface): InterfacePlan {
  const ports = [...row.hwport];
  const kind = row.role === 'bond' ? 'bond' : ports.length > 1 ? 'bridge' : 'port';
  const l2 = kind === 'bond' ? `bond-${row.ifname}` : kind === 'bridge' ? `br-${row.ifname}` : ports[0]!;
  const link = row.role === 'wan' && row.vlan_tag > 0 ? `${l2}.${row.vlan_tag}` : l2;
  const l3 = row.role === 'wan' && row.proto === 'pppoe' ? `ppp-${row.ifname}` : link;
  return { row, name: row.ifname, lanSide: row.role !== 'wan', kind, l2, link, l3, ports, addresses: interfaceAddresses(row) };
}

/**
 * A WAN's layer-3 device as OpenWrt names it: netifd's PPPoE handler calls the session
 * `pppoe-<interface>` where the linux driver's pppd is told `ppp-<interface>`.
 */
export function openwrtWanDevice(wan: InterfacePlan): string {
  return wan.row.role === 'wan' && wan.row.proto === 'pppoe' ? `pppoe-${wan.row.ifname}` : wan.l3;
}

/** The plan with the WAN devices as OpenWrt names them: what contributors' `openwrt` render. */
export function openwrtDevicePlan(plan: NetworkPlan): NetworkPlan {
  return { ...plan, wans: plan.wans.map((wan) => ({ ...wan, l3: openwrtWanDevice(wan) })) };
}

export function planNetwork(config: NetworkConfig): NetworkPlan {
  const interfaces = config.interfaces.filter((row) => row.enabled).map(planInterface);
  const lans = interfaces.filter((i) => i.lanSide);
  const deviceOf = new Map<string, string>();
  for (const plan of interfaces) deviceOf.set(plan.name, plan.l3);

  // WANs, their tables, marks and default-route metrics.
  const multiWanRows = new Map(config.multiWan.filter((m) => m.enabled).map((m) => [m.interface, m]));
  const wans: WanPlan[] = interfaces
    .filter((i) => !i.lanSide)
    .map((plan, position) => {
      const index = position + 1;
      const entry = multiWanRows.get(plan.name);
      const dynamic = plan.row.proto !== 'static';
      const metric = !entry
        ? METRIC_STANDALONE + index
        : entry.mode === 'failover'
          ? METRIC_FAILOVER + entry.priority
          : dynamic
            ? METRIC_BALANCE + index
            : METRIC_BALANCE;
      const wan: WanPlan = {
        ...plan,
        index,
        table: WAN_TABLE_BASE + index,
        mark: index << 8,
        metric,
        dynamic,
        trackIps: entry ? [...entry.track_ips] : [],
      };
      if (entry?.mode === 'balance') wan.weight = entry.weight;
      if (!dynamic && plan.row.gateway) wan.gateway = plan.row.gateway;
      return wan;
    });

  // Sub-interfaces: 802.1Q on the port, or macvlan when its interface splits by MAC.
  const ownerOf = (port: string) => config.interfaces.find((row) => row.hwport.includes(port));
  const subInterfaces: SubInterfacePlan[] = config.vlans
    .filter((row) => row.enabled)
    .map((row) => {
      const macBased = ownerOf(row.port)?.subif_type === 'mac';
      const plan: SubInterfacePlan = {
        row,
        name: row.ifname,
        kind: macBased ? 'macvlan' : 'vlan',
        device: macBased ? `${row.port}-${row.tag}` : `${row.port}.${row.tag}`,
        lower: row.port,
      };
      if (row.ipaddr && row.netmask) plan.address = addressPlan(row.ipaddr, row.netmask);
      return plan;
    });
  for (const sub of subInterfaces) deviceOf.set(sub.name, sub.device);

  const lanSides: LanSidePlan[] = [];
  for (const lan of lans) {
    if (!lan.addresses[0]) continue;
    const side: LanSidePlan = { name: lan.name, device: lan.l3, address: lan.addresses[0] };
    if (lan.row.ipv6 === 'static' && lan.row.ip6addr) side.ipv6Prefix = lan.row.ip6addr;
    lanSides.push(side);
  }
  for (const sub of subInterfaces) if (sub.address) lanSides.push({ name: sub.name, device: sub.device, address: sub.address });

  // IPTV.
  let iptv: IptvPlan | undefined;
  const tv = config.iptv;
  const tvWan = tv.enable ? wans.find((w) => w.name === tv.wan) : undefined;
  if (tvWan) {
    const upstreamVlan = tv.wantag > 0 ? { lower: tvWan.l2, tag: tv.wantag } : undefined;
    const upstream = upstreamVlan ? `${upstreamVlan.lower}.${upstreamVlan.tag}` : tvWan.l3;
    if (tv.type === 'bridge' && upstreamVlan && tv.portnum) {
      iptv = { type: 'bridge', upstream, upstreamVlan, port: tv.portnum, lantag: tv.lantag };
    } else if (tv.type === 'igmp') {
      const downstream = lans.find((l) => l.ports.includes(tv.portnum))?.l3;
      if (downstream) iptv = { type: 'igmp', upstream, lantag: tv.lantag, downstream, ...(upstreamVlan ? { upstreamVlan } : {}) };
    }
  }

  // Ports: enslavement, state and MTU.
  const attributes = new Map(config.portAttributes.map((a) => [a.port, a]));
  const ports = new Map<string, PortPlan>();
  const port = (name: string): PortPlan => {
    let plan = ports.get(name);
    if (!plan) {
      const attribute = attributes.get(name);
      plan = { name, up: attribute?.enabled ?? true };
      if (attribute) plan.mtu = attribute.mtu;
      ports.set(name, plan);
    }
    return plan;
  };
  for (const row of config.interfaces) {
    const enabled = row.enabled;
    const plan = interfaces.find((i) => i.row === row);
    for (const name of row.hwport) {
      const p = port(name);
      if (!enabled) {
        p.up = false;
        continue;
      }
      if (plan && plan.kind !== 'port') {
        p.master = plan.l2;
        p.masterKind = plan.kind;
      } else if (plan && plan.link === name && row.proto !== 'pppoe') {
        // PPPoE MTU and MRU belong to the PPP device; the Ethernet under it keeps its own.
        p.mtu = row.mtu;
      }
    }
  }
  for (const sub of subInterfaces) port(sub.lower);
  for (const attribute of config.portAttributes) port(attribute.port);
  if (iptv?.port) {
    const p = port(iptv.port);
    p.master = IPTV_BRIDGE;
    p.masterKind = 'bridge';
  }

  const vpnDevices: string[] = [];
  const ipsecPeers: string[] = [];
  for (const client of config.vpnClients) {
    if (!client.enabled) continue;
    if (client.type === 'ipsec') ipsecPeers.push(...client.peer_subnets.split(' ').filter(Boolean));
    else {
      vpnDevices.push(`vpn-${client.name}`);
      deviceOf.set(client.name, `vpn-${client.name}`);
    }
  }

  return {
    config,
    interfaces,
    wans,
    lans,
    subInterfaces,
    lanSides,
    ports: [...ports.values()].sort((a, b) => comparePortNames(a.name, b.name)),
    ...(iptv ? { iptv } : {}),
    vpnDevices,
    pptpClients: config.vpnClients.some((client) => client.enabled && client.type === 'pptp'),
    ipsecPeers,
    multiWan: wans.length >= 2,
    ipv6: interfaces.some((i) => i.row.ipv6 !== 'off'),
    deviceOf,
  };
}

/** The LAN-side network holding an address, for bindings without an interface. */
export function lanSideOf(plan: NetworkPlan, address: string): LanSidePlan | undefined {
  const value = ipv4ToInt(address);
  return plan.lanSides.find((side) => value >= side.address.first && value <= side.address.last);
}
