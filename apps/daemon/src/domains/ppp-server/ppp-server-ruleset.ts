import { intToIpv4, parseIpv4Range, PPP_SERVER_KINDS, type L2tpServer, type PppServerKind, type PppServerSettings, type PppoeServer } from '@portico/schema';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { device, ipv4, nftString, type NetworkPlan, type RulesetContributor, type RulesetPart } from '../network/network-public.js';
import { pppEntity, pppSettingsOf } from './ppp-server-files.js';

/** Devices of the interfaces a server names; interfaces that no longer exist are left out. */
function devicesOf(settings: PppServerSettings, plan: NetworkPlan): string[] {
  return settings.interfaces.flatMap((name) => {
    const found = plan.deviceOf.get(name);
    return found ? [device(found)] : [];
  });
}

function clients(settings: PppServerSettings): string {
  const range = parseIpv4Range(settings.remoteip);
  if (!range) throw new Error(`remote range ${settings.remoteip} cannot be rendered`);
  return `${ipv4(intToIpv4(range.first))}-${ipv4(intToIpv4(range.last))}`;
}

/**
 * The PPP servers' share of the one ruleset: their ports open (PPTP: TCP 1723 and GRE; L2TP:
 * UDP 1701, and with IPsec only what IPsec decapsulated, beside IKE and ESP; PPPoE discovery is
 * layer 2 and needs nothing), on the configured interfaces only when some are named; their
 * sessions' traffic accepted and forwarded (a server session's device is `pppN`, never the
 * `ppp-<wan>` of a PPPoE WAN, and its source must be in the server's range); in NAT mode the
 * range masqueraded when it leaves by another device. "PPPoE users only" drops what hosts on
 * the PPPoE server's interfaces send past the gateway without dialling.
 */
export const pppServerContributor: RulesetContributor = {
  entities: PPP_SERVER_KINDS.map((kind) => pppEntity(kind).name),
  part(snapshot: ConfigSnapshot, plan: NetworkPlan): RulesetPart | null {
    const input: string[] = [];
    const forward: string[] = [];
    const postrouting: string[] = [];
    for (const kind of PPP_SERVER_KINDS) {
      const settings = pppSettingsOf(snapshot, kind);
      if (!settings.enabled) continue;
      const devices = devicesOf(settings, plan);
      if (settings.interfaces.length > 0 && devices.length === 0) continue;
      const on = devices.length ? `iifname { ${devices.map(nftString).join(', ')} } ` : '';
      input.push(...portRules(kind, settings, on));
      const session = `iifname "ppp*" iifname != "ppp-*" ip saddr ${clients(settings)}`;
      input.push(`${session} accept`);
      forward.push(`${session} accept`, `oifname "ppp*" oifname != "ppp-*" ip daddr ${clients(settings)} ct state established,related accept`);
      // Leaving by anything but a server session: a WAN, the LAN, or a PPPoE WAN's `ppp-<wan>`.
      if (settings.workmode === 'natmode') postrouting.push(`ip saddr ${clients(settings)} oifname != "ppp*" masquerade`, `ip saddr ${clients(settings)} oifname "ppp-*" masquerade`);
      if (kind === 'pppoe' && (settings as PppoeServer).pppoeonly && devices.length) forward.push(`iifname { ${devices.map(nftString).join(', ')} } drop`);
    }
    if (!input.length) return null;
    return {
      name: 'ppp servers',
      filter: { hooks: { input_rules: input, forward_rules: forward } },
      nat: { hooks: { postrouting_rules: postrouting } },
    };
  },
};

function portRules(kind: PppServerKind, settings: PppServerSettings, on: string): string[] {
  if (kind === 'pptp') return [`${on}tcp dport 1723 accept`, `${on}ip protocol gre accept`];
  if (kind === 'l2tp') {
    if (!(settings as L2tpServer).ipsec) return [`${on}udp dport 1701 accept`];
    // L2TP/IPsec: IKE and ESP in; L2TP itself only once IPsec has decapsulated it.
    return [`${on}udp dport { 500, 4500 } accept`, `${on}meta l4proto esp accept`, `${on}meta secpath exists udp dport 1701 accept`];
  }
  return [];
}
