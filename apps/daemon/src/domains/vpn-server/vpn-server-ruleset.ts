import { netmaskToPrefix, openvpnServer, type OpenvpnServer } from '@portico/schema';
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

/**
 * The VPN servers' share of the one ruleset: their port open on every side, their tunnels
 * forwarded, and in NAT mode (natmode) the tunnel network masqueraded behind the interface it
 * leaves by, so LAN hosts need no route back to it.
 */
export const vpnServerContributor: RulesetContributor = {
  entities: [openvpnServer.name],
  part(snapshot) {
    const server = openvpnSettingsOf(snapshot);
    if (!server.enabled) return null;
    const device = nftString(OPENVPN_DEVICE);
    const prefix = netmaskToPrefix(server.netmask);
    const nat = server.workmode === 'natmode' && prefix !== null ? [`ip saddr ${ipv4(server.server)}/${prefix} oifname != ${device} masquerade`] : [];
    return {
      name: 'vpn servers',
      filter: {
        hooks: {
          input_rules: [`${server.proto} dport ${server.port} accept`, `iifname ${device} accept`],
          forward_rules: [`iifname ${device} accept`, `oifname ${device} accept`],
        },
      },
      nat: { hooks: { postrouting_rules: nat } },
    };
  },
};
