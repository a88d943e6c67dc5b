import { NETWORK_FILES } from './network-config.js';
import { wanPolicyOf } from './network-ip-batch.js';
import type { NetworkPlan } from './network-plan.js';
import { pppoeSlot, pppoeWans } from './network-pppoe.js';
import { device } from './network-syntax.js';
import { pppOptionsPath, pppSecretPath, pppTunnels, tunnelName } from './network-vpn.js';
import { ipsecClients, ipsecConnectionName } from './network-vpn-swanctl.js';
import type { PppWan } from './network-wan-ppp.js';

/**
 * The links the linux driver dials, as its runtime reads them (dialled-links.json, rendered on
 * every apply so a link that is gone is seen as gone):
 * - `pppd`: one pppd the daemon runs per PPPoE WAN and per PPTP client, with its options file
 *   and the 0600 file its password comes from; a PPPoE WAN's also with what its link hook
 *   sets up (device, multi-WAN table and rule, whether the ISP's DNS servers are used);
 * - `l2tp`: xl2tpd's configuration and the lac sections to connect, with the files each lac's
 *   pppd reads (a change of one redials the tunnels);
 * - `ipsec`: the swanctl files to load and the child SAs to initiate.
 * Paths are targets on the device; the runtime puts them under the install root.
 */

export interface PppdLink {
  /** The WAN's or the VPN client's name (network/reconnect names a WAN this way). */
  name: string;
  kind: 'pppoe' | 'pptp';
  options: string;
  secret: string;
  /** PPPoE WANs: pppd runs the link hook, whose events the daemon applies for this WAN. */
  wan?: PppWan;
}

export interface L2tpLinks {
  config: string;
  lacs: Array<{ name: string; files: string[] }>;
}

export interface IpsecLinks {
  config: string;
  files: string[];
  children: string[];
}

export interface DialledLinks {
  pppd: PppdLink[];
  l2tp: L2tpLinks | null;
  ipsec: IpsecLinks | null;
}

export function dialledLinks(plan: NetworkPlan): DialledLinks {
  const pppd: PppdLink[] = pppoeWans(plan).map((wan) => {
    const slot = pppoeSlot(wan);
    const name = device(wan.name);
    return {
      name,
      kind: 'pppoe',
      options: `${NETWORK_FILES.pppDir}/${slot}.options`,
      secret: `${NETWORK_FILES.pppDir}/${slot}.secret`,
      wan: { name, device: device(wan.l3), peerDns: wan.row.dns.length === 0, ...wanPolicyOf(plan, wan) },
    };
  });
  const lacs: L2tpLinks['lacs'] = [];
  for (const { client, slot } of pppTunnels(plan)) {
    const name = tunnelName(client.name);
    if (client.type === 'pptp') pppd.push({ name, kind: 'pptp', options: pppOptionsPath(slot), secret: pppSecretPath(slot) });
    else lacs.push({ name, files: [pppOptionsPath(slot), pppSecretPath(slot)] });
  }
  const children = ipsecClients(plan).map((client) => ipsecConnectionName(client.name));
  return {
    pppd,
    l2tp: lacs.length ? { config: NETWORK_FILES.xl2tpd, lacs } : null,
    ipsec: children.length ? { config: NETWORK_FILES.swanctl, files: [NETWORK_FILES.swanctl, NETWORK_FILES.swanctlSecrets], children } : null,
  };
}

export function renderDialledLinks(plan: NetworkPlan): string {
  return `${JSON.stringify(dialledLinks(plan), null, 2)}\n`;
}
