import { IP_OVERLAP_MESSAGE } from '../common/ip-address.js';
import type { NetworkInterface } from '../network/network-interface.js';
import type { Vlan } from '../network/vlan-interface.js';
import { PORT_IN_USE_MESSAGE, UNKNOWN_INTERFACE_MESSAGE, type Candidate, type FieldErrorMap, type RuleVerdict } from '../network/network-rules.js';
import type { FirewallAcl } from './firewall-acl.js';
import type { FirewallDmz } from './firewall-dmz.js';
import { DMZ_EXISTS_MESSAGE, NOT_WAN_MESSAGE, protocolsOf } from './firewall-fields.js';
import type { FirewallHostMapping } from './firewall-host-mapping.js';
import type { FirewallLanForward } from './firewall-lan-forward.js';
import type { FirewallNat } from './firewall-nat.js';
import { mappingPorts, type FirewallPortMapping } from './firewall-port-mapping.js';
import type { FirewallShareBlock } from './firewall-share-block.js';

/**
 * Rules of the Firewall section that need other stored records, pure like the network rules
 * (network-rules.ts): a write rule answers field errors, `undefined` when the change is fine.
 * On update the candidate carries its id and its own stored row is left out of the checks.
 */
export interface FirewallRows {
  networkInterface?: readonly NetworkInterface[];
  vlan?: readonly Vlan[];
  firewallPortMapping?: readonly FirewallPortMapping[];
  firewallHostMapping?: readonly FirewallHostMapping[];
  firewallDmz?: readonly FirewallDmz[];
}

function others<T extends { id: string }>(rows: readonly T[] | undefined, candidate: { id?: string }): T[] {
  return (rows ?? []).filter((row) => candidate.id === undefined || row.id !== candidate.id);
}

function isWan(rows: FirewallRows, name: string): boolean {
  return (rows.networkInterface ?? []).some((row) => row.ifname === name && row.role === 'wan');
}

function isKnownInterface(rows: FirewallRows, name: string): boolean {
  return (rows.networkInterface ?? []).some((row) => row.ifname === name) || (rows.vlan ?? []).some((row) => row.ifname === name);
}

function result(errors: FieldErrorMap): FieldErrorMap | undefined {
  return Object.keys(errors).length ? errors : undefined;
}

/** Two mappings claim the same packets when WANs, a protocol and external ports meet. */
type MappingKey = Pick<FirewallPortMapping, 'wan' | 'proto' | 'extport' | 'extport_end'>;

function mappingsMeet(a: MappingKey, b: MappingKey): boolean {
  if (a.wan !== '' && b.wan !== '' && a.wan !== b.wan) return false;
  const shared = protocolsOf(a.proto).some((p) => protocolsOf(b.proto).includes(p));
  const ra = mappingPorts(a);
  const rb = mappingPorts(b);
  return shared && ra.first <= rb.last && rb.first <= ra.last;
}

export function checkPortMappingWrite(candidate: Candidate<FirewallPortMapping>, rows: FirewallRows): RuleVerdict {
  const errors: FieldErrorMap = {};
  if (candidate.wan !== '' && !isWan(rows, candidate.wan)) errors.wan = NOT_WAN_MESSAGE;
  if (candidate.enabled && others(rows.firewallPortMapping, candidate).some((row) => row.enabled && mappingsMeet(row, candidate))) {
    errors.extport = PORT_IN_USE_MESSAGE;
  }
  return result(errors);
}

export function checkHostMappingWrite(candidate: Candidate<FirewallHostMapping>, rows: FirewallRows): RuleVerdict {
  const errors: FieldErrorMap = {};
  if (!isWan(rows, candidate.wan)) errors.wan = NOT_WAN_MESSAGE;
  const rest = others(rows.firewallHostMapping, candidate);
  if (rest.some((row) => row.public === candidate.public)) errors.public = IP_OVERLAP_MESSAGE;
  if (rest.some((row) => row.private === candidate.private && row.wan === candidate.wan)) errors.private = IP_OVERLAP_MESSAGE;
  return result(errors);
}

export function checkDmzWrite(candidate: Candidate<FirewallDmz>, rows: FirewallRows): RuleVerdict {
  const errors: FieldErrorMap = {};
  if (!isWan(rows, candidate.wan)) errors.wan = NOT_WAN_MESSAGE;
  else if (others(rows.firewallDmz, candidate).some((row) => row.wan === candidate.wan)) errors.wan = DMZ_EXISTS_MESSAGE;
  return result(errors);
}

export function checkNatWrite(candidate: Candidate<FirewallNat>, rows: FirewallRows): RuleVerdict {
  return candidate.outif !== '' && !isKnownInterface(rows, candidate.outif) ? { outif: UNKNOWN_INTERFACE_MESSAGE } : undefined;
}

export function checkAclWrite(candidate: Candidate<FirewallAcl>, rows: FirewallRows): RuleVerdict {
  return candidate.iface !== '' && !isKnownInterface(rows, candidate.iface) ? { iface: UNKNOWN_INTERFACE_MESSAGE } : undefined;
}

function checkInterfaceLists(lists: Record<string, readonly string[]>, rows: FirewallRows): RuleVerdict {
  const errors: FieldErrorMap = {};
  for (const [field, names] of Object.entries(lists)) {
    if (names.some((name) => !isKnownInterface(rows, name))) errors[field] = UNKNOWN_INTERFACE_MESSAGE;
  }
  return result(errors);
}

export function checkLanForwardWrite(candidate: FirewallLanForward, rows: FirewallRows): RuleVerdict {
  return checkInterfaceLists({ lan: candidate.lan, rejlan: candidate.rejlan }, rows);
}

export function checkShareBlockWrite(candidate: FirewallShareBlock, rows: FirewallRows): RuleVerdict {
  return checkInterfaceLists({ ifname: candidate.ifname }, rows);
}

/** The rules by entity name, for the write path: `write` runs on add and update. */
export const FIREWALL_RULES = {
  firewallPortMapping: { write: checkPortMappingWrite },
  firewallHostMapping: { write: checkHostMappingWrite },
  firewallDmz: { write: checkDmzWrite },
  firewallNat: { write: checkNatWrite },
  firewallAcl: { write: checkAclWrite },
  firewallLanForward: { write: checkLanForwardWrite },
  firewallShareBlock: { write: checkShareBlockWrite },
} as const;
