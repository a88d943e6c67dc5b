import { describe, expect, it } from 'vitest';
import type { AnyEntity } from '../src/entity/define-entity.js';
import {
  arpAuth,
  arpBind,
  checkArpBindWrite,
  checkDhcpServerWrite,
  checkDhcpStaticWrite,
  checkInterfaceDelete,
  checkInterfaceWrite,
  checkIptvWrite,
  checkMultiWanWrite,
  checkPortAttributeWrite,
  checkStaticRouteWrite,
  checkVlanDelete,
  checkVlanWrite,
  checkVpnClientDelete,
  checkVpnClientWrite,
  dhcpPool,
  dhcpServer,
  dhcpStatic,
  iptv,
  multiWan,
  NETWORK_RULES,
  networkInterface,
  portAttribute,
  staticRoute,
  vlan,
  vpnClient,
  type Iptv,
  type NetworkInterface,
  type NetworkRows,
  type Vlan,
} from '../src/network/index.js';
import { sampleRows } from './network-samples.js';

const entities = { networkInterface, vlan, dhcpServer, dhcpStatic, staticRoute, arpBind, multiWan, portAttribute, vpnClient, iptv, arpAuth } as unknown as Record<
  string,
  AnyEntity
>;
const rows: NetworkRows = sampleRows(entities);
const iface = (name: string) => rows.networkInterface!.find((r) => r.ifname === name)!;
const guest = rows.vlan![0]!;
const withIptv = (patch: Partial<Iptv>): NetworkRows => ({ ...rows, iptv: [{ ...rows.iptv![0]!, enable: true, ...patch }] });
const added = <T extends { id: string }>(row: T, patch: Partial<T>) => {
  const { id: _id, ...rest } = { ...row, ...patch };
  return rest;
};

describe('the sample network passes every rule', () => {
  it('re-saving each stored row unchanged is accepted', () => {
    for (const row of rows.networkInterface!) expect(checkInterfaceWrite(row, rows), row.ifname).toBeUndefined();
    for (const row of rows.vlan!) expect(checkVlanWrite(row, rows)).toBeUndefined();
    for (const row of rows.dhcpServer!) expect(checkDhcpServerWrite(row, rows), row.interface).toBeUndefined();
    for (const row of rows.dhcpStatic!) expect(checkDhcpStaticWrite(row, rows)).toBeUndefined();
    for (const row of rows.staticRoute!) expect(checkStaticRouteWrite(row, rows)).toBeUndefined();
    for (const row of rows.arpBind!) expect(checkArpBindWrite(row, rows)).toBeUndefined();
    for (const row of rows.multiWan!) expect(checkMultiWanWrite(row, rows)).toBeUndefined();
    for (const row of rows.portAttribute!) expect(checkPortAttributeWrite(row, rows)).toBeUndefined();
    for (const row of rows.vpnClient!) expect(checkVpnClientWrite(row, rows)).toBeUndefined();
    expect(checkIptvWrite(withIptv({}).iptv![0]!, withIptv({}))).toBeUndefined();
  });

  it('every rule is listed for the write path by entity name', () => {
    expect(Object.keys(NETWORK_RULES).sort()).toEqual(
      ['arpBind', 'dhcpServer', 'dhcpStatic', 'iptv', 'multiWan', 'networkInterface', 'portAttribute', 'staticRoute', 'vlan', 'vpnClient'].sort(),
    );
    for (const name of Object.keys(NETWORK_RULES)) expect(entities[name], name).toBeDefined();
  });
});

describe('interfaces', () => {
  const lan2: Omit<NetworkInterface, 'id'> = added(iface('lan'), { ifname: 'lan2', hwport: ['eth5'], ipaddr: '192.168.2.1', secondary: [], subif_type: 'none' });

  it('names are unique across interfaces, VLANs and VPN clients', () => {
    expect(checkInterfaceWrite(lan2, rows)).toBeUndefined();
    for (const taken of ['lan', 'guest', 'office']) {
      expect(checkInterfaceWrite({ ...lan2, ifname: taken }, rows), taken).toEqual({ ifname: 'validation.nameExists' });
    }
  });

  it('a port belongs to one interface; a bond takes no port that carries VLANs', () => {
    expect(checkInterfaceWrite({ ...lan2, hwport: ['eth5', 'eth2'] }, rows)).toEqual({ hwport: 'validation.network.portInUse' });
    const bond = { ...lan2, role: 'bond' as const, hwport: ['eth3', 'eth6'] };
    expect(checkInterfaceWrite(bond, { ...rows, networkInterface: rows.networkInterface!.filter((r) => r.ifname !== 'lan') })).toEqual({
      hwport: 'validation.vlan.bondPort',
    });
    expect(checkInterfaceWrite({ ...lan2, hwport: ['eth4'] }, withIptv({}))).toEqual({ hwport: 'validation.network.portInUse' });
    expect(checkInterfaceWrite({ ...lan2, hwport: ['eth4'] }, withIptv({ type: 'igmp' }))).toBeUndefined();
  });

  it('"IP range overlaps existing config": primary and secondary networks against interfaces and VLANs', () => {
    expect(checkInterfaceWrite({ ...lan2, ipaddr: '192.168.1.2' }, rows)).toEqual({ ipaddr: 'validation.ipRange.overlap' });
    expect(checkInterfaceWrite({ ...lan2, ipaddr: '192.168.20.5' }, rows)).toEqual({ ipaddr: 'validation.ipRange.overlap' });
    expect(checkInterfaceWrite({ ...lan2, secondary: ['10.10.0.9/16'] }, rows)).toEqual({ secondary: 'validation.ipRange.overlap' });
    expect(checkInterfaceWrite({ ...lan2, ipaddr: '10.0.0.1', netmask: '255.0.0.0' }, rows)).toEqual({ ipaddr: 'validation.ipRange.overlap' });
  });

  it('"VLAN Tag/Port Index have been used": a WAN tag already on its port', () => {
    const wan3 = added(iface('wan1'), { ifname: 'wan3', hwport: ['eth3'], ipaddr: '198.51.100.2', gateway: '198.51.100.1', vlan_tag: 20 });
    expect(checkInterfaceWrite(wan3, { ...rows, networkInterface: rows.networkInterface!.filter((r) => r.ifname !== 'lan') })).toEqual({
      vlan_tag: 'validation.vlan.inUse',
    });
    expect(checkInterfaceWrite({ ...iface('wan1'), vlan_tag: 45 }, withIptv({ wan: 'wan1' }))).toEqual({ vlan_tag: 'validation.vlan.inUse' });
  });

  it('the sub-interface type cannot change while sub-interfaces exist', () => {
    expect(checkInterfaceWrite({ ...iface('lan'), subif_type: 'none' }, rows)).toEqual({ subif_type: 'validation.subif.inUse' });
    const noVlans = { ...rows, vlan: [] };
    expect(checkInterfaceWrite({ ...iface('lan'), subif_type: 'none' }, noVlans)).toBeUndefined();
  });

  it('"MWAN on WAN2 must be deleted first": deleting or disabling a WAN multi-WAN uses', () => {
    expect(checkInterfaceDelete([iface('wan2')], rows)).toBe('validation.multiWan.inUse');
    expect(checkInterfaceWrite({ ...iface('wan2'), enabled: false }, rows)).toBe('validation.multiWan.inUse');
    const noMwan = { ...rows, multiWan: [] };
    expect(checkInterfaceDelete([iface('wan2')], noMwan)).toBeUndefined();
    expect(checkInterfaceWrite({ ...iface('wan2'), enabled: false }, noMwan)).toBeUndefined();
  });

  it('an interface something refers to is not deleted', () => {
    expect(checkInterfaceDelete([iface('lan')], rows)).toBe('validation.network.inUse');
    expect(checkInterfaceDelete([iface('wan2')], { ...withIptv({}), multiWan: [] })).toBe('validation.network.inUse');
  });

  it('a PPPoE WAN needs a password stored or sent', () => {
    const stored = iface('wan2');
    expect(checkInterfaceWrite({ ...stored, pppoe_password: undefined }, rows)).toBeUndefined();
    const dhcpWan = { ...rows, networkInterface: rows.networkInterface!.map((r) => (r.ifname === 'wan2' ? { ...r, pppoe_password: undefined } : r)) };
    expect(checkInterfaceWrite({ ...stored, pppoe_password: undefined }, dhcpWan)).toEqual({ pppoe_password: 'validation.required' });
  });

  it('an interface MTU cannot exceed the MTU of its port', () => {
    const smallPort = { ...rows, portAttribute: [{ ...rows.portAttribute![0]!, mtu: 1400 }] };
    expect(checkInterfaceWrite(iface('wan1'), smallPort)).toEqual({ mtu: 'validation.mtu.port' });
    expect(checkPortAttributeWrite({ ...rows.portAttribute![0]!, mtu: 1400 }, rows)).toEqual({ mtu: 'validation.mtu.port' });
  });
});

describe('VLANs', () => {
  const vlan30: Omit<Vlan, 'id'> = added(guest, { ifname: 'iot', tag: 30, ipaddr: '192.168.30.1' });

  it('accepts a new VLAN with an unused tag and network', () => {
    expect(checkVlanWrite(vlan30, rows)).toBeUndefined();
  });

  it('tag unique; tag and port unused by a WAN or the IPTV VLAN', () => {
    expect(checkVlanWrite({ ...vlan30, tag: 20 }, rows)).toEqual({ tag: 'validation.vlan.inUse' });
    const wanPort = { ...vlan30, port: 'eth1', tag: 35 };
    const withWanPort = { ...rows, networkInterface: rows.networkInterface!.map((r) => (r.ifname === 'wan2' ? { ...r, subif_type: 'vlan' as const } : r)) };
    expect(checkVlanWrite(wanPort, withWanPort)).toEqual({ tag: 'validation.vlan.inUse' });
    expect(checkVlanWrite({ ...wanPort, tag: 36 }, withWanPort)).toBeUndefined();
    expect(checkVlanWrite({ ...wanPort, tag: 45 }, { ...withWanPort, iptv: withIptv({}).iptv })).toEqual({ tag: 'validation.vlan.inUse' });
  });

  it('"LanTag conflicts with VLAN ID" both ways', () => {
    expect(checkVlanWrite({ ...vlan30, tag: 100 }, withIptv({}))).toEqual({ tag: 'validation.lanTag.conflict' });
    expect(checkIptvWrite(withIptv({ lantag: 20 }).iptv![0]!, rows)).toEqual({ lantag: 'validation.lanTag.conflict' });
  });

  it('VLANs only on non-bond ports, and only where the owning interface takes sub-interfaces', () => {
    const bonded = { ...rows, networkInterface: [...rows.networkInterface!, { ...iface('lan'), id: 'if-bond', ifname: 'bond1', role: 'bond' as const, hwport: ['eth6', 'eth7'], ipaddr: '192.168.9.1', secondary: [] }] };
    expect(checkVlanWrite({ ...vlan30, port: 'eth6' }, bonded)).toEqual({ port: 'validation.vlan.bondPort' });
    expect(checkVlanWrite({ ...vlan30, port: 'eth0' }, rows)).toEqual({ port: 'validation.vlan.subifNone' });
    const macBased = { ...rows, networkInterface: rows.networkInterface!.map((r) => (r.ifname === 'wan1' ? { ...r, subif_type: 'mac' as const } : r)) };
    expect(checkVlanWrite({ ...vlan30, port: 'eth0' }, macBased)).toEqual({ mac: 'validation.required' });
    expect(checkVlanWrite({ ...vlan30, port: 'eth0', mac: '02:00:00:00:00:30' }, macBased)).toBeUndefined();
    expect(checkVlanWrite({ ...vlan30, port: 'eth9' }, rows)).toBeUndefined();
  });

  it('names and networks do not collide with other configuration', () => {
    expect(checkVlanWrite({ ...vlan30, ifname: 'wan1' }, rows)).toEqual({ ifname: 'validation.nameExists' });
    expect(checkVlanWrite({ ...vlan30, ipaddr: '10.10.0.7', netmask: '255.255.0.0' }, rows)).toEqual({ ipaddr: 'validation.ipRange.overlap' });
  });

  it('a VLAN a DHCP server uses is not deleted', () => {
    expect(checkVlanDelete([guest], rows)).toBe('validation.network.inUse');
    expect(checkVlanDelete([guest], { ...rows, dhcpServer: [] })).toBeUndefined();
  });
});

describe('DHCP', () => {
  const lanServer = rows.dhcpServer![0]!;

  it('pool arithmetic: start within the hosts of the network, 0 = to the end', () => {
    const net = { first: 0xc0a80100, last: 0xc0a801ff };
    expect(dhcpPool({ start: '192.168.1.100', pool_size: 100 }, net)).toEqual({ first: 0xc0a80164, last: 0xc0a801c7 });
    expect(dhcpPool({ start: '192.168.1.100', pool_size: 0 }, net)).toEqual({ first: 0xc0a80164, last: 0xc0a801fe });
    expect(dhcpPool({ start: '192.168.1.0', pool_size: 1 }, net)).toBeNull();
    expect(dhcpPool({ start: '192.168.2.1', pool_size: 1 }, net)).toBeNull();
  });

  it('serves a LAN-side interface with an address, one server each, pool inside the network', () => {
    expect(checkDhcpServerWrite({ ...lanServer, interface: 'wan1' }, rows)).toEqual({ interface: 'validation.dhcp.interface' });
    expect(checkDhcpServerWrite({ ...lanServer, interface: 'nope' }, rows)).toEqual({ interface: 'validation.dhcp.interface' });
    expect(checkDhcpServerWrite(added(lanServer, {}), rows)).toEqual({ interface: 'validation.dhcp.interfaceInUse' });
    expect(checkDhcpServerWrite({ ...lanServer, start: '192.168.2.100' }, rows)).toEqual({ start: 'validation.dhcp.startSubnet' });
    expect(checkDhcpServerWrite({ ...lanServer, pool_size: 156 }, rows)).toEqual({ pool_size: 'validation.dhcp.poolSize' });
    expect(checkDhcpServerWrite({ ...lanServer, pool_size: 155 }, rows)).toBeUndefined();
    expect(checkDhcpServerWrite({ ...rows.dhcpServer![1]!, dhcpv6: 'stateful' }, rows)).toEqual({ dhcpv6: 'validation.dhcp.ipv6' });
  });

  it('static leases: one per MAC and address, inside a LAN-side network, not an interface address', () => {
    const lease = rows.dhcpStatic![0]!;
    const fresh = added(lease, { mac: '00:11:22:33:44:99', ip: '192.168.1.12' });
    expect(checkDhcpStaticWrite(fresh, rows)).toBeUndefined();
    expect(checkDhcpStaticWrite({ ...fresh, mac: lease.mac }, rows)).toEqual({ mac: 'validation.dhcpStatic.macInUse' });
    expect(checkDhcpStaticWrite({ ...fresh, ip: lease.ip }, rows)).toEqual({ ip: 'validation.ipOverlap' });
    expect(checkDhcpStaticWrite({ ...fresh, ip: '192.168.1.1' }, rows)).toEqual({ ip: 'validation.ipOverlap' });
    expect(checkDhcpStaticWrite({ ...fresh, ip: '172.16.0.5' }, rows)).toEqual({ ip: 'validation.dhcpStatic.subnet' });
    expect(checkDhcpStaticWrite({ ...fresh, ip: '192.168.20.50' }, rows)).toBeUndefined();
  });
});

describe('routes, bindings, multi-WAN, ports, IPTV, VPN clients', () => {
  it('static routes name a known interface and are not duplicated', () => {
    const route = rows.staticRoute![0]!;
    expect(checkStaticRouteWrite({ ...route, interface: 'nope' }, rows)).toEqual({ interface: 'validation.network.unknownInterface' });
    expect(checkStaticRouteWrite({ ...route, interface: 'office' }, rows)).toBeUndefined();
    expect(checkStaticRouteWrite(added(route, {}), rows)).toEqual({ target: 'validation.staticRoute.exists' });
    expect(checkStaticRouteWrite(added(route, { metric: 20 }), rows)).toBeUndefined();
  });

  it('ARP bindings: one per address, on a LAN-side interface', () => {
    const bind = rows.arpBind![0]!;
    expect(checkArpBindWrite(added(bind, {}), rows)).toEqual({ ip: 'validation.arpBind.ipInUse' });
    expect(checkArpBindWrite(added(bind, { ip: '192.168.1.30', interface: 'wan1' }), rows)).toEqual({ interface: 'validation.network.unknownInterface' });
    expect(checkArpBindWrite(added(bind, { ip: '192.168.20.30', interface: 'guest' }), rows)).toBeUndefined();
  });

  it('multi-WAN entries name a WAN, once', () => {
    const entry = rows.multiWan![0]!;
    expect(checkMultiWanWrite({ ...entry, interface: 'lan' }, rows)).toEqual({ interface: 'validation.multiWan.notWan' });
    expect(checkMultiWanWrite(added(entry, {}), rows)).toEqual({ interface: 'validation.multiWan.interfaceInUse' });
  });

  it('port attributes: one entry per port', () => {
    expect(checkPortAttributeWrite(added(rows.portAttribute![0]!, {}), rows)).toEqual({ port: 'validation.portAttr.exists' });
  });

  it('IPTV: a WAN, its tag unused on that port, a free set-top port in bridge mode and a LAN port in IGMP mode', () => {
    const tv = withIptv({}).iptv![0]!;
    expect(checkIptvWrite({ ...tv, enable: false, wan: 'nope' }, rows)).toBeUndefined();
    expect(checkIptvWrite({ ...tv, wan: 'lan' }, rows)).toEqual({ wan: 'validation.iptv.wan' });
    expect(checkIptvWrite({ ...tv, wantag: 35 }, rows)).toEqual({ wantag: 'validation.vlan.inUse' });
    expect(checkIptvWrite({ ...tv, portnum: 'eth2' }, rows)).toEqual({ portnum: 'validation.network.portInUse' });
    expect(checkIptvWrite({ ...tv, type: 'igmp', portnum: 'eth2' }, rows)).toBeUndefined();
    expect(checkIptvWrite({ ...tv, type: 'igmp', portnum: 'eth4' }, rows)).toEqual({ portnum: 'validation.iptv.igmpPort' });
  });

  it('VPN client names share the interface namespace and are not deleted while routed through', () => {
    const office = rows.vpnClient![0]!;
    expect(checkVpnClientWrite(added(office, { name: 'lan' }), rows)).toEqual({ name: 'validation.nameExists' });
    expect(checkVpnClientWrite(added(office, { name: 'office' }), rows)).toEqual({ name: 'validation.nameExists' });
    expect(checkVpnClientWrite(office, rows)).toBeUndefined();
    const routed = { ...rows, staticRoute: [{ ...rows.staticRoute![0]!, interface: 'office' }] };
    expect(checkVpnClientDelete([office], routed)).toBe('validation.network.inUse');
    expect(checkVpnClientDelete([office], rows)).toBeUndefined();
  });
});
