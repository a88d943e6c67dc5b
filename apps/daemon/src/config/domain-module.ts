import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { Settings } from '../settings.js';
import type { CommandRunner } from '../engine/command-runner.js';
import type { RenderedFile } from '../engine/engine-types.js';
import type { FileFormat } from '../engine/file-format.js';
import type { EntityBinding } from './entity-routes.js';
import type { ConfigDomain } from './config-types.js';
import { BACKUP_PART_NAME, type BackupPart } from './backup-part.js';
import type { ModuleMigration } from '../plugins/db-open.js';

/**
 * The domain-module contract: what the daemon needs of a domain, as data and functions. The
 * daemon walks one ordered list of modules (src/domain-list.ts); nothing in engine, config,
 * plugins or drivers names a domain. apps/daemon/README.md has a worked example.
 */

/** Drivers that make configuration live; `sim` only keeps the rendered files. */
export type ActivationTarget = 'linux' | 'openwrt';

/**
 * A typed slot one domain opens and others fill, e.g. the network domain's "parts of the one
 * nftables ruleset". The opener declares it in its public face; contributors import it.
 */
export interface ExtensionPoint<T> {
  readonly id: string;
  /** Carries T for the type checker only. */
  readonly type?: (value: T) => void;
}

export function extensionPoint<T>(id: string): ExtensionPoint<T> {
  return { id };
}

export interface Contribution {
  point: ExtensionPoint<never>;
  value: unknown;
}

export function contribute<T>(point: ExtensionPoint<T>, value: T): Contribution {
  return { point: point as ExtensionPoint<never>, value };
}

/** What a module's renderers are built with. */
export interface RenderEnv {
  settings: Settings;
  /** Every value contributed to the point, in domain-list order. */
  contributions<T>(point: ExtensionPoint<T>): T[];
}

/** What activation works with on a device: where files are, how commands run. */
export interface DriverEnv {
  root: string;
  run: CommandRunner;
  /** Prepended to the commands of supervised services (the lab runs them inside a namespace). */
  spawnPrefix?: readonly string[];
  report?: (error: unknown) => void;
}

/** A service reload an installed file calls for on OpenWrt (its procd init script). */
export interface ServiceReload {
  argv: readonly string[];
  /** From an optional package: without its init script the file is kept and nothing runs. */
  optional?: boolean;
}

/** How one module makes its files live on one target. */
export interface TargetActivation {
  /** By format name or by target path (path wins): makes a changed, installed file live. */
  activate?: Readonly<Record<string, (file: RenderedFile, path: string) => Promise<void>>>;
  /**
   * OpenWrt: the service that reads an installed file, or the services in order when several
   * read it (/etc/config/system: `system` and `sysntpd`); each is reloaded once per apply.
   */
  reloadFor?(target: string): ServiceReload | readonly ServiceReload[] | undefined;
  /** After each apply that made files live, with those files in order. */
  afterPass?(live: readonly RenderedFile[]): Promise<void>;
  /** network/reconnect: resolves undefined when this module does not run that WAN. */
  reconnect?(wan: string): Promise<boolean | undefined>;
  stop?(): Promise<void>;
}

/** A runtime service a module starts with the daemon (hotspot engine, AP controller). */
export interface RuntimeService {
  stop(): Promise<void>;
}

export interface DomainModule<Deps = never> {
  /** Unique, kebab-case: the folder name under src/domains. */
  name: string;
  /** Menu modules (page permissions) whose routes this domain registers. */
  pages?: readonly string[];
  /** Capability tokens the domain's pages need (`vlan`, `nas` …); informational for the menu. */
  capabilities?: readonly string[];
  /**
   * Pages of the domain this device cannot offer (its driver lacks what they need): left out of
   * the menu like PORTICO_DISABLED_MODULES; the domain still refuses their writes itself.
   */
  unavailablePages?(settings: Settings): readonly string[];
  /** File formats the domain renders, with their checkers. */
  formats?: readonly FileFormat[];
  /** Values the domain adds to other domains' extension points. */
  contributions?(settings: Settings): readonly Contribution[];
  /** Slices of configuration rendered and applied together, in apply order. */
  configDomains?(env: RenderEnv): readonly ConfigDomain[];
  /** How the domain's files become live, per target. */
  activation?: Partial<Record<ActivationTarget, (env: DriverEnv) => TargetActivation>>;
  /** Stores and write rules of its entities for the generic entity routes. */
  bindings?(ctx: AppContext): Record<string, EntityBinding>;
  /** Its own tables: schema changes run once each, in order, when the database opens. */
  migrations?: readonly ModuleMigration[];
  /** Its part of the configuration backup: what it keeps outside config_rows (own tables, key files). */
  backup?: BackupPart;
  /** Runs once before routes are registered, after the database is open (first-start rows). */
  seed?(ctx: AppContext): void;
  /** Registers its routes and starts its runtime services; `deps` are a test's replacements. */
  register?(app: FastifyInstance, ctx: AppContext, deps: Deps | undefined): void | RuntimeService | Promise<void | RuntimeService>;
}

/**
 * Declares a module; the identity function keeps its literal name and the type of its
 * `register`'s deps for the domain list (src/domain-list.ts `DomainDeps`).
 */
export function defineDomain<const Name extends string, Deps = never>(module: DomainModule<Deps> & { name: Name }): DomainModule<Deps> & { name: Name } {
  return module;
}

/** The services a module's `reloadFor` names for a file, as a list (none, one or several). */
export function reloadList(reload: ServiceReload | readonly ServiceReload[] | undefined): readonly ServiceReload[] {
  if (reload === undefined) return [];
  return 'argv' in reload ? [reload] : reload;
}

/** A file's activation handler among the modules': by target first, then by format. */
export type HandlerLookup = (file: RenderedFile) => ((file: RenderedFile, path: string) => Promise<void>) | undefined;

/** One table of every module's handlers; two modules claiming one key is a programming error. */
export function activationHandlers(activations: readonly TargetActivation[]): HandlerLookup {
  const handlers = new Map<string, (file: RenderedFile, path: string) => Promise<void>>();
  for (const activation of activations) {
    for (const [key, handler] of Object.entries(activation.activate ?? {})) {
      if (handlers.has(key)) throw new Error(`two modules activate ${key}`);
      handlers.set(key, handler);
    }
  }
  return (file) => handlers.get(file.target) ?? handlers.get(file.check);
}

/** Contributions of every module, by extension point, in list order. */
export function collectContributions(modules: readonly DomainModule<never>[], settings: Settings): RenderEnv['contributions'] {
  const byPoint = new Map<string, unknown[]>();
  for (const module of modules) {
    for (const { point, value } of module.contributions?.(settings) ?? []) {
      const list = byPoint.get(point.id) ?? [];
      list.push(value);
      byPoint.set(point.id, list);
    }
  }
  return <T>(point: ExtensionPoint<T>) => (byPoint.get(point.id) ?? []) as T[];
}

/** The settings with every module's unavailable pages among the disabled modules. */
export function withUnavailablePages(modules: readonly DomainModule<never>[], settings: Settings): Settings {
  const pages = modules.flatMap((module) => module.unavailablePages?.(settings) ?? []);
  return pages.length ? { ...settings, disabledModules: new Set([...settings.disabledModules, ...pages]) } : settings;
}

/** The backup parts of the modules, by module name, in list order. */
export function collectBackupParts(modules: readonly DomainModule<never>[]): ReadonlyMap<string, BackupPart> {
  const parts = new Map<string, BackupPart>();
  for (const module of modules) {
    if (!module.backup) continue;
    if (!BACKUP_PART_NAME.test(module.name)) throw new Error(`module ${module.name} cannot name a backup part`);
    parts.set(module.name, module.backup);
  }
  return parts;
}
