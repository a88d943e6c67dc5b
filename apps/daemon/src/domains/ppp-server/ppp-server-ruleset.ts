import { intToIpv4, ipv4ToInt, isIpv4, parseIpv4Range, pppExpiredSplit, PPP_SERVER_KINDS, type L2tpServer, type PppServerKind, type PppServerSettings, type PppoeServer } from '@portico/schema';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { device, integer, ipv4, nftString, type NetworkPlan, type NftChainDeclaration, type RulesetContributor, type RulesetPart } from '../network/network-public.js';
import type { PortalNoticeSource } from '../hotspot/hotspot-public.js';
import { pppEntity, pppExpiredPool, pppSettingsOf } from './ppp-server-files.js';

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
 * How the driver names a PPPoE WAN's device, which also starts with `ppp`: `ppp-<wan>` on
 * linux (network-wan-ppp.ts), `pppoe-<wan>` on OpenWrt (netifd).
 */
export type PppWanDevices = 'ppp-*' | 'pppoe-*';

/** A server session's traffic: a `pppN` device, never a PPPoE WAN's. */
const sessionMatch = (wan: PppWanDevices) => `iifname "ppp*" iifname != "${wan}"`;

/**
 * The PPP servers' share of the one ruleset: their ports open (PPTP: TCP 1723 and GRE; L2TP:
 * UDP 1701, and with IPsec only what IPsec decapsulated, beside IKE and ESP; PPPoE discovery is
 * layer 2 and needs nothing), on the configured interfaces only when some are named; their
 * sessions' traffic accepted and forwarded (a server session's device is `pppN`, never the
 * `ppp-<wan>` of a PPPoE WAN, and its source must be in the server's range); in NAT mode the
 * range masqueraded when it leaves by another device. "PPPoE users only" drops what hosts on
 * the PPPoE server's interfaces send past the gateway without dialling. "Remind expired users"
 * confines the addresses set aside for expired accounts (expiredRules). dnsmasq answers on the
 * sessions' devices when a server hands out its own address as the DNS server.
 */
export function pppServerContributor(portalPort: number, wan: PppWanDevices = 'ppp-*'): RulesetContributor {
  const onSession = sessionMatch(wan);
  return {
    entities: PPP_SERVER_KINDS.map((kind) => pppEntity(kind).name),
    part(snapshot: ConfigSnapshot, plan: NetworkPlan): RulesetPart | null {
      const input: string[] = [];
      const forward: string[] = [];
      const postrouting: string[] = [];
      let confined: { filter: NftChainDeclaration[]; nat: NftChainDeclaration[] } = { filter: [], nat: [] };
      let ownDns = false;
      for (const kind of PPP_SERVER_KINDS) {
        const settings = pppSettingsOf(snapshot, kind);
        if (!settings.enabled) continue;
        const devices = devicesOf(settings, plan);
        if (settings.interfaces.length > 0 && devices.length === 0) continue;
        const on = devices.length ? `iifname { ${devices.map(nftString).join(', ')} } ` : '';
        input.push(...portRules(kind, settings, on));
        if (kind === 'pppoe') confined = expiredChains(settings as PppoeServer, portalPort, onSession);
        const sessionRule = `${onSession} ip saddr ${clients(settings)}`;
        input.push(`${sessionRule} accept`);
        forward.push(`${sessionRule} accept`, `oifname "ppp*" oifname != "${wan}" ip daddr ${clients(settings)} ct state established,related accept`);
        // Leaving by anything but a server session: a WAN, the LAN, or a PPPoE WAN's device.
        if (settings.workmode === 'natmode') postrouting.push(`ip saddr ${clients(settings)} oifname != "ppp*" masquerade`, `ip saddr ${clients(settings)} oifname "${wan}" masquerade`);
        if (kind === 'pppoe' && (settings as PppoeServer).pppoeonly && devices.length) forward.push(`iifname { ${devices.map(nftString).join(', ')} } drop`);
        if (!settings.msdns) ownDns = true;
      }
      if (!input.length) return null;
      return {
        name: 'ppp servers',
        filter: { chains: confined.filter, hooks: { input_rules: input, forward_rules: forward } },
        nat: { chains: confined.nat, hooks: { postrouting_rules: postrouting } },
        // The sessions are handed the server's own address as their DNS server: dnsmasq answers on
        // their devices (never on a PPPoE WAN's `ppp-<wan>`).
        ...(ownDns ? { dnsmasq: ['interface=ppp*', `except-interface=${wan}`] } : {}),
      };
    },
  };
}

/**
 * "Remind expired users": the pool set aside for expired accounts (pppExpiredPool) reaches DNS
 * (the gateway's, or the server's DNS server) and the portal, nothing else; its web requests are
 * redirected to the portal, which answers them with the expiry notice. These are base chains of
 * their own, ahead of the main ones: their drop is final whatever another part accepts later,
 * and the redirect comes before any other address translation. A reverse-path check comes
 * first, so that no session can borrow another session's address (an expired one posing as an
 * ordinary one).
 */
function expiredChains(settings: PppoeServer, portalPort: number, onSession: string): { filter: NftChainDeclaration[]; nat: NftChainDeclaration[] } {
  const pool = pppExpiredPool(settings);
  if (!pool) return { filter: [], nat: [] };
  const expired = `${onSession} ip saddr ${ipv4(pool[0]!)}-${ipv4(pool[pool.length - 1]!)}`;
  const port = integer(portalPort, 1, 65535, 'portal port');
  const spoofed = `${onSession} fib saddr . iif oif missing drop`;
  const dns = settings.msdns && settings.msdns !== settings.localip ? [`${expired} ip daddr ${ipv4(settings.msdns)} meta l4proto { tcp, udp } th dport 53 accept`] : [];
  return {
    filter: [
      {
        name: 'ppp_expired_input',
        base: 'type filter hook input priority -5; policy accept;',
        rules: [spoofed, `${expired} meta l4proto { tcp, udp } th dport 53 accept`, `${expired} tcp dport ${port} accept`, `${expired} drop`],
      },
      { name: 'ppp_expired_forward', base: 'type filter hook forward priority -5; policy accept;', rules: [spoofed, ...dns, `${expired} drop`] },
    ],
    nat: [{ name: 'ppp_expired_redirect', base: 'type nat hook prerouting priority -105; policy accept;', rules: [`${expired} tcp dport 80 redirect to :${port}`] }],
  };
}

/**
 * The portal's question: is this address one the PPPoE server set aside for expired accounts?
 * Its web requests then get the expiry notice.
 */
export const pppExpiredNotices: PortalNoticeSource = {
  noticeFor(snapshot, ip) {
    if (!isIpv4(ip)) return null;
    const settings = pppSettingsOf(snapshot, 'pppoe');
    if (!settings.enabled || !settings.remindexpired) return null;
    const split = pppExpiredSplit(settings.remoteip);
    const address = ipv4ToInt(ip);
    return split && address >= split.expired.first && address <= split.expired.last ? 'expired' : null;
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
