import { checkedString, type TextFieldOptions } from '../common/field-base.js';
import { cidrRange, isCidr4, isIp, isIpv4, netmaskToPrefix, SECONDARY_IP_MESSAGE } from '../common/ip-address.js';
import { isDomain, isHostname } from '../common/text-fields.js';
import type { EntityRef } from '../entity/define-entity.js';

/**
 * Field types of the Network section that the common set does not have: names that become
 * Linux device names or references to them, ISP account names, URLs and IPsec values.
 */

/**
 * Interface, VLAN and VPN client names share one namespace: they are referenced by DHCP
 * servers, routes and bindings, and they become parts of Linux device names (`br-<name>`,
 * `bond-<name>`, `ppp-<name>`, `vpn-<name>`), which the kernel limits to 15 characters.
 */
export const INTERFACE_NAME_PATTERN = /^[a-z][a-z0-9]{0,9}$/;
export const INTERFACE_NAME_MAX = 10;

export function isInterfaceName(text: string): boolean {
  return INTERFACE_NAME_PATTERN.test(text);
}

export function interfaceNameField(options: TextFieldOptions = {}) {
  return checkedString(isInterfaceName, 'validation.ifname', options);
}

/**
 * What a field naming an interface may choose from (the form's choices; the write rules of
 * network-rules, firewall-rules and qos-rules decide what is accepted):
 * - INTERFACE_REF: interfaces and VLANs (firewall interface fields and lists);
 * - ROUTE_INTERFACE_REF: those and VPN clients (a static route may leave through a tunnel);
 * - LAN_SIDE_REF: LAN and bond interfaces and VLANs (DHCP, ARP binding, hotspot zones);
 * - WAN_REF: WAN interfaces (multi-WAN, IPTV, port mapping, DMZ, Smart QoS).
 */
export const INTERFACE_REF: EntityRef = [
  { entity: 'networkInterface', value: 'ifname' },
  { entity: 'vlan', value: 'ifname' },
];
export const ROUTE_INTERFACE_REF: EntityRef = [...INTERFACE_REF, { entity: 'vpnClient', value: 'name' }];
export const LAN_SIDE_REF: EntityRef = [
  { entity: 'networkInterface', value: 'ifname', where: { field: 'role', in: ['lan', 'bond'] } },
  { entity: 'vlan', value: 'ifname' },
];
export const WAN_REF: EntityRef = [{ entity: 'networkInterface', value: 'ifname', where: { field: 'role', equals: 'wan' } }];

/**
 * A physical port (eth0, enp3s0). Sub-interfaces are named `<port>.<tag>` or `<port>-<tag>`,
 * so a port name leaves room for a separator and four digits within 15 characters.
 */
export const PORT_NAME_PATTERN = /^[a-z][a-z0-9]{0,9}$/;

export function isPortName(text: string): boolean {
  return PORT_NAME_PATTERN.test(text);
}

export function portNameField(options: TextFieldOptions = {}) {
  return checkedString(isPortName, 'validation.hwport', options);
}

/** `a.b.c.d/len` or `a.b.c.d/netmask`: one secondary address of an interface. */
export function isAddressWithMask(text: string): boolean {
  const parts = text.split('/');
  if (parts.length !== 2 || !isIpv4(parts[0]!)) return false;
  const mask = parts[1]!;
  if (/^(?:[1-9]|[12][0-9]|3[0-2])$/.test(mask)) return true;
  const prefix = netmaskToPrefix(mask);
  return prefix !== null && prefix > 0;
}

/** Prefix length of an address-with-mask entry; null when it is not one. */
export function addressMaskPrefix(text: string): number | null {
  if (!isAddressWithMask(text)) return null;
  const mask = text.split('/')[1]!;
  return /^\d+$/.test(mask) ? Number(mask) : netmaskToPrefix(mask);
}

/** Secondary address entry: refused with the spec's "Secondary IP/Mask Format Error". */
export function secondaryAddressField() {
  return checkedString(isAddressWithMask, SECONDARY_IP_MESSAGE);
}

/**
 * The network an address belongs to, as a range of unsigned integers, from an address and a
 * netmask or from an `address/mask` entry.
 */
export function subnetOf(address: string, mask: string): { first: number; last: number } | null {
  return cidrRange(`${address}/${mask}`);
}

/**
 * Account names given by an ISP or a VPN provider: letters, digits and `._@+-`, not starting
 * with `-` (it would read as an option to the dialler), at most 64 characters.
 */
export const ACCOUNT_PATTERN = /^[A-Za-z0-9._@+][A-Za-z0-9._@+-]{0,63}$/;

export function accountField(options: TextFieldOptions = {}) {
  return checkedString((v) => ACCOUNT_PATTERN.test(v), 'validation.account', options);
}

/** A host name or an IP address (a VPN server, a remote peer). */
export function isHostOrIp(text: string): boolean {
  return isIp(text) || isHostname(text);
}

export function hostOrIpField(options: TextFieldOptions = {}) {
  return checkedString(isHostOrIp, 'validation.hostOrIp', options);
}

/**
 * An http(s) URL to send a browser to. Only the characters a URL needs, no credentials, a
 * host that is a domain or an IPv4 address; at most 512 characters.
 */
export const URL_MAX = 512;
const URL_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

export function isHttpUrl(text: string): boolean {
  if (text.length > URL_MAX || !URL_CHARACTERS.test(text) || !/^https?:\/\//i.test(text)) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  return isDomain(url.hostname) || isIpv4(url.hostname) || isHostname(url.hostname);
}

export function httpUrlField(options: TextFieldOptions = {}) {
  return checkedString(isHttpUrl, 'validation.url', options);
}

/**
 * IPsec peer subnets (spec §5): IPv4 CIDR values separated by single spaces, network
 * addresses only, at most 16.
 */
export const PEER_SUBNETS_MAX = 16;

export function parsePeerSubnets(text: string): string[] | null {
  if (text === '' || text.trim() !== text) return null;
  const items = text.split(' ');
  if (items.length > PEER_SUBNETS_MAX) return null;
  return items.every((item) => isCidr4(item, { network: true })) ? items : null;
}

export function peerSubnetsField(options: TextFieldOptions = {}) {
  return checkedString((v) => parsePeerSubnets(v) !== null, 'validation.peerSubnets', options);
}

/**
 * An IPsec identity: an address, an FQDN, `user@fqdn` or a key id; letters, digits and
 * `@._:-`, not starting with `-`, at most 64 characters.
 */
export const IPSEC_ID_PATTERN = /^[A-Za-z0-9@._:][A-Za-z0-9@._:-]{0,63}$/;

export function ipsecIdField(options: TextFieldOptions = {}) {
  return checkedString((v) => IPSEC_ID_PATTERN.test(v), 'validation.ipsec.id', options);
}
