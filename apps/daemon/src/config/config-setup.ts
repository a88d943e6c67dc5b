import { adminUser } from '@portico/schema';
import type { Settings } from '../settings.js';
import type { Db } from '../plugins/db-open.js';
import type { AccountStore } from '../domains/admin/account-store.js';
import type { SessionStore } from '../domains/auth/session-store.js';
import { runCommand } from '../engine/command-runner.js';
import { accountAccess } from './account-access.js';
import { DEFAULT_DOMAINS, DomainRegistry } from './config-domains.js';
import { ConfigService } from './config-service.js';
import type { ConfigApplier, ConfigDomain, Scheduler } from './config-types.js';
import { createLinuxApplier } from './apply-linux.js';
import { createSimApplier } from './apply-sim.js';
import { createOpenwrtApplier } from './apply-openwrt.js';
import { factoryPortsOf, seedFactoryNetwork } from './factory-defaults.js';

/** What a caller (a test) may replace in the apply pipeline. */
export interface ConfigDeps {
  applier?: ConfigApplier;
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
  deps?: ConfigDeps;
  report: (error: unknown, what: string) => void;
}): ConfigService {
  const { settings, deps = {} } = options;
  // The configuration starts from the factory network on a first start (WANs and LAN, per the
  // settings), before anything reads or applies it.
  seedFactoryNetwork(options.db, factoryPortsOf(settings), options.now);
  const domains = new DomainRegistry(deps.domains ?? DEFAULT_DOMAINS);
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
