import { adminUser } from '@portico/schema';
import type { Settings } from '../settings.js';
import type { Db } from '../plugins/db-open.js';
import type { AccountStore } from '../plugins/account-store.js';
import type { SessionStore } from '../plugins/session-store.js';
import { runCommand } from '../engine/command-runner.js';
import { accountAccess } from './account-access.js';
import type { DomainRegistry } from './config-domains.js';
import { ConfigService } from './config-service.js';
import type { ConfigApplier, ConfigDomain, Scheduler } from './config-types.js';
import { createLinuxApplier } from './apply-linux.js';
import { createSimApplier } from './apply-sim.js';
import { createOpenwrtApplier } from './apply-openwrt.js';

/** What a caller (a test) may replace in the apply pipeline. */
export interface ConfigDeps {
  applier?: ConfigApplier;
  /** Config domains of the test's own, in place of the modules'. */
  domains?: readonly ConfigDomain[];
  schedule?: Scheduler;
}

/** The applier of the configured driver. */
export function selectApplier(settings: Settings, domains: DomainRegistry): ConfigApplier {
  if (settings.driver === 'linux') return createLinuxApplier({ root: settings.systemRoot, run: runCommand, domains });
  if (settings.driver === 'openwrt') return createOpenwrtApplier({ root: settings.systemRoot, run: runCommand, domains });
  return createSimApplier({ stateDir: settings.stateDir, domains });
}

export function createConfigService(options: {
  settings: Settings;
  db: Db;
  now: () => number;
  accounts: AccountStore;
  sessions: SessionStore;
  /** The config domains, formats and activations of the domain modules. */
  registry: DomainRegistry;
  deps?: ConfigDeps;
  report: (error: unknown, what: string) => void;
}): ConfigService {
  const { settings, deps = {} } = options;
  const domains = options.registry;
  return new ConfigService({
    db: options.db,
    now: options.now,
    domains,
    applier: deps.applier ?? selectApplier(settings, domains),
    confirmSeconds: settings.confirmSeconds,
    schedule: deps.schedule,
    // Admin accounts live in admin_users, outside the snapshots.
    journalOnly: { [adminUser.name]: accountAccess(options.accounts, options.sessions) },
    report: options.report,
  });
}
