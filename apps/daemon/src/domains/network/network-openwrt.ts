import { intToIpv4, ipv4ToInt, prefixToNetmask } from '@portico/schema';
import type { RenderedFile, RenderOutput } from '../../engine/engine-types.js';
import { dhcpPool } from '@portico/schema';
import type { NetworkConfig } from './network-config.js';
import { addressPlan, lanSideOf, planNetwork, type AddressPlan, type InterfacePlan, type NetworkPlan, type WanPlan } from './network-plan.js';
import { cidr6, device, hostLabel, integer, ipv4, ipv6, mac, RenderValueError } from './network-syntax.js';
import { iptvFirewallSections, iptvNetworkSections, iptvWanNetworks, renderUciIgmpproxy } from './network-openwrt-iptv.js';
import { renderUciMwan3 } from './network-openwrt-mwan3.js';
import { renderOpenwrtSwanctl, vpnNetworks, vpnNetworkSections } from './network-openwrt-vpn.js';
import { serializeUci, type UciPackage, type UciSection } from '../../engine/uci-format.js';

/**
 * The Network section rendered for the `openwrt` driver: the UCI packages that netifd,
 * dnsmasq/odhcpd, fw4, mwan3 and igmpproxy read, and strongSwan's swanctl files. Device naming
 * follows the shared plan so both drivers agree on bridges, bonds and sub-interfaces.
 *
 * Section names: interfaces keep their validated names (lower-case letters and digits); every
 * generated name carries an underscore (`dev_lan`, `wan2_6`), which a validated name never
 * has, so generated and configured names cannot collide inside a package.
 *
 * ARP bindings are netifd `neighbor` sections (permanent neighbour entries netifd adds when
 * the interface comes up, removed with it) plus two fw4 rules each that drop the bound address
 * coming from any other MAC, to the gateway and through it. Both are native UCI, so the binding
 * follows the interface's life and needs no file outside /etc/config. (/etc/ethers was not
 * chosen: dnsmasq reads it for DHCP, the kernel never does, so it binds nothing.)
 * Multi-WAN is mwan3 (openwrt-mwan3.ts), IPTV is openwrt-iptv.ts, VPN clients openwrt-vpn.ts.
 *
 * Not rendered here: ARP authentication (unbound clients dropped or redirected) and port link
 * modes, which UCI has no native form for.
 */

export const OPENWRT_NETWORK_FILES = {
  network: '/etc/config/network',
  dhcp: '/etc/config/dhcp',
  firewall: '/etc/config/firewall',
  mwan3: '/etc/config/mwan3',
  igmpproxy: '/etc/config/igmpproxy',
} as const;

/** Where OpenWrt's dnsmasq keeps its leases and reads the DNS servers netifd learnt. */
const DNSMASQ_LEASES = '/tmp/dhcp.leases';
const DNSMASQ_RESOLV = '/tmp/resolv.conf.d/resolv.conf.auto';

function section(type: string, name: string | undefined, options: Record<string, string | string[]>): UciSection {
  return name === undefined ? { type, options } : { type, name, options };
}

/** Generated section names: a validated name plus an underscore suffix. */
function generatedName(base: string, suffix: string): string {
  if (!/^[a-z][a-z0-9]{0,9}$/.test(base)) throw new RenderValueError(`section name ${JSON.stringify(base)} cannot be rendered`);
  return `${base}_${suffix}`;
}

/** Section names the rendered packages use for their own sections. */
const RESERVED_NAMES = new Set(['loopback']);

/** The interface an ARP binding sits on: the one named, else the LAN side holding the address. */
function bindingInterface(plan: NetworkPlan, bind: { interface: string; ip: string }): string | undefined {
  if (bind.interface) return plan.lanSides.some((side) => side.name === bind.interface) ? bind.interface : undefined;
  return lanSideOf(plan, bind.ip)?.name;
}

function interfaceName(name: string): string {
  if (!/^[a-z][a-z0-9]{0,9}$/.test(name) || RESERVED_NAMES.has(name)) throw new RenderValueError(`interface name ${JSON.stringify(name)} cannot be rendered`);
  return name;
}

function addressOptions(addresses: readonly AddressPlan[]): Record<string, string | string[]> {
  const [primary, ...secondary] = addresses;
  if (!primary) return {};
  // netifd takes one address as ipaddr/netmask, or several as a list of CIDR entries.
  if (secondary.length === 0) return { ipaddr: ipv4(primary.address), netmask: ipv4(prefixToNetmask(primary.prefix)) };
  return { ipaddr: addresses.map((a) => `${ipv4(a.address)}/${integer(a.prefix, 0, 32, 'prefix')}`) };
}

function ipv6Options(plan: InterfacePlan): Record<string, string> {
  const row = plan.row;
  if (row.ipv6 !== 'static' || !row.ip6addr) return {};
  return { ip6addr: cidr6(row.ip6addr), ...(row.ip6gw ? { ip6gw: ipv6(row.ip6gw) } : {}) };
}

function interfaceSection(plan: InterfacePlan, wan: WanPlan | undefined): UciSection {
  const row = plan.row;
  const name = interfaceName(plan.name);
  const options: Record<string, string | string[]> = {};
  if (plan.kind === 'bond') {
    // proto-bonding creates the bond itself, named bond-<interface> as the plan names it.
    options.proto = 'bonding';
    options.slaves = plan.ports.map(device);
    options.bonding_policy = '802.3ad';
  } else {
    options.device = device(plan.link);
    options.proto = row.proto;
  }
  if (row.proto === 'static') {
    Object.assign(options, addressOptions(plan.addresses));
    if (row.gateway) options.gateway = ipv4(row.gateway);
  }
  if (row.proto === 'pppoe') {
    options.username = row.pppoe_username;
    // The stored row always has the password; the write path refuses a PPPoE WAN without one.
    if (row.pppoe_password) options.password = row.pppoe_password;
  }
  if (row.dns.length > 0) {
    options.dns = row.dns.map(ipv4);
    // Configured servers replace the ones the ISP hands out, as on the linux driver.
    if (row.proto !== 'static') options.peerdns = '0';
  }
  options.mtu = integer(row.mtu, 68, 65535, 'MTU');
  if (wan) options.metric = integer(wan.metric, 0, 65535, 'metric');
  Object.assign(options, ipv6Options(plan));
  return section('interface', name, options);
}

/** The interface whose network holds an address: where a route without an interface goes. */
function interfaceHolding(plan: NetworkPlan, address: string): string | undefined {
  const value = ipv4ToInt(address);
  const inside = (a: AddressPlan) => value >= a.first && value <= a.last;
  const iface = plan.interfaces.find((i) => i.addresses.some(inside));
  if (iface) return iface.name;
  return plan.subInterfaces.find((s) => s.address && inside(s.address))?.name;
}

export function renderUciNetwork(plan: NetworkPlan): UciPackage {
  // The file is replaced whole, so it carries the loopback interface OpenWrt always has.
  const pkg: UciPackage = [section('interface', 'loopback', { device: 'lo', proto: 'static', ipaddr: '127.0.0.1', netmask: '255.0.0.0' })];

  for (const iface of plan.interfaces) {
    if (iface.kind === 'bridge') {
      pkg.push(section('device', generatedName(iface.name, 'dev'), { name: device(iface.l2), type: 'bridge', ports: iface.ports.map(device) }));
    }
    if (iface.link !== iface.l2) {
      pkg.push(
        section('device', generatedName(iface.name, 'vlan'), {
          name: device(iface.link),
          type: '8021q',
          ifname: device(iface.l2),
          vid: integer(iface.row.vlan_tag, 1, 4094, 'VLAN tag'),
        }),
      );
    }
  }
  for (const sub of plan.subInterfaces) {
    const options: Record<string, string> = { name: device(sub.device) };
    if (sub.kind === 'macvlan') {
      Object.assign(options, { type: 'macvlan', ifname: device(sub.lower), mode: 'private' });
      if (sub.row.mac) options.macaddr = mac(sub.row.mac);
    } else {
      Object.assign(options, { type: '8021q', ifname: device(sub.lower), vid: integer(sub.row.tag, 1, 4094, 'VLAN tag') });
    }
    pkg.push(section('device', generatedName(sub.name, 'dev'), options));
  }

  for (const iface of plan.interfaces) pkg.push(interfaceSection(iface, plan.wans.find((w) => w.name === iface.name)));
  for (const sub of plan.subInterfaces) {
    const options: Record<string, string | string[]> = { device: device(sub.device) };
    if (sub.address) Object.assign(options, { proto: 'static' }, addressOptions([sub.address]));
    else options.proto = 'none';
    pkg.push(section('interface', interfaceName(sub.name), options));
  }
  // A WAN that learns IPv6 runs the DHCPv6 client on an alias of itself (`@wan`).
  for (const wan of plan.wans) {
    if (wan.row.ipv6 !== 'dhcpv6' && wan.row.ipv6 !== 'slaac') continue;
    const options: Record<string, string> = { device: `@${interfaceName(wan.name)}`, proto: 'dhcpv6' };
    if (wan.row.ipv6 === 'slaac') Object.assign(options, { reqaddress: 'none', reqprefix: 'no' });
    pkg.push(section('interface', generatedName(wan.name, '6'), options));
  }

  pkg.push(...iptvNetworkSections(plan), ...vpnNetworkSections(plan));
  for (const bind of plan.config.arpBinds) {
    const on = bindingInterface(plan, bind);
    if (on) pkg.push(section('neighbor', undefined, { interface: interfaceName(on), ipaddr: ipv4(bind.ip), mac: mac(bind.mac) }));
  }

  // Routes need an interface in netifd: the one named, else the one whose network holds the
  // gateway. A route through a disabled VPN client or an unknown network has none and is left out.
  const rendered = new Set(pkg.filter((s) => s.type === 'interface').map((s) => s.name));
  for (const route of plan.config.staticRoutes) {
    if (!route.enabled) continue;
    const via = route.interface || (route.gateway ? interfaceHolding(plan, route.gateway) : undefined);
    if (!via || !rendered.has(via)) continue;
    const target = addressPlan(...(route.target.split('/') as [string, string]));
    const options: Record<string, string> = {
      interface: interfaceName(via),
      target: ipv4(intToIpv4(target.first)),
      netmask: ipv4(prefixToNetmask(target.prefix)),
    };
    if (route.gateway) options.gateway = ipv4(route.gateway);
    options.metric = integer(route.metric, 0, 9999, 'metric');
    pkg.push(section('route', undefined, options));
  }
  return pkg;
}

/**
 * What other features add to /etc/config/dhcp: whole sections (Smart QoS's dnsmasq nftset
 * `ipset` sections) and DHCP options every LAN's server announces (`dhcp_option` values, e.g.
 * `42,0.0.0.0` for the LAN NTP server).
 */
export interface OpenwrtDhcpExtra {
  sections?: readonly UciSection[];
  lanOptions?: readonly string[];
}

/** A `dhcp_option` value: a number or dnsmasq's `option:` name, then comma-separated values. */
const DHCP_OPTION_VALUE = /^(?:\d{1,3}|option:[a-z0-9-]{1,40}),[A-Za-z0-9.:,-]{1,200}$/;

export function renderUciDhcp(plan: NetworkPlan, extra: OpenwrtDhcpExtra = {}): UciPackage {
  const lanOptions = (extra.lanOptions ?? []).map((value) => {
    if (!DHCP_OPTION_VALUE.test(value)) throw new Error(`invalid DHCP option ${JSON.stringify(value)}`);
    return value;
  });
  const pkg: UciPackage = [
    section('dnsmasq', undefined, {
      domainneeded: '1',
      boguspriv: '1',
      localise_queries: '1',
      authoritative: '1',
      cachesize: '1000',
      leasefile: DNSMASQ_LEASES,
      resolvfile: DNSMASQ_RESOLV,
      localservice: '1',
    }),
  ];
  for (const server of plan.config.dhcpServers) {
    if (!server.enabled) continue;
    const side = plan.lanSides.find((s) => s.name === server.interface);
    if (!side) continue;
    const pool = dhcpPool(server, side.address);
    if (!pool) continue;
    const last = Math.min(pool.last, side.address.last - 1);
    const options: Record<string, string | string[]> = {
      interface: interfaceName(side.name),
      // OpenWrt counts the pool from the network address.
      start: integer(pool.first - side.address.first, 1, 65_534, 'DHCP start'),
      limit: integer(last - pool.first + 1, 1, 65_534, 'DHCP pool size'),
      leasetime: `${integer(server.lease_minutes, 2, 525_600, 'lease time')}m`,
    };
    if (server.netmask !== prefixToNetmask(side.address.prefix)) options.netmask = ipv4(server.netmask);
    const dhcpOptions: string[] = [];
    if (server.gateway) dhcpOptions.push(`3,${ipv4(server.gateway)}`);
    if (server.dns.length) dhcpOptions.push(`6,${server.dns.map(ipv4).join(',')}`);
    dhcpOptions.push(...lanOptions);
    if (dhcpOptions.length) options.dhcp_option = dhcpOptions;
    if (server.dhcpv6 !== 'off' && side.ipv6Prefix) {
      options.ra = 'server';
      options.dhcpv6 = 'server';
      options.ra_flags = server.dhcpv6 === 'stateful' ? ['managed-config', 'other-config'] : ['other-config'];
    }
    pkg.push(section('dhcp', interfaceName(side.name), options));
  }
  // No DHCP service ever answers on a WAN.
  for (const wan of plan.wans) pkg.push(section('dhcp', interfaceName(wan.name), { interface: interfaceName(wan.name), ignore: '1' }));
  for (const host of plan.config.dhcpStatic) {
    const options: Record<string, string> = {};
    if (host.hostname) options.name = hostLabel(host.hostname);
    options.mac = mac(host.mac);
    options.ip = ipv4(host.ip);
    pkg.push(section('host', undefined, options));
  }
  // Sections other features render themselves (Smart QoS's dnsmasq nftset `ipset` sections).
  pkg.push(...(extra.sections ?? []));
  return pkg;
}

/** An empty list writes no line at all, so it is left out rather than written empty. */
function networks(names: string[]): Record<string, string[]> {
  return names.length ? { network: names } : {};
}

export function renderUciFirewall(plan: NetworkPlan): UciPackage {
  const lanNetworks = plan.lanSides.map((side) => interfaceName(side.name));
  const wanNetworks: string[] = [];
  for (const wan of plan.wans) {
    wanNetworks.push(interfaceName(wan.name));
    if (wan.row.ipv6 === 'dhcpv6' || wan.row.ipv6 === 'slaac') wanNetworks.push(generatedName(wan.name, '6'));
  }
  // Tunnels lead out like WANs (masqueraded, nothing in unasked); so does the IPTV upstream VLAN.
  wanNetworks.push(...vpnNetworks(plan), ...iptvWanNetworks(plan));
  const pkg: UciPackage = [
    // fw4's base chains: nothing reaches or crosses the gateway unless a zone lets it.
    section('defaults', undefined, { syn_flood: '1', input: 'REJECT', output: 'ACCEPT', forward: 'DROP' }),
    section('zone', 'lan', { name: 'lan', ...networks(lanNetworks), input: 'ACCEPT', output: 'ACCEPT', forward: 'ACCEPT' }),
    section('zone', 'wan', { name: 'wan', ...networks(wanNetworks), input: 'DROP', output: 'ACCEPT', forward: 'DROP', masq: '1', mtu_fix: '1' }),
    section('forwarding', 'lan_wan', { src: 'lan', dest: 'wan' }),
  ];
  // The WAN zone drops input, so the address clients of DHCP WANs need their replies let in.
  if (plan.wans.some((w) => w.row.proto === 'dhcp')) {
    pkg.push(section('rule', 'dhcp_renew', { name: 'Allow-DHCP-Renew', src: 'wan', proto: 'udp', dest_port: '68', target: 'ACCEPT', family: 'ipv4' }));
  }
  // An ARP-bound address from any other MAC is dropped, to the gateway and through it.
  for (const bind of plan.config.arpBinds) {
    if (!bindingInterface(plan, bind)) continue;
    const match = { src: 'lan', family: 'ipv4', proto: 'all', src_ip: ipv4(bind.ip), src_mac: `!${mac(bind.mac)}`, target: 'DROP' };
    pkg.push(section('rule', undefined, { name: 'ARP-Bind', ...match }));
    pkg.push(section('rule', undefined, { name: 'ARP-Bind', ...match, dest: '*' }));
  }
  pkg.push(...iptvFirewallSections(plan));
  if (wanNetworks.some((n) => n.endsWith('_6'))) {
    pkg.push(section('rule', 'dhcpv6_wan', { name: 'Allow-DHCPv6', src: 'wan', proto: 'udp', dest_port: '546', target: 'ACCEPT', family: 'ipv6' }));
    pkg.push(
      section('rule', 'icmpv6_input', {
        name: 'Allow-ICMPv6-Input',
        src: 'wan',
        proto: 'icmp',
        icmp_type: ['router-advertisement', 'neighbour-solicitation', 'neighbour-advertisement', 'packet-too-big', 'destination-unreachable'],
        limit: '1000/sec',
        family: 'ipv6',
        target: 'ACCEPT',
      }),
    );
  }
  return pkg;
}

export interface OpenwrtNetworkPackages {
  network: UciPackage;
  dhcp: UciPackage;
  firewall: UciPackage;
  mwan3: UciPackage;
  /** Only in IPTV's IGMP mode. */
  igmpproxy?: UciPackage;
}

/** The UCI packages, structured: what the files are serialised from. */
export function renderOpenwrtNetworkPackages(config: NetworkConfig, dhcpExtra: OpenwrtDhcpExtra = {}): OpenwrtNetworkPackages {
  const plan = planNetwork(config);
  const igmpproxy = renderUciIgmpproxy(plan);
  return {
    network: renderUciNetwork(plan),
    dhcp: renderUciDhcp(plan, dhcpExtra),
    firewall: renderUciFirewall(plan),
    mwan3: renderUciMwan3(plan),
    ...(igmpproxy ? { igmpproxy } : {}),
  };
}

/**
 * The Network section for the `openwrt` driver, pure: the network file first (netifd brings
 * devices up), then DHCP, then the firewall zones that name those interfaces, then mwan3 and
 * igmpproxy, which work on those interfaces, and the IPsec clients. The network file carries
 * the PPPoE and tunnel passwords when there are any, so it is then private.
 */
export function renderOpenwrtNetwork(config: NetworkConfig, dhcpExtra: OpenwrtDhcpExtra = {}): RenderOutput[] {
  const plan = planNetwork(config);
  const packages = renderOpenwrtNetworkPackages(config, dhcpExtra);
  const secret =
    config.interfaces.some((row) => row.enabled && row.proto === 'pppoe' && row.pppoe_password) ||
    config.vpnClients.some((row) => row.enabled && (row.type === 'pptp' || row.type === 'l2tp') && row.password);
  const files: RenderedFile[] = [
    { target: OPENWRT_NETWORK_FILES.network, content: serializeUci(packages.network), check: 'uci', mode: secret ? 0o600 : 0o644 },
    { target: OPENWRT_NETWORK_FILES.dhcp, content: serializeUci(packages.dhcp), check: 'uci', mode: 0o644 },
    { target: OPENWRT_NETWORK_FILES.firewall, content: serializeUci(packages.firewall), check: 'uci', mode: 0o644 },
    { target: OPENWRT_NETWORK_FILES.mwan3, content: serializeUci(packages.mwan3), check: 'uci', mode: 0o644 },
  ];
  if (packages.igmpproxy) files.push({ target: OPENWRT_NETWORK_FILES.igmpproxy, content: serializeUci(packages.igmpproxy), check: 'uci', mode: 0o644 });
  files.push(...renderOpenwrtSwanctl(plan));
  return [{ domain: 'network', files }];
}
