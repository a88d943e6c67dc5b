import { isCidr4, isIpv4, isMac } from '@portico/schema';
import type { ConfigSnapshot } from '../../config/config-types.js';
import type { NetworkPlan, RulesetContributor, RulesetPart } from '../network/network-public.js';
import { cidr4, identifier, integer, ipv4, mac, nftString } from '../network/network-public.js';
import { ACCT_DOWN_SET, ACCT_IDLE_TIMEOUT, ACCT_UP_SET, AUTH_IP_SET, AUTH_SET, BLOCK_MAC_SET, DOWN_LIMIT_MAP, UP_LIMIT_MAP } from './hotspot-dataplane.js';
import { HOTSPOT_ENTITIES, hotspotConfigOf } from './hotspot-config.js';
import { REMIND_SET } from './hotspot-reminder.js';
import type { HotspotConfig, ListEntry } from './hotspot-types.js';

/**
 * The hotspot's part of the one nftables ruleset (DESIGN §6), for the service-zone devices:
 * - authorised clients are elements of the runtime set `hs_auth` (MAC . IP, with the session's
 *   timeout) for what they send; their packets put the address in `hs_auth_ip` (what they
 *   receive) and count their bytes per address in `hs_acct_up` / `hs_acct_down`, sets the data
 *   path fills and refreshes itself (hotspot-dataplane.ts says why);
 * - an unauthorised client's web requests are redirected to the portal listener, it reaches
 *   the gateway only for DHCP, DNS (rate-limited per client) and the portal, and everything
 *   else it sends is dropped;
 * - the white list (MAC, IP, and domains whose DNS answers dnsmasq adds to `hs_white_dns`)
 *   bypasses the portal; the black list is refused outright.
 * The checks run in a base chain ahead of the main filter, so they apply to every packet, not
 * only to new connections: a client that is cut off loses its open connections too.
 */

export const WHITE_DNS_SET = 'hs_white_dns';
/** The part's base chains, ahead of the main filter (forward) and of destination NAT. */
export const HOTSPOT_BASE_CHAINS = {
  hs_forward: 'type filter hook forward priority -10; policy accept;',
  hs_prerouting: 'type nat hook prerouting priority -110; policy accept;',
} as const;
/** Seconds a white-listed domain's address stays allowed after the DNS answer that gave it. */
const WHITE_DNS_TIMEOUT = 3600;
/** DNS queries an unauthorised client may send per second (and in a burst). */
const DNS_RATE = 20;
const DNS_BURST = 50;
/** Largest DNS query accepted from an unauthorised client: tunnels use long names. */
const DNS_MAX_LENGTH = 300;
const SET_SIZE = 65_536;

/** A domain of the white list: a host name, or the host of a URL. */
export function whiteDomain(value: string): string | null {
  let host = value.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(host)) {
    try {
      host = new URL(host).hostname;
    } catch {
      return null;
    }
  }
  host = host.replace(/^\*\./, '').replace(/\.$/, '');
  const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
  if (host.length === 0 || host.length > 253 || !host.split('.').every((l) => label.test(l)) || !host.includes('.')) return null;
  return host;
}

function listValues(entries: readonly ListEntry[], type: ListEntry['type']): string[] {
  return entries.filter((e) => e.type === type).map((e) => e.value.trim().toLowerCase());
}

function addresses(entries: readonly ListEntry[]): string[] {
  return [...new Set(listValues(entries, 'ip').filter((v) => isIpv4(v) || isCidr4(v)))].map((v) => (v.includes('/') ? cidr4(v) : ipv4(v)));
}

function macs(entries: readonly ListEntry[]): string[] {
  return [...new Set(listValues(entries, 'mac').filter(isMac))].map(mac);
}

export interface HotspotZoneDevice {
  zone: string;
  /** The dhcp-range tag of the LAN side (its interface name). */
  tag: string;
  device: string;
  address: string;
}

/** The LAN-side devices the configured zones serve, with the gateway's address on each. */
export function zoneDevices(config: HotspotConfig, plan: NetworkPlan): HotspotZoneDevice[] {
  const out: HotspotZoneDevice[] = [];
  for (const zone of config.zones) {
    for (const name of zone.interfaces) {
      const side = plan.lanSides.find((s) => s.name === name);
      if (side) out.push({ zone: zone.name, tag: side.name, device: side.device, address: side.address.address });
    }
  }
  return out;
}

/** The RFC 8908 API address announced in DHCP option 114 (RFC 8910). */
export function captiveApiUrl(address: string, portalPort: number): string {
  return `http://${ipv4(address)}:${integer(portalPort, 1, 65_535, 'portal port')}/captive`;
}

export function hotspotRulesetPart(config: HotspotConfig, plan: NetworkPlan, portalPort: number): RulesetPart | null {
  const devices = zoneDevices(config, plan);
  if (devices.length === 0) return null;
  const port = integer(portalPort, 1, 65_535, 'portal port');
  const ifaces = [...new Set(devices.map((d) => nftString(d.device)))];
  const gatewayAddresses = [...new Set(devices.map((d) => ipv4(d.address)))];
  const domains = [...new Set(listValues(config.whiteList, 'url').map(whiteDomain).filter((d): d is string => d !== null))];

  const dnsmasq: string[] = [];
  for (const domain of domains) dnsmasq.push(`nftset=/${domain}/4#inet#portico#${WHITE_DNS_SET}`);
  for (const d of devices) dnsmasq.push(`dhcp-option=tag:${identifier(d.tag)},114,"${captiveApiUrl(d.address, portalPort)}"`);

  const runtime = { runtime: true } as const;
  const unauthorised = `ether saddr . ip saddr != @${AUTH_SET}`;
  return {
    name: 'hotspot',
    dnsmasq,
    filter: {
      sets: [
        { name: 'hs_ifaces', type: 'ifname', elements: ifaces },
        { name: 'hs_white_mac', type: 'ether_addr', elements: macs(config.whiteList) },
        { name: 'hs_white_ip', type: 'ipv4_addr', flags: ['interval'], elements: addresses(config.whiteList) },
        { name: 'hs_black_mac', type: 'ether_addr', elements: macs(config.blackList) },
        { name: 'hs_black_ip', type: 'ipv4_addr', flags: ['interval'], elements: addresses(config.blackList) },
        { name: 'hs_gateway', type: 'ipv4_addr', elements: gatewayAddresses },
        { name: AUTH_SET, type: 'ether_addr . ipv4_addr', flags: ['timeout'], extra: [`size ${SET_SIZE}`], ...runtime },
        { name: AUTH_IP_SET, type: 'ipv4_addr', flags: ['dynamic', 'timeout'], extra: [`timeout ${ACCT_IDLE_TIMEOUT}`, `size ${SET_SIZE}`], ...runtime },
        { name: ACCT_UP_SET, type: 'ipv4_addr', flags: ['dynamic', 'timeout'], extra: ['counter', `timeout ${ACCT_IDLE_TIMEOUT}`, `size ${SET_SIZE}`], ...runtime },
        { name: ACCT_DOWN_SET, type: 'ipv4_addr', flags: ['dynamic', 'timeout'], extra: ['counter', `timeout ${ACCT_IDLE_TIMEOUT}`, `size ${SET_SIZE}`], ...runtime },
        { name: WHITE_DNS_SET, type: 'ipv4_addr', flags: ['timeout'], extra: [`timeout ${WHITE_DNS_TIMEOUT}s`, `size ${SET_SIZE}`], ...runtime },
        { name: BLOCK_MAC_SET, type: 'ether_addr', ...runtime },
        { name: 'hs_dns_meter', type: 'ipv4_addr', flags: ['dynamic', 'timeout'], extra: ['timeout 1m', `size ${SET_SIZE}`], ...runtime },
        { name: REMIND_SET, type: 'ipv4_addr', flags: ['timeout'], extra: [`size ${SET_SIZE}`], ...runtime },
        { name: UP_LIMIT_MAP, kind: 'map', type: 'ipv4_addr : limit', ...runtime },
        { name: DOWN_LIMIT_MAP, kind: 'map', type: 'ipv4_addr : limit', ...runtime },
      ],
      chains: [
        {
          name: 'hs_forward',
          base: HOTSPOT_BASE_CHAINS.hs_forward,
          rules: ['iifname @hs_ifaces jump hs_from_client', 'oifname @hs_ifaces jump hs_to_client'],
        },
        {
          name: 'hs_from_client',
          rules: [
            'ether saddr @hs_black_mac drop',
            `ether saddr @${BLOCK_MAC_SET} drop`,
            'ip saddr @hs_black_ip drop',
            `limit name ip saddr map @${UP_LIMIT_MAP} drop`,
            // An authorised client: its address is let in the other way too, and its bytes counted.
            `ether saddr . ip saddr @${AUTH_SET} update @${AUTH_IP_SET} { ip saddr } update @${ACCT_UP_SET} { ip saddr counter } accept`,
            'ether saddr @hs_white_mac accept',
            'ip daddr @hs_white_ip accept',
            `ip daddr @${WHITE_DNS_SET} accept`,
            'drop',
          ],
        },
        {
          name: 'hs_to_client',
          rules: [
            'ip daddr @hs_black_ip drop',
            `limit name ip daddr map @${DOWN_LIMIT_MAP} drop`,
            `ip daddr @${AUTH_IP_SET} update @${ACCT_DOWN_SET} { ip daddr counter } accept`,
            // Answers on connections the white list let through.
            'ct state established,related accept',
            'drop',
          ],
        },
        {
          name: 'hs_prerouting',
          base: HOTSPOT_BASE_CHAINS.hs_prerouting,
          rules: [
            'iifname != @hs_ifaces return',
            // An authorised client due an expiry reminder: its next web request shows it.
            `ip saddr @${REMIND_SET} tcp dport ${integer(config.reminder?.port ?? 80, 1, 65_535, 'reminder port')} redirect to :${port}`,
            `ether saddr . ip saddr @${AUTH_SET} return`,
            'ether saddr @hs_white_mac return',
            'ip daddr @hs_white_ip return',
            `ip daddr @${WHITE_DNS_SET} return`,
            'ip daddr @hs_gateway return',
            `tcp dport 80 redirect to :${port}`,
          ],
        },
      ],
      hooks: {
        lan_to_device: [
          'iifname @hs_ifaces ether saddr @hs_black_mac drop',
          `iifname @hs_ifaces ether saddr @${BLOCK_MAC_SET} drop`,
          `iifname @hs_ifaces tcp dport ${port} accept`,
          `iifname @hs_ifaces meta l4proto { tcp, udp } th dport 53 ${unauthorised} meta length > ${DNS_MAX_LENGTH} drop`,
          `iifname @hs_ifaces meta l4proto { tcp, udp } th dport 53 ${unauthorised} update @hs_dns_meter { ip saddr limit rate over ${DNS_RATE}/second burst ${DNS_BURST} packets } drop`,
        ],
      },
    },
  };
}

/** The hotspot's share of the one ruleset (hotspot-module.ts contributes it). */
export function hotspotRulesetContributor(portalPort: () => number = () => HOTSPOT_PORTAL.port): RulesetContributor {
  return {
    entities: Object.values(HOTSPOT_ENTITIES),
    part(snapshot: ConfigSnapshot, plan: NetworkPlan) {
      return hotspotRulesetPart(hotspotConfigOf(snapshot), plan, portalPort());
    },
  };
}

/**
 * The portal listener's port as the daemon was started with (PORTICO_PORTAL_PORT): set once
 * at start by the hotspot's registration, before anything is rendered.
 */
export const HOTSPOT_PORTAL = { port: 2050 };

