import type { RenderedFile } from '../../engine/engine-types.js';
import type { NetworkPlan } from './network-plan.js';
import { RenderValueError } from './network-syntax.js';
import { accountToken, hostToken } from './network-vpn-pppd.js';
import { ipsecClients, renderSwanctlConnections, renderSwanctlSecrets } from './network-vpn-swanctl.js';
import type { UciSection } from '../../engine/uci-format.js';

/**
 * VPN clients for the `openwrt` driver:
 * - PPTP and L2TP are netifd interfaces (`proto pptp`, `proto l2tp`, from the ppp-mod-pptp and
 *   xl2tpd packages) named like the client, with the account in /etc/config/network (which is
 *   then private). netifd names their devices `pptp-<name>` / `l2tp-<name>`. `auto 0`: a tunnel
 *   comes up when asked, not at boot.
 * - IPsec is the same swanctl.conf fragment the linux driver renders (strongSwan's swanctl
 *   package reads /etc/swanctl/conf.d/*.conf), with the keys in a private file beside it
 *   that the fragment includes. The fragment was chosen over the UCI `ipsec` package because
 *   its syntax is one checked renderer for both drivers and its option names do not change
 *   between OpenWrt releases.
 */

export const OPENWRT_SWANCTL_FILES = {
  connections: '/etc/swanctl/conf.d/portico.conf',
  /** Outside conf.d, so `--load-all` does not read it twice. */
  secrets: '/etc/swanctl/portico-secrets.conf',
} as const;

function clientName(value: string): string {
  if (!/^[a-z][a-z0-9]{0,9}$/.test(value) || value === 'loopback') throw new RenderValueError(`VPN client name ${JSON.stringify(value)} cannot be rendered`);
  return value;
}

/** Interface sections of the PPTP and L2TP clients for /etc/config/network. */
export function vpnNetworkSections(plan: NetworkPlan): UciSection[] {
  const sections: UciSection[] = [];
  for (const client of plan.config.vpnClients) {
    if (!client.enabled || (client.type !== 'pptp' && client.type !== 'l2tp')) continue;
    const options: UciSection['options'] = {
      proto: client.type,
      server: hostToken(client.server),
      username: accountToken(client.username),
    };
    // The stored row always has the password; the write path refuses a tunnel without one.
    if (client.password) options.password = client.password;
    options.defaultroute = client.defaultroute ? '1' : '0';
    options.peerdns = '0';
    options.auto = '0';
    sections.push({ type: 'interface', name: clientName(client.name), options });
  }
  return sections;
}

/** Names of the VPN interfaces, for the WAN firewall zone (tunnels lead out, like WANs). */
export function vpnNetworks(plan: NetworkPlan): string[] {
  return vpnNetworkSections(plan).map((s) => s.name!);
}

export function renderOpenwrtSwanctl(plan: NetworkPlan): RenderedFile[] {
  if (!ipsecClients(plan).length) return [];
  return [
    { target: OPENWRT_SWANCTL_FILES.connections, content: renderSwanctlConnections(plan, OPENWRT_SWANCTL_FILES), check: 'swanctl', mode: 0o644 },
    { target: OPENWRT_SWANCTL_FILES.secrets, content: renderSwanctlSecrets(plan), check: 'swanctl', mode: 0o600 },
  ];
}
