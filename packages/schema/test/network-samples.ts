import { writeSchema, type AnyEntity } from '../src/entity/define-entity.js';
import type { NetworkRows } from '../src/network/network-rules.js';

/**
 * A coherent network: two WANs (static, PPPoE tagged 35), a LAN bridged over two ports with a
 * VLAN on one of them, DHCP, static leases, a route, ARP bindings and multi-WAN.
 */
export const SAMPLE_INPUT = {
  networkInterface: [
    { id: 'if-wan1', ifname: 'wan1', role: 'wan', hwport: ['eth0'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.248', gateway: '203.0.113.1', dns: ['198.51.100.53'], mtu: 1500 },
    { id: 'if-wan2', ifname: 'wan2', role: 'wan', hwport: ['eth1'], proto: 'pppoe', pppoe_username: 'user@isp', pppoe_password: 'secret-1', vlan_tag: 35, mtu: 1492, mru: 1492 },
    { id: 'if-lan', ifname: 'lan', role: 'lan', hwport: ['eth2', 'eth3'], proto: 'static', ipaddr: '192.168.1.1', netmask: '255.255.255.0', secondary: ['10.10.0.1/24'], subif_type: 'vlan', ipv6: 'static', ip6addr: 'fd00:1::1/64' },
  ],
  vlan: [{ id: 'vl-guest', ifname: 'guest', port: 'eth3', tag: 20, ipaddr: '192.168.20.1', netmask: '255.255.255.0' }],
  dhcpServer: [
    { id: 'dh-lan', interface: 'lan', start: '192.168.1.100', pool_size: 100, netmask: '255.255.255.0', dhcpv6: 'stateless' },
    { id: 'dh-guest', interface: 'guest', start: '192.168.20.10', pool_size: 0, lease_minutes: 60, netmask: '255.255.255.0', dns: ['198.51.100.53'] },
  ],
  dhcpStatic: [
    { id: 'ds-printer', mac: '00:11:22:33:44:55', ip: '192.168.1.10', hostname: 'printer', comment: 'Office printer' },
    { id: 'ds-nas', mac: '00:11:22:33:44:66', ip: '192.168.1.11', hostname: 'nas' },
  ],
  staticRoute: [{ id: 'rt-branch', target: '10.20.0.0/16', gateway: '192.168.1.254', interface: 'lan', metric: 10, comment: 'Branch office' }],
  arpBind: [
    { id: 'ab-printer', ip: '192.168.1.10', mac: '00:11:22:33:44:55', interface: 'lan', comment: 'printer' },
    { id: 'ab-cam', ip: '192.168.1.20', mac: '00:11:22:33:44:77' },
  ],
  multiWan: [
    { id: 'mw-wan1', interface: 'wan1', mode: 'balance', weight: 2, priority: 1, track_ips: ['198.51.100.1'] },
    { id: 'mw-wan2', interface: 'wan2', mode: 'failover', priority: 2, track_ips: ['198.51.100.2'] },
  ],
  portAttribute: [
    { id: 'pa-eth0', port: 'eth0', link_mode: 'auto', mtu: 1500 },
    { id: 'pa-eth3', port: 'eth3', link_mode: '100full', mtu: 1500 },
  ],
  vpnClient: [
    { id: 'vc-office', type: 'l2tp', name: 'office', server: 'vpn.example.com', username: 'branch1', password: 'tunnel-pass' },
    { id: 'vc-hq', type: 'ipsec', name: 'hq', server: '198.51.100.9', peer_subnets: '10.50.0.0/16 10.51.0.0/16', local_id: 'branch.example.com', remote_id: 'hq.example.com', psk: 'pre-shared key 1' },
  ],
  iptv: [{ enable: false, type: 'bridge', wan: 'wan2', wantag: 45, lantag: 100, portnum: 'eth4' }],
  arpAuth: [{ enabled: true, auth_action: 'drop', jurl: '' }],
} as const;

/** A record parsed as the write path would store it (defaults filled in); throws when refused. */
export function stored<T>(entity: AnyEntity, input: object): T {
  const { id, ...rest } = input as { id?: string };
  const mode = id === undefined ? 'update' : 'add';
  const result = writeSchema(entity, mode).safeParse(rest);
  if (!result.success) throw new Error(`${entity.name} sample refused: ${JSON.stringify(result.error.issues)}`);
  return (id === undefined ? result.data : { ...(result.data as object), id }) as T;
}

/** Every sample row parsed. */
export function sampleRows(entities: Record<string, AnyEntity>): NetworkRows {
  const out: Record<string, unknown[]> = {};
  for (const [name, rows] of Object.entries(SAMPLE_INPUT)) {
    out[name] = (rows as readonly object[]).map((row) => stored(entities[name]!, row));
  }
  return out as NetworkRows;
}
