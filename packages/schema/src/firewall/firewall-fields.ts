import { z } from 'zod';
import { parseAccessIp } from '../common/access-ip.js';
import { isIpv4 } from '../common/ip-address.js';
import { interfaceNameField } from '../network/network-fields.js';

/**
 * Fields shared by the Firewall entities. Firewall rules act on IPv4 (the NAT table is IPv4),
 * so address selectors take the spec §5 access-IP forms restricted to IPv4: one address,
 * a range `a-b`, a CIDR `a/len` or `a/netmask`; empty means any address.
 */

export const SELECTOR_MESSAGE = 'validation.accessIp';
/** Ports given for a protocol without ports. */
export const PORTS_NEED_PROTOCOL_MESSAGE = 'validation.firewall.portsNeedProtocol';
/** An internal port other than 0 or the first external port for a mapped range. */
export const INTERNAL_PORT_RANGE_MESSAGE = 'validation.firewall.internalPortRange';
/** A second DMZ host for a WAN that has one. */
export const DMZ_EXISTS_MESSAGE = 'validation.firewall.dmzExists';
export const NOT_WAN_MESSAGE = 'validation.multiWan.notWan';

/** IPv4 addresses a selector covers, as integers; null for text that is not a selector. */
export function parseIpv4Selector(text: string): { first: number; last: number; form: 'address' | 'range' | 'network' } | null {
  // Strict shape first: dotted quads only, one separator at most (`a-b-c`, `a/8/8` are typos).
  const parts = text.split(/[-/]/);
  if (parts.length > 2 || !isIpv4(parts[0]!)) return null;
  if (text.includes('-') && !isIpv4(parts[1]!)) return null;
  const parsed = parseAccessIp(text);
  if (!parsed || parsed.v6) return null;
  const form = text.includes('-') ? 'range' : text.includes('/') ? 'network' : 'address';
  return { first: Number(parsed.first), last: Number(parsed.last), form };
}

export function ipv4SelectorField() {
  return z
    .string({ error: 'validation.type' })
    .max(64, { error: SELECTOR_MESSAGE })
    .refine((v) => v === '' || parseIpv4Selector(v) !== null, { error: SELECTOR_MESSAGE });
}

/** Mapping protocols: one of TCP and UDP, or both. */
export const MAPPING_PROTOCOLS = ['tcp', 'udp', 'tcpudp'] as const;
export type MappingProtocol = (typeof MAPPING_PROTOCOLS)[number];

/** Filter protocols; ports are only matched for TCP and UDP. */
export const FILTER_PROTOCOLS = ['all', 'tcp', 'udp', 'tcpudp', 'icmp'] as const;

export function protocolsOf(proto: string): Array<'tcp' | 'udp'> {
  if (proto === 'tcp' || proto === 'udp') return [proto];
  if (proto === 'tcpudp') return ['tcp', 'udp'];
  return [];
}

/** A list of interface names (LAN lists of LAN forward and share-net block). */
export function interfaceListField() {
  return z.array(interfaceNameField(), { error: 'validation.type' }).max(64, { error: 'validation.tooBig' });
}

/** A list of IPv4 selectors (white and black lists). */
export function selectorListField() {
  return z
    .array(
      ipv4SelectorField().refine((v) => v !== '', { error: SELECTOR_MESSAGE }),
      { error: 'validation.type' },
    )
    .max(256, { error: 'validation.tooBig' });
}

export const FIREWALL_COMMENT_MAX = 64;
