import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import { ENTITIES } from '@portico/schema';
import type { AppContext } from './app-context.js';
import type { Settings } from './settings.js';
import { migrateModule, openDatabase } from './plugins/db-open.js';
import { registerApiEnvelope } from './plugins/api-envelope.js';
import { schemaControllerOptions } from './plugins/zod-compilers.js';
import { registerSecurityGuard } from './plugins/security-guard.js';
import { registerStaticFiles } from './plugins/static-files.js';
import { registerWebSocketUpgrades } from './plugins/websocket-upgrade.js';
import { registerOpenApiRoute } from './plugins/openapi-document.js';
import type { RouteEntry } from './plugins/route-policy.js';
import { AccountStore } from './plugins/account-store.js';
import { SessionStore } from './plugins/session-store.js';
import { LoginLimiter } from './plugins/login-limiter.js';
import { createScryptHasher, type PasswordHasher } from './plugins/password-hash.js';
import { ensureInitialAdmin } from './plugins/initial-admin.js';
import type { LiveStatusSource } from './drivers/live-source.js';
import { selectLiveSource } from './drivers/driver-select.js';
import { createConfigService, type ConfigDeps } from './config/config-setup.js';
import type { ConfigService } from './config/config-service.js';
import { registerEntityRoutes } from './config/entity-routes.js';
import { registerJournalRoutes } from './config/journal-routes.js';
import { registerConfirmRoutes } from './config/confirm-routes.js';
import { registryOf } from './config/config-domains.js';
import { LogBook } from './config/log-book.js';
import { SignalBus } from './config/domain-signals.js';
import type { CappedLogLimits } from './engine/capped-log.js';
import { collectBackupParts, collectContributions, withUnavailablePages, type DomainModule, type RuntimeService } from './config/domain-module.js';
import { DOMAIN_MODULES, type DomainDeps } from './domain-list.js';

/** Services a caller may replace; tests pass a clock, a counting hasher or a fake live source. */
export interface AppDeps extends DomainDeps {
  now?: () => number;
  passwords?: PasswordHasher;
  live?: LiveStatusSource;
  /** Defaults to <stateDir>/portico.db; ':memory:' for a throwaway database. */
  databaseFile?: string;
  /** Receives the one line that announces a freshly generated admin password. */
  announce?: (line: string) => void;
  /** The apply pipeline's applier, domains and timer. */
  config?: ConfigDeps;
  /** Size caps of the logs the daemon writes (tests make them small). */
  logLimits?: CappedLogLimits;
  /** The domain modules (all of DOMAIN_MODULES by default). */
  modules?: readonly DomainModule<never>[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its policy and schemas, as registered. */
    routeTable: RouteEntry[];
    appContext: AppContext;
  }
}

/**
 * A domain's routes serve only the pages (menu modules) it declares: page permissions and
 * disabled modules are data a reader can trust, like the policy every route must carry.
 */
function assertDeclaredPages(module: DomainModule<never>, added: readonly RouteEntry[]): void {
  const declared = new Set(module.pages ?? []);
  for (const route of added) {
    const pages = route.policy ? [route.policy.module].flat() : [];
    const undeclared = pages.filter((page) => !declared.has(page));
    if (undeclared.length) throw new Error(`domain ${module.name} registers ${route.method} ${route.url} for page ${undeclared.join(', ')}, which it does not declare`);
  }
}

/** Largest JSON body accepted; configuration writes are small. */
const BODY_LIMIT = 1024 * 1024;

/**
 * Builds the daemon: plugins first (envelope, cookies, the security guard that every route
 * passes), then the domains. Returns without listening so tests drive it with app.inject().
 */
export async function buildApp(given: Settings, deps: AppDeps = {}): Promise<FastifyInstance> {
  const now = deps.now ?? Date.now;
  const modules = deps.modules ?? DOMAIN_MODULES;
  // Pages the driver cannot offer are switched off like PORTICO_DISABLED_MODULES.
  const settings = withUnavailablePages(modules, given);
  mkdirSync(settings.stateDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(deps.databaseFile ?? join(settings.stateDir, 'portico.db'));
  const passwords = deps.passwords ?? createScryptHasher();
  const accounts = new AccountStore(db, now);
  for (const module of modules) if (module.migrations) migrateModule(db, module.name, module.migrations);

  let live: LiveStatusSource | undefined;
  let app: FastifyInstance | undefined;
  let config: ConfigService | undefined;
  // Services of the modules registered so far: a start that fails stops them again.
  const services: RuntimeService[] = [];
  // The first start hashes the generated password on the thread pool while the routes are built.
  const initialAdmin = ensureInitialAdmin(accounts, passwords, settings.stateDir);
  // Awaited below; until then a failure must not count as an unhandled rejection.
  initialAdmin.catch(() => undefined);
  try {
    live = deps.live ?? (await selectLiveSource(settings, now));
    const sessions = new SessionStore(db, { idleMs: settings.sessionIdle * 1000, maxMs: settings.sessionMax * 1000 });
    const ctx: AppContext = {
      settings,
      db,
      now,
      accounts,
      sessions,
      limiter: new LoginLimiter(db, now),
      passwords,
      live,
      config: createConfigService({
        settings,
        db,
        now,
        accounts,
        sessions,
        registry: registryOf(modules, settings, deps.config?.domains),
        deps: deps.config,
        report: (error, what) => app?.log.error({ err: error }, what),
      }),
      backupParts: collectBackupParts(modules),
      logs: new LogBook(join(settings.stateDir, 'logs'), now, deps.logLimits, (error) => app?.log.error({ err: error }, 'log entry not written')),
      signals: new SignalBus((error, signal) => app?.log.warn({ err: error, signal }, 'a signal follower failed')),
      contributions: collectContributions(modules, settings),
    };
    config = ctx.config;

    app = Fastify({
      logger: { level: settings.logLevel },
      // One line per request would drown the log on a busy gateway; errors are still logged.
      logController: new LogController({ disableRequestLogging: true }),
      bodyLimit: BODY_LIMIT,
      schemaController: schemaControllerOptions as never,
      ...(settings.tlsCert && settings.tlsKey
        ? { https: { cert: readFileSync(settings.tlsCert), key: readFileSync(settings.tlsKey) } }
        : {}),
    }) as unknown as FastifyInstance;

    const routes: RouteEntry[] = [];
    app.decorate('routeTable', routes);
    app.decorate('appContext', ctx);
    registerApiEnvelope(app);
    // Cookies are parsed by an onRequest hook that must run before the guard's.
    await app.register(fastifyCookie);
    registerSecurityGuard(app, ctx, routes);
    registerWebSocketUpgrades(app);

    const bindings = Object.assign({}, ...modules.map((module) => module.bindings?.(ctx) ?? {}));
    registerEntityRoutes(app, ctx, ENTITIES, bindings);
    registerJournalRoutes(app, ctx);
    registerConfirmRoutes(app, ctx);
    for (const module of modules) module.seed?.(ctx);
    for (const module of modules) {
      const before = routes.length;
      const service = await module.register?.(app, ctx, (deps as Record<string, never>)[module.name]);
      if (service) services.push(service);
      assertDeclaredPages(module, routes.slice(before));
    }
    registerOpenApiRoute(app, routes);
    await registerStaticFiles(app, settings);

    const created = await initialAdmin;
    if (created) {
      const announce = deps.announce ?? ((line: string) => process.stdout.write(`${line}\n`));
      announce(`Initial admin password: ${created.password} (also in ${created.file})`);
    }

    // A change left unconfirmed by the previous run is reverted or its window resumed.
    await ctx.config.resume();

    const source = live;
    const ownsLive = deps.live === undefined;
    app.addHook('onClose', async () => {
      for (const service of services.reverse()) await service.stop();
      if (ownsLive) source.stop();
      await ctx.config.stop();
      ctx.logs.close();
      db.close();
    });
    return app;
  } catch (error) {
    await initialAdmin.catch(() => undefined);
    for (const service of services.reverse()) await service.stop().catch(() => undefined);
    await config?.stop().catch(() => undefined);
    if (deps.live === undefined) live?.stop();
    await app?.close().catch(() => undefined);
    if (db.open) db.close();
    throw error;
  }
}
