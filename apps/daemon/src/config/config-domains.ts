import type { RenderOutput } from '../engine/engine-types.js';
import type { ConfigDomain, ConfigSnapshot } from './config-types.js';

/** Entities of the network domain (packages/schema/src/network): rendered together. */
export const NETWORK_ENTITY_NAMES = [
  'networkInterface',
  'dhcpServer',
  'dhcpStatic',
  'staticRoute',
  'arpBind',
  'arpAuth',
  'vlan',
  'multiWan',
  'portAttribute',
  'iptv',
  'vpnClient',
] as const;

/**
 * The domains the daemon knows. A domain without `render` is journalled and reverted like
 * any other, but applying it puts nothing on the system yet.
 */
export const DEFAULT_DOMAINS: readonly ConfigDomain[] = [{ name: 'network', entities: NETWORK_ENTITY_NAMES }];

/** Maps entity names to the domains they feed and domains to their renderers. */
export class DomainRegistry {
  private readonly byName = new Map<string, ConfigDomain>();
  private readonly byEntity = new Map<string, string[]>();

  constructor(domains: readonly ConfigDomain[]) {
    for (const domain of domains) {
      if (this.byName.has(domain.name)) throw new Error(`config domain ${domain.name} is declared twice`);
      this.byName.set(domain.name, domain);
      for (const entity of domain.entities) {
        const list = this.byEntity.get(entity) ?? [];
        list.push(domain.name);
        this.byEntity.set(entity, list);
      }
    }
  }

  /** Domains fed by any of the entities, in declaration order; entities of no domain add none. */
  domainsOf(entities: Iterable<string>): string[] {
    const wanted = new Set<string>();
    for (const entity of entities) for (const name of this.byEntity.get(entity) ?? []) wanted.add(name);
    return [...this.byName.keys()].filter((name) => wanted.has(name));
  }

  /** Every domain that renders something, in declaration order. */
  renderable(): string[] {
    return [...this.byName.values()].filter((domain) => domain.render).map((domain) => domain.name);
  }

  get(name: string): ConfigDomain | undefined {
    return this.byName.get(name);
  }

  /** Everything the named domains render from the snapshot, in domain order. */
  render(domains: readonly string[], snapshot: ConfigSnapshot): RenderOutput[] {
    return domains.flatMap((name) => this.byName.get(name)?.render?.(snapshot) ?? []);
  }
}

/** The rows of one collection entity in a snapshot. */
export function collectionRows(snapshot: ConfigSnapshot, entity: string): Array<Record<string, unknown>> {
  return (snapshot[entity] ?? []).map((row) => row.data);
}

/** The record of one singleton entity in a snapshot, undefined until first saved. */
export function singletonRecord(snapshot: ConfigSnapshot, entity: string): Record<string, unknown> | undefined {
  return snapshot[entity]?.find((row) => row.id === '')?.data;
}
