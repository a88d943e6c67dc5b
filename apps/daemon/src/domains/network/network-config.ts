import type {
  ArpAuth,
  ArpBind,
  DhcpServer,
  DhcpStatic,
  Iptv,
  MultiWan,
  NetworkInterface,
  PortAttribute,
  StaticRoute,
  Vlan,
  VpnClient,
} from '@portico/schema';

/**
 * The Network section's configuration as the renderers take it: the stored rows of each
 * entity, already validated by their schemas (and the cross-record rules).
 */
export interface NetworkConfig {
  interfaces: readonly NetworkInterface[];
  vlans: readonly Vlan[];
  dhcpServers: readonly DhcpServer[];
  dhcpStatic: readonly DhcpStatic[];
  staticRoutes: readonly StaticRoute[];
  arpBinds: readonly ArpBind[];
  arpAuth: ArpAuth;
  multiWan: readonly MultiWan[];
  portAttributes: readonly PortAttribute[];
  iptv: Iptv;
  vpnClients: readonly VpnClient[];
}

/** Facts of the device the rendering depends on besides the configuration. */
export interface NetworkRenderOptions {
  /** TCP ports LAN clients reach the admin console on. */
  adminPorts: readonly number[];
  /** Local port that answers unbound clients with a redirect to the ARP authentication URL. */
  arpAuthNoticePort: number;
  /** Prefix of every path a rendered file names (the lab runs the system under a folder). */
  systemRoot?: string;
}

export const DEFAULT_RENDER_OPTIONS: NetworkRenderOptions = {
  adminPorts: [80, 443],
  arpAuthNoticePort: 2060,
};

/** Where the linux driver keeps the rendered files and the DHCP leases. */
export const NETWORK_FILES = {
  nftables: '/etc/portico/network.nft',
  linksBatch: '/etc/portico/network-prepare.ip',
  ethtool: '/etc/portico/ethtool.json',
  sysctl: '/etc/portico/sysctl.conf',
  stateBatch: '/etc/portico/network.ip',
  routesBatch: '/etc/portico/network-routes.ip',
  dnsmasq: '/etc/portico/dnsmasq.conf',
  igmpproxy: '/etc/portico/igmpproxy.conf',
  /** What the WAN health monitor probes and the default routes it rewrites (JSON). */
  wanHealth: '/etc/portico/wan-health.json',
  /** The DHCP WANs whose client the daemon runs (JSON). */
  wanDhcp: '/etc/portico/wan-dhcp.json',
  leases: '/var/lib/portico/dnsmasq.leases',
  /** Upstream DNS servers learnt by DHCP and PPPoE WANs, written by their clients. */
  wanResolv: '/run/portico/resolv.wan',
  /** IPsec clients as a swanctl.conf the IKE daemon's top file includes; their keys apart (0600). */
  swanctl: '/etc/portico/ike/clients.conf',
  swanctlSecrets: '/etc/portico/ike/clients-secrets.conf',
  /** The one charon's log (network-ike-daemon.ts), read by the IPsec log pages. */
  ipsecLog: '/var/log/portico/ipsec.log',
  /** L2TP clients: xl2tpd's lac sections. */
  xl2tpd: '/etc/portico/xl2tpd.conf',
  /** pppd options and secret files: `wan<n>` per PPPoE WAN, `vpn<n>` per PPTP or L2TP client. */
  pppDir: '/etc/portico/ppp',
  /** What the daemon dials: pppd, xl2tpd's lac sections, IPsec children (JSON). */
  dialledLinks: '/etc/portico/dialled-links.json',
} as const;

/** Folders the services write into; the driver creates them before starting anything. */
export const NETWORK_DIRS = ['/var/lib/portico', '/run/portico', '/var/log/portico'] as const;

/**
 * ip batch files the driver runs with `ip -force -batch`: a line that fails (a link that
 * exists, a table not created yet, a route through a tunnel that is down) does not stop the
 * others. Every other batch runs strictly and must succeed as a whole.
 */
export const TOLERANT_BATCHES: ReadonlySet<string> = new Set([NETWORK_FILES.linksBatch, NETWORK_FILES.routesBatch]);

/** Entities of the network domain (packages/schema/src/network): rendered together. */
export const NETWORK_ENTITY_NAMES = [
  'networkInterface',
  'dhcpServer',
  'dhcpStatic',
  'staticRoute',
  'arpBind',
  'arpAuth',
  'vlan',
  'multiWan',
  'portAttribute',
  'iptv',
  'vpnClient',
] as const;
