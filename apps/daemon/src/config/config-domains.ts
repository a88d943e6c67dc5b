import type { RenderOutput } from '../engine/engine-types.js';
import { FormatRegistry, type FileFormat } from '../engine/file-format.js';
import type { DomainFiles } from '../engine/file-install.js';
import type { Settings } from '../settings.js';
import type { ConfigDomain, ConfigSnapshot } from './config-types.js';
import { collectContributions, type ActivationTarget, type DomainModule, type DriverEnv, type TargetActivation } from './domain-module.js';

type ActivationFactories = Partial<Record<ActivationTarget, (env: DriverEnv) => TargetActivation>>;

/** What the apply pipeline takes from the domain modules besides their config domains. */
export interface PipelineParts {
  formats?: readonly FileFormat[];
  activations?: readonly ActivationFactories[];
}

/** Maps entity names to the domains they feed, domains to their renderers, formats to checkers. */
export class DomainRegistry {
  private readonly byName = new Map<string, ConfigDomain>();
  private readonly byEntity = new Map<string, string[]>();
  readonly formats: FormatRegistry;
  private readonly activationFactories: readonly ActivationFactories[];

  constructor(domains: readonly ConfigDomain[], parts: PipelineParts = {}) {
    for (const domain of domains) {
      if (this.byName.has(domain.name)) throw new Error(`config domain ${domain.name} is declared twice`);
      this.byName.set(domain.name, domain);
      for (const entity of domain.entities) {
        const list = this.byEntity.get(entity) ?? [];
        list.push(domain.name);
        this.byEntity.set(entity, list);
      }
    }
    this.formats = new FormatRegistry(parts.formats ?? []);
    this.activationFactories = parts.activations ?? [];
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

  /** What each named domain renders, for the install manifest (null: left as installed). */
  renderEach(domains: readonly string[], snapshot: ConfigSnapshot): Array<{ domain: string; outputs: RenderOutput[] | null }> {
    return domains.flatMap((name) => {
      const domain = this.byName.get(name);
      if (!domain?.render) return [];
      return [{ domain: name, outputs: domain.keepInstalled?.(snapshot) ? null : domain.render(snapshot) }];
    });
  }

  /** Every module's activation on one target, built for one applier. */
  activations(target: ActivationTarget, env: DriverEnv): TargetActivation[] {
    return this.activationFactories.flatMap((factories) => (factories[target] ? [factories[target](env)] : []));
  }
}

/** The files of each rendered domain, as the installer takes them. */
export function domainFiles(rendered: ReadonlyArray<{ domain: string; outputs: RenderOutput[] | null }>): DomainFiles[] {
  return rendered.map(({ domain, outputs }) => ({ domain, files: outputs === null ? null : outputs.flatMap((output) => output.files) }));
}

/**
 * The apply pipeline of a list of domain modules: config domains, formats and activations.
 * `domains` replaces the modules' config domains (a test's own).
 */
export function registryOf(modules: readonly DomainModule<never>[], settings: Settings, domains?: readonly ConfigDomain[]): DomainRegistry {
  const env = { settings, contributions: collectContributions(modules, settings) };
  return new DomainRegistry(
    domains ?? modules.flatMap((module) => module.configDomains?.(env) ?? []),
    {
      formats: modules.flatMap((module) => module.formats ?? []),
      activations: modules.flatMap((module) => (module.activation ? [module.activation] : [])),
    },
  );
}

/** The rows of one collection entity in a snapshot. */
export function collectionRows(snapshot: ConfigSnapshot, entity: string): Array<Record<string, unknown>> {
  return (snapshot[entity] ?? []).map((row) => row.data);
}

/** The record of one singleton entity in a snapshot, undefined until first saved. */
export function singletonRecord(snapshot: ConfigSnapshot, entity: string): Record<string, unknown> | undefined {
  return snapshot[entity]?.find((row) => row.id === '')?.data;
}
