import { ENTITIES, fieldErrors, writeSchema, type AnyEntity } from '@portico/schema';
import type { NetworkConfig } from '../src/domains/network/network-config.js';
import type { ConfigDomain, ConfigSnapshot } from '../src/config/config-types.js';

/** Entity name of each part of NetworkConfig; singletons hold one record. */
export const CONFIG_ENTITIES = {
  interfaces: 'networkInterface',
  vlans: 'vlan',
  dhcpServers: 'dhcpServer',
  dhcpStatic: 'dhcpStatic',
  staticRoutes: 'staticRoute',
  arpBinds: 'arpBind',
  arpAuth: 'arpAuth',
  multiWan: 'multiWan',
  portAttributes: 'portAttribute',
  iptv: 'iptv',
  vpnClients: 'vpnClient',
} as const satisfies Record<keyof NetworkConfig, string>;

export type ConfigInput = { [K in keyof NetworkConfig]: NetworkConfig[K] extends readonly unknown[] ? object[] : object };

export function entityNamed(name: string): AnyEntity {
  const entity = ENTITIES.find((e) => e.name === name);
  if (!entity) throw new Error(`entity ${name} is not registered`);
  return entity;
}

/** A record as the write path stores it: validated, defaults filled, an id for collections. */
export function storedRecord(entity: AnyEntity, input: object, id?: string): Record<string, unknown> {
  const { id: _ignored, ...body } = input as { id?: string };
  const result = writeSchema(entity, entity.kind === 'collection' ? 'add' : 'update').safeParse(body);
  if (!result.success) throw new Error(`${entity.name} refused: ${JSON.stringify(fieldErrors(result.error))}`);
  return entity.kind === 'collection' ? { ...(result.data as object), id: id ?? `${entity.name}-1` } : (result.data as Record<string, unknown>);
}

/** Every part validated through its entity schema. */
export function buildConfig(input: ConfigInput): NetworkConfig {
  const out: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(CONFIG_ENTITIES)) {
    const entity = entityNamed(name);
    const value = input[key as keyof ConfigInput];
    out[key] = Array.isArray(value) ? value.map((row, i) => storedRecord(entity, row as object, `${name}-${i + 1}`)) : storedRecord(entity, value as object);
  }
  return out as unknown as NetworkConfig;
}

/**
 * Two WANs (static with a secondary address; PPPoE tagged 35), one LAN bridged over two ports
 * with a secondary network and IPv6, a guest VLAN, DHCP on both, two static leases, a static
 * route, ARP bindings with ARP authentication, multi-WAN (balance + failover), port
 * attributes, an L2TP and an IPsec client.
 */
export const REPRESENTATIVE: ConfigInput = {
  interfaces: [
    { ifname: 'wan1', role: 'wan', hwport: ['eth0'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.248', gateway: '203.0.113.1', dns: ['198.51.100.53', '198.51.100.54'], secondary: ['203.0.113.3/29'], mtu: 1500 },
    { ifname: 'wan2', role: 'wan', hwport: ['eth1'], proto: 'pppoe', pppoe_username: 'user@isp', pppoe_password: 'secret-1', vlan_tag: 35, mtu: 1492, mru: 1492 },
    { ifname: 'lan', role: 'lan', hwport: ['eth2', 'eth3'], ipaddr: '192.168.1.1', netmask: '255.255.255.0', secondary: ['10.10.0.1/255.255.255.0'], mtu: 1500, subif_type: 'vlan', ipv6: 'static', ip6addr: 'fd00:1::1/64' },
  ],
  vlans: [{ ifname: 'guest', port: 'eth3', tag: 20, ipaddr: '192.168.20.1', netmask: '255.255.255.0' }],
  dhcpServers: [
    { interface: 'lan', start: '192.168.1.100', pool_size: 100, netmask: '255.255.255.0', dhcpv6: 'stateless' },
    { interface: 'guest', start: '192.168.20.10', pool_size: 0, lease_minutes: 60, netmask: '255.255.255.0', dns: ['198.51.100.53'] },
  ],
  dhcpStatic: [
    { mac: '00:11:22:33:44:55', ip: '192.168.1.10', hostname: 'printer', comment: 'Office printer' },
    { mac: '00:11:22:33:44:66', ip: '192.168.1.11', comment: 'NAS; no host name' },
  ],
  staticRoutes: [{ target: '10.20.0.0/16', gateway: '192.168.1.254', interface: 'lan', metric: 10, comment: 'Branch office' }],
  arpBinds: [
    { ip: '192.168.1.10', mac: '00:11:22:33:44:55', interface: 'lan', comment: 'printer' },
    { ip: '192.168.1.20', mac: '00:11:22:33:44:77' },
  ],
  arpAuth: { enabled: true, auth_action: 'drop' },
  multiWan: [
    { interface: 'wan1', mode: 'balance', weight: 2, priority: 1, track_ips: ['198.51.100.1'] },
    { interface: 'wan2', mode: 'failover', priority: 2, track_ips: ['198.51.100.2'] },
  ],
  portAttributes: [
    { port: 'eth0', link_mode: 'auto', mtu: 1500 },
    { port: 'eth3', link_mode: '100full', mtu: 1500 },
  ],
  iptv: { enable: false },
  vpnClients: [
    { type: 'l2tp', name: 'office', server: 'vpn.example.com', username: 'branch1', password: 'tunnel-pass' },
    { type: 'ipsec', name: 'hq', server: '198.51.100.9', peer_subnets: '10.50.0.0/16 10.51.0.0/16', local_id: 'branch.example.com', remote_id: 'hq.example.com', psk: 'pre-shared key 1' },
  ],
};

/**
 * The other shapes: two static WANs balanced over a multipath route, a DHCP WAN with SLAAC,
 * a bond, MAC-based sub-interfaces, IPTV through an IGMP proxy, ARP authentication that
 * redirects, stateful DHCPv6 and a disabled interface.
 */
export const ALTERNATE: ConfigInput = {
  interfaces: [
    { ifname: 'wan1', role: 'wan', hwport: ['eth0'], proto: 'static', ipaddr: '198.51.100.10', netmask: '255.255.255.0', gateway: '198.51.100.1' },
    { ifname: 'wan2', role: 'wan', hwport: ['eth1'], proto: 'static', ipaddr: '203.0.113.10', netmask: '255.255.255.0', gateway: '203.0.113.1', dns: ['203.0.113.53'], vlan_tag: 7 },
    { ifname: 'wan3', role: 'wan', hwport: ['eth2'], proto: 'dhcp', ipv6: 'slaac' },
    { ifname: 'lan', role: 'bond', hwport: ['eth3', 'eth4'], ipaddr: '10.0.0.1', netmask: '255.255.0.0', ipv6: 'static', ip6addr: '2001:db8:10::1/64' },
    { ifname: 'lab', role: 'lan', hwport: ['eth5'], ipaddr: '172.16.5.1', netmask: '255.255.255.0', enabled: false },
    { ifname: 'tv', role: 'lan', hwport: ['eth6'], ipaddr: '172.16.6.1', netmask: '255.255.255.0' },
    { ifname: 'office', role: 'lan', hwport: ['eth7'], ipaddr: '172.16.7.1', netmask: '255.255.255.0', subif_type: 'mac' },
  ],
  vlans: [{ ifname: 'cams', port: 'eth7', tag: 30, mac: '02:00:00:00:00:30', ipaddr: '172.16.30.1', netmask: '255.255.255.0' }],
  dhcpServers: [{ interface: 'lan', start: '10.0.1.1', pool_size: 500, lease_minutes: 1440, netmask: '255.255.0.0', gateway: '10.0.0.254', dhcpv6: 'stateful' }],
  dhcpStatic: [{ mac: '02:aa:bb:cc:dd:01', ip: '10.0.2.1', hostname: 'camera-1' }],
  staticRoutes: [
    { target: '0.0.0.0/0', interface: 'wan3', metric: 500 },
    { target: '192.0.2.0/24', gateway: '10.0.0.2', metric: 0 },
    { target: '198.18.0.0/15', gateway: '10.0.0.3', enabled: false },
  ],
  arpBinds: [{ ip: '10.0.2.1', mac: '02:aa:bb:cc:dd:01' }],
  arpAuth: { enabled: true, auth_action: 'redirect', jurl: 'https://portal.example.com/bind' },
  multiWan: [
    { interface: 'wan1', mode: 'balance', weight: 3, priority: 1 },
    { interface: 'wan2', mode: 'balance', weight: 1, priority: 1, track_ips: ['203.0.113.99'] },
  ],
  portAttributes: [{ port: 'eth5', enabled: false, link_mode: '10half' }],
  iptv: { enable: true, type: 'igmp', wan: 'wan2', wantag: 45, portnum: 'eth6' },
  vpnClients: [{ type: 'openvpn', name: 'cloud', server: '198.51.100.77', port: 1194, enabled: false }],
};

/**
 * What a kernel without the 8021q and bonding modules can apply (a namespace in a container):
 * two static WANs balanced, a bridged LAN with IPv6, a LAN with a MAC-based sub-interface,
 * DHCP, leases, routes and ARP bindings.
 */
export const PLAIN_LINKS: ConfigInput = {
  interfaces: [
    { ifname: 'wan1', role: 'wan', hwport: ['eth0'], ipaddr: '198.51.100.10', netmask: '255.255.255.0', gateway: '198.51.100.1', dns: ['198.51.100.53'], mtu: 1500, ipv6: 'static', ip6addr: '2001:db8:1::2/64', ip6gw: '2001:db8:1::1' },
    { ifname: 'wan2', role: 'wan', hwport: ['eth1'], ipaddr: '203.0.113.10', netmask: '255.255.255.0', gateway: '203.0.113.1', secondary: ['203.0.113.11/24'] },
    { ifname: 'lan', role: 'lan', hwport: ['eth2', 'eth3'], ipaddr: '192.168.1.1', netmask: '255.255.255.0', secondary: ['10.10.0.1/24'], ipv6: 'static', ip6addr: 'fd00:1::1/64' },
    { ifname: 'office', role: 'lan', hwport: ['eth4'], ipaddr: '172.16.7.1', netmask: '255.255.255.0', subif_type: 'mac' },
  ],
  vlans: [{ ifname: 'cams', port: 'eth4', tag: 30, mac: '02:00:00:00:00:30', ipaddr: '172.16.30.1', netmask: '255.255.255.0' }],
  dhcpServers: [{ interface: 'lan', start: '192.168.1.100', netmask: '255.255.255.0', dhcpv6: 'stateful' }],
  dhcpStatic: [{ mac: '00:11:22:33:44:55', ip: '192.168.1.10', hostname: 'printer' }],
  staticRoutes: [
    { target: '10.20.0.0/16', gateway: '192.168.1.254', interface: 'lan', metric: 10 },
    { target: '10.30.0.0/16', gateway: '10.99.0.1' },
  ],
  arpBinds: [{ ip: '192.168.1.10', mac: '00:11:22:33:44:55' }],
  arpAuth: { enabled: true, auth_action: 'drop' },
  multiWan: [
    { interface: 'wan1', mode: 'balance', weight: 2, track_ips: ['198.51.100.2'] },
    { interface: 'wan2', mode: 'balance', weight: 1 },
  ],
  portAttributes: [{ port: 'eth3', mtu: 1500 }],
  iptv: { enable: false },
  vpnClients: [],
};

/** The text of a chain in a rendered ruleset, up to its closing brace; throws when there is none. */
export function chainBody(text: string, name: string): string {
  const start = text.indexOf(`chain ${name} {`);
  if (start < 0) throw new Error(`no chain ${name}`);
  return text.slice(start, text.indexOf('\n\t}', start));
}

/** The content of one file a domain renders for a snapshot; throws when it renders none there. */
export function renderedContent(domain: ConfigDomain, snapshot: ConfigSnapshot, target: string): string {
  const file = domain.render!(snapshot).flatMap((o) => o.files).find((f) => f.target === target);
  if (!file) throw new Error(`${target} not rendered`);
  return file.content;
}
