import {
  ENTITIES,
  type FirewallAcl,
  type FirewallConnLimit,
  type FirewallDmz,
  type FirewallHostMapping,
  type FirewallLanForward,
  type FirewallNat,
  type FirewallPortMapping,
  type FirewallSessionLimit,
  type FirewallShareBlock,
} from '@portico/schema';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { collectionRows, singletonRecord } from '../../config/config-domains.js';
import { singletonDefaults } from '../../config/entity-routes.js';

/** The Firewall section's configuration, typed, as its renderers take it. */
export interface FirewallConfig {
  portMappings: FirewallPortMapping[];
  nat: FirewallNat[];
  hostMappings: FirewallHostMapping[];
  acl: FirewallAcl[];
  lanForward: FirewallLanForward;
  shareBlock: FirewallShareBlock;
  sessionLimit: FirewallSessionLimit;
  connLimits: FirewallConnLimit[];
  dmz: FirewallDmz[];
}

/** Entities whose rows feed the firewall's part of the ruleset. */
export const FIREWALL_ENTITY_NAMES = [
  'firewallPortMapping',
  'firewallNat',
  'firewallHostMapping',
  'firewallAcl',
  'firewallLanForward',
  'firewallShareBlock',
  'firewallSessionLimit',
  'firewallConnLimit',
  'firewallDmz',
] as const;

function entityNamed(name: string) {
  const entity = ENTITIES.find((e) => e.name === name);
  if (!entity) throw new Error(`firewall entity ${name} is not declared`);
  return entity;
}

/** Unsaved singletons read as their declared defaults (limits of spec §9 included). */
export function firewallConfigOf(snapshot: ConfigSnapshot): FirewallConfig {
  const rows = (name: string) => collectionRows(snapshot, name) as never[];
  const single = (name: string) => ({ ...singletonDefaults(entityNamed(name)), ...(singletonRecord(snapshot, name) ?? {}) }) as never;
  return {
    portMappings: rows('firewallPortMapping'),
    nat: rows('firewallNat'),
    hostMappings: rows('firewallHostMapping'),
    acl: rows('firewallAcl'),
    lanForward: single('firewallLanForward'),
    shareBlock: single('firewallShareBlock'),
    sessionLimit: single('firewallSessionLimit'),
    connLimits: rows('firewallConnLimit'),
    dmz: rows('firewallDmz'),
  };
}
