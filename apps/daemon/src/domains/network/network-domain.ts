import { ENTITIES, INTERFACE_USER_ENTITIES, MSG, NETWORK_RULES, type NetworkRows } from '@portico/schema';
import type { Db } from '../../plugins/db-open.js';
import { failure } from '../../plugins/api-envelope.js';
import type { Settings } from '../../settings.js';
import type { ConfigDomain, ConfigSnapshot } from '../../config/config-types.js';
import { collectionRows, singletonRecord } from '../../config/config-domains.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import type { EntityRow } from '../../config/entity-store.js';
import { DEFAULT_RENDER_OPTIONS, NETWORK_ENTITY_NAMES, type NetworkConfig } from './network-config.js';
import { renderNetwork } from './network-render.js';
import { renderOpenwrtNetwork } from './network-openwrt.js';
import { openwrtDevicePlan, planNetwork } from './network-plan.js';
import type { RulesetContributor, RulesetPart } from './network-ruleset-parts.js';

const SINGLETONS = new Set(['arpAuth', 'iptv']);

function entityNamed(name: string) {
  const entity = ENTITIES.find((e) => e.name === name);
  if (!entity) throw new Error(`network entity ${name} is not declared`);
  return entity;
}

/** The renderer's typed configuration from a snapshot; unsaved singletons read as their defaults. */
export function networkConfigOf(snapshot: ConfigSnapshot): NetworkConfig {
  const rows = (name: string) => collectionRows(snapshot, name) as never[];
  const single = (name: string) => (singletonRecord(snapshot, name) ?? singletonDefaults(entityNamed(name))) as never;
  return {
    interfaces: rows('networkInterface'),
    vlans: rows('vlan'),
    dhcpServers: rows('dhcpServer'),
    dhcpStatic: rows('dhcpStatic'),
    staticRoutes: rows('staticRoute'),
    arpBinds: rows('arpBind'),
    arpAuth: single('arpAuth'),
    multiWan: rows('multiWan'),
    portAttributes: rows('portAttribute'),
    iptv: single('iptv'),
    vpnClients: rows('vpnClient'),
  };
}

/**
 * The network domain of the config engine: its entities and its renderer. The console's own
 * port is always among the admin ports the LAN may reach, so the firewall never locks the
 * console out of the address it is served on.
 *
 * `contributors` (firewall, Smart QoS, hotspot) add their parts to the one nftables ruleset;
 * their entities join this domain so a change to them re-renders it. On OpenWrt they give
 * their own files (fw4 includes, UCI), installed after the network's.
 */
export function networkDomain(
  settings: Pick<Settings, 'port' | 'systemRoot'> & { driver?: Settings['driver'] },
  contributors: readonly RulesetContributor[] = [],
): ConfigDomain {
  const adminPorts = [...new Set([settings.port, ...DEFAULT_RENDER_OPTIONS.adminPorts])];
  const systemRoot = settings.systemRoot === '/' ? '' : settings.systemRoot.replace(/\/+$/, '');
  return {
    name: 'network',
    entities: [...new Set([...NETWORK_ENTITY_NAMES, ...contributors.flatMap((c) => c.entities)])],
    keepInstalled: noInterface,
    render: (snapshot) => {
      const config = networkConfigOf(snapshot);
      // A device with no interface configured yet is left as it is: a drop-policy ruleset with
      // no LAN would cut off the only way in to configure it.
      if (config.interfaces.length === 0) return [];
      if (settings.driver === 'openwrt') {
        // Contributors name WAN devices as netifd does (a PPPoE session is `pppoe-<name>`).
        const plan = openwrtDevicePlan(planNetwork(config));
        const extra = contributors.flatMap((c) => c.openwrt?.(snapshot, plan) ?? []);
        const sections = contributors.flatMap((c) => c.openwrtDhcp?.(snapshot, plan) ?? []);
        const lanOptions = contributors.flatMap((c) => c.openwrtLanDhcpOptions?.(snapshot) ?? []);
        return [...renderOpenwrtNetwork(config, { sections, lanOptions }), ...extra];
      }
      const partsOf = (plan: Parameters<RulesetContributor['part']>[1]) =>
        contributors.map((c) => c.part(snapshot, plan)).filter((part): part is RulesetPart => part !== null);
      return renderNetwork(config, { ...DEFAULT_RENDER_OPTIONS, adminPorts, systemRoot }, partsOf);
    },
  };
}

/** A device with no interface configured yet: its domains leave the system as it is. */
export function noInterface(snapshot: ConfigSnapshot): boolean {
  return collectionRows(snapshot, 'networkInterface').length === 0;
}

/** Stored rows of every network entity, for the cross-record rules. */
export function readNetworkRows(db: Db): NetworkRows {
  const out: Record<string, EntityRow[]> = {};
  const names = [...NETWORK_ENTITY_NAMES, ...INTERFACE_USER_ENTITIES];
  const rows = db
    .prepare(`SELECT entity, id, data FROM config_rows WHERE entity IN (${names.map(() => '?').join(',')}) ORDER BY rowid`)
    .all(...names) as Array<{ entity: string; id: string; data: string }>;
  for (const row of rows) {
    const data = JSON.parse(row.data) as EntityRow;
    (out[row.entity] ??= []).push(SINGLETONS.has(row.entity) ? data : { ...data, id: row.id });
  }
  return out as NetworkRows;
}

function verdictReply(verdict: Record<string, string> | string | undefined) {
  if (verdict === undefined) return undefined;
  if (typeof verdict === 'string') return failure(verdict);
  return failure(MSG.invalid, verdict);
}

/** The spec §5 cross-record rules (packages/schema/src/network/network-rules.ts) on the write path. */
export function networkBindings(db: Db): Record<string, EntityBinding> {
  const bindings: Record<string, EntityBinding> = {};
  for (const [name, rules] of Object.entries(NETWORK_RULES)) {
    const write = rules.write as (candidate: never, rows: NetworkRows) => Record<string, string> | string | undefined;
    const remove = 'delete' in rules ? (rules.delete as (rows: never[], all: NetworkRows) => string | undefined) : undefined;
    bindings[name] = {
      rules: {
        checkWrite: (change) => {
          const candidate = { ...(change.previous ?? {}), ...change.record };
          return verdictReply(write(candidate as never, readNetworkRows(db)));
        },
        ...(remove ? { checkDelete: (rows: EntityRow[]) => verdictReply(remove(rows as never[], readNetworkRows(db))) } : {}),
      },
    };
  }
  return bindings;
}
