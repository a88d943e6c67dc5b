import { IPTV_BRIDGE, type NetworkPlan } from './network-plan.js';
import { device, integer, RenderValueError } from './network-syntax.js';
import type { UciPackage, UciSection } from '../../engine/uci-format.js';

/**
 * IPTV for the `openwrt` driver, as the linux driver builds it (spec §3):
 * - bridge: the ISP's IPTV VLAN and the set-top port join the `iptv-br` bridge, VLAN-aware with
 *   the LAN tag as the untagged VLAN of both, held by an address-less interface;
 * - igmp: the igmpproxy package proxies joins from the set-top box's LAN to the IPTV upstream
 *   (the tagged VLAN, as an address-less interface, or the WAN itself), and fw4 lets IGMP in
 *   and multicast through from the WAN zone to the LAN zone.
 */

export const IPTV_INTERFACE = 'iptv_tv';
const IPTV_UPSTREAM_DEVICE = 'iptv_up';

function name(value: string): string {
  if (!/^[a-z][a-z0-9]{0,9}$/.test(value)) throw new RenderValueError(`interface name ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

/** Device and interface sections for /etc/config/network. */
export function iptvNetworkSections(plan: NetworkPlan): UciSection[] {
  const tv = plan.iptv;
  if (!tv) return [];
  const sections: UciSection[] = [];
  if (tv.upstreamVlan) {
    sections.push({
      type: 'device',
      name: IPTV_UPSTREAM_DEVICE,
      options: { name: device(tv.upstream), type: '8021q', ifname: device(tv.upstreamVlan.lower), vid: integer(tv.upstreamVlan.tag, 1, 4094, 'IPTV tag') },
    });
  }
  if (tv.type === 'bridge' && tv.port) {
    const lantag = integer(tv.lantag, 1, 4094, 'LAN tag');
    const ports = [device(tv.upstream), device(tv.port)];
    sections.push({ type: 'device', name: 'iptv_br', options: { name: device(IPTV_BRIDGE), type: 'bridge', ports, vlan_filtering: '1' } });
    sections.push({ type: 'bridge-vlan', name: 'iptv_vlan', options: { device: device(IPTV_BRIDGE), vlan: lantag, ports: ports.map((p) => `${p}:u*`) } });
    sections.push({ type: 'interface', name: IPTV_INTERFACE, options: { device: device(IPTV_BRIDGE), proto: 'none' } });
  } else if (tv.type === 'igmp' && tv.upstreamVlan) {
    sections.push({ type: 'interface', name: IPTV_INTERFACE, options: { device: device(tv.upstream), proto: 'none' } });
  }
  return sections;
}

/** The igmpproxy package, for IGMP mode; null otherwise. */
export function renderUciIgmpproxy(plan: NetworkPlan): UciPackage | null {
  const tv = plan.iptv;
  if (tv?.type !== 'igmp' || !tv.downstream) return null;
  const lan = plan.lans.find((l) => l.l3 === tv.downstream);
  const wan = plan.wans.find((w) => w.name === plan.config.iptv.wan);
  if (!lan || !wan) return null;
  return [
    { type: 'igmpproxy', options: { quickleave: '1' } },
    { type: 'phyint', options: { network: tv.upstreamVlan ? IPTV_INTERFACE : name(wan.name), zone: 'wan', direction: 'upstream', altnet: ['0.0.0.0/0'] } },
    { type: 'phyint', options: { network: name(lan.name), zone: 'lan', direction: 'downstream' } },
  ];
}

/** fw4 rules IGMP mode needs: IGMP in from the WAN zone, multicast on to the LAN zone. */
export function iptvFirewallSections(plan: NetworkPlan): UciSection[] {
  if (plan.iptv?.type !== 'igmp' || !plan.iptv.downstream) return [];
  return [
    { type: 'rule', name: 'iptv_igmp', options: { name: 'Allow-IPTV-IGMP', src: 'wan', proto: 'igmp', family: 'ipv4', target: 'ACCEPT' } },
    { type: 'rule', name: 'iptv_mcast', options: { name: 'Allow-IPTV-Multicast', src: 'wan', dest: 'lan', proto: 'udp', dest_ip: '224.0.0.0/4', family: 'ipv4', target: 'ACCEPT' } },
  ];
}

/** Interfaces IPTV adds to a zone: the tagged upstream belongs to the WAN zone. */
export function iptvWanNetworks(plan: NetworkPlan): string[] {
  return plan.iptv?.type === 'igmp' && plan.iptv.upstreamVlan ? [IPTV_INTERFACE] : [];
}
