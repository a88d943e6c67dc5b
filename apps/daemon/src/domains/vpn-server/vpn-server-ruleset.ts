import { ipsecPeer, netmaskToPrefix, openvpnServer, type IpsecPeer, type OpenvpnServer } from '@portico/schema';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import type { AnyEntity } from '@portico/schema';
import { ipv4, nftString, type RulesetContributor } from '../network/network-public.js';
import { OPENVPN_DEVICE } from './vpn-server-openvpn.js';

/** The saved OpenVPN server settings, or the declared defaults before the first save. */
export function openvpnSettingsOf(snapshot: ConfigSnapshot): OpenvpnServer {
  const stored = singletonRecord(snapshot, openvpnServer.name);
  return openvpnServer.schema.parse({ ...singletonDefaults(openvpnServer as unknown as AnyEntity), ...stored }) as OpenvpnServer;
}

let peerDefaults: Record<string, unknown> | undefined;

/**
 * The stored IPsec peers over the declared defaults. Each row was validated when written and
 * every value is checked again for the file it goes into as it is rendered, so the rows are
 * not parsed again here (500 peers: the parse would cost more than the rest of the apply).
 */
export function ipsecPeersOf(snapshot: ConfigSnapshot): IpsecPeer[] {
  peerDefaults ??= singletonDefaults(ipsecPeer as unknown as AnyEntity);
  return (snapshot[ipsecPeer.name] ?? []).map((row) => ({ ...peerDefaults, ...row.data, id: row.id }) as IpsecPeer);
}

/**
 * The IPsec server's share: IKE (UDP 500, 4500 for NAT traversal) and ESP in; what the kernel
 * decapsulated (`meta secpath exists`) and what it will encapsulate (`rt ipsec exists`)
 * forwarded; and the latter never masqueraded, so it keeps the addresses its policy matched.
 */
function ipsecRules(snapshot: ConfigSnapshot) {
  if (!ipsecPeersOf(snapshot).some((peer) => peer.enabled)) return null;
  return {
    input: ['udp dport { 500, 4500 } accept', 'meta l4proto esp accept'],
    forward: ['meta secpath exists accept', 'rt ipsec exists accept'],
    postrouting: ['rt ipsec exists accept'],
  };
}

/**
 * The VPN servers' share of the one ruleset: their port open on every side, their tunnels
 * forwarded, and in NAT mode (natmode) the tunnel network masqueraded behind the interface it
 * leaves by, so LAN hosts need no route back to it.
 */
export const vpnServerContributor: RulesetContributor = {
  entities: [openvpnServer.name, ipsecPeer.name],
  part(snapshot) {
    const server = openvpnSettingsOf(snapshot);
    const ipsec = ipsecRules(snapshot);
    if (!server.enabled) {
      if (!ipsec) return null;
      return {
        name: 'vpn servers',
        filter: { hooks: { input_rules: ipsec.input, forward_rules: ipsec.forward } },
        nat: { hooks: { postrouting_rules: ipsec.postrouting } },
      };
    }
    const device = nftString(OPENVPN_DEVICE);
    const prefix = netmaskToPrefix(server.netmask);
    const nat = server.workmode === 'natmode' && prefix !== null ? [`ip saddr ${ipv4(server.server)}/${prefix} oifname != ${device} masquerade`] : [];
    return {
      name: 'vpn servers',
      filter: {
        hooks: {
          input_rules: [`${server.proto} dport ${server.port} accept`, `iifname ${device} accept`, ...(ipsec?.input ?? [])],
          forward_rules: [`iifname ${device} accept`, `oifname ${device} accept`, ...(ipsec?.forward ?? [])],
        },
      },
      nat: { hooks: { postrouting_rules: [...(ipsec?.postrouting ?? []), ...nat] } },
    };
  },
};
