import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import { adminUser, ENTITIES } from '@portico/schema';
import type { AppContext } from './app-context.js';
import type { Settings } from './settings.js';
import { openDatabase } from './plugins/db-open.js';
import { registerApiEnvelope } from './plugins/api-envelope.js';
import { schemaControllerOptions } from './plugins/zod-compilers.js';
import { registerSecurityGuard } from './plugins/security-guard.js';
import { registerStaticFiles } from './plugins/static-files.js';
import { registerOpenApiRoute } from './plugins/openapi-document.js';
import type { RouteEntry } from './plugins/route-policy.js';
import { AccountStore } from './domains/admin/account-store.js';
import { adminBinding } from './domains/admin/admin-entity.js';
import { SessionStore } from './domains/auth/session-store.js';
import { LoginLimiter } from './domains/auth/login-limiter.js';
import { createScryptHasher, type PasswordHasher } from './domains/auth/password-hash.js';
import { ensureInitialAdmin } from './domains/auth/initial-admin.js';
import { registerAuthRoutes } from './domains/auth/auth-routes.js';
import { registerMenuRoutes } from './domains/menu/menu-routes.js';
import { registerStatusRoutes } from './domains/status/status-routes.js';
import { registerEntityRoutes } from './domains/entity/entity-routes.js';
import { hotspotConfigBindings } from './domains/hotspot-config/hotspot-config-bindings.js';
import { registerHotspotConfigRoutes } from './domains/hotspot-config/hotspot-config-routes.js';
import type { LiveStatusSource } from './drivers/live-source.js';
import { selectLiveSource } from './drivers/driver-select.js';
import { createConfigService, type ConfigDeps } from './config/config-setup.js';
import type { ConfigService } from './config/config-service.js';
import { registerJournalRoutes } from './config/journal-routes.js';
import { registerConfirmRoutes } from './config/confirm-routes.js';
import { registerReconnectRoutes } from './domains/network/network-reconnect-routes.js';
import { registerMaintainRoutes, type MaintainDeps } from './domains/maintain/maintain-routes.js';
import { networkBindings } from './domains/network/network-domain.js';
import { firewallBindings } from './domains/firewall/firewall-bindings.js';
import { qosBindings } from './domains/qos/qos-bindings.js';
import { registerQosRoutes } from './domains/qos/qos-routes.js';
import { systemDomains } from './config/system-domains.js';
import { registerHotspot, type HotspotDeps } from './domains/hotspot/hotspot-setup.js';
import { seedFactoryNetwork } from './config/factory-defaults.js';

/** Services a caller may replace; tests pass a clock, a counting hasher or a fake live source. */
export interface AppDeps {
  now?: () => number;
  passwords?: PasswordHasher;
  live?: LiveStatusSource;
  /** Defaults to <stateDir>/portico.db; ':memory:' for a throwaway database. */
  databaseFile?: string;
  /** Receives the one line that announces a freshly generated admin password. */
  announce?: (line: string) => void;
  /** The apply pipeline's applier, domains and timer. */
  config?: ConfigDeps;
  /** The hotspot's data plane, neighbour table and credential checks. */
  hotspot?: HotspotDeps;
  /** Backup, restore, reset and reboot: tests pass a command runner that never reboots the machine. */
  maintain?: MaintainDeps;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its policy and schemas, as registered. */
    routeTable: RouteEntry[];
    appContext: AppContext;
  }
}

/** Largest JSON body accepted; configuration writes are small. */
const BODY_LIMIT = 1024 * 1024;

/**
 * Builds the daemon: plugins first (envelope, cookies, the security guard that every route
 * passes), then the domains. Returns without listening so tests drive it with app.inject().
 */
export async function buildApp(settings: Settings, deps: AppDeps = {}): Promise<FastifyInstance> {
  const now = deps.now ?? Date.now;
  mkdirSync(settings.stateDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(deps.databaseFile ?? join(settings.stateDir, 'portico.db'));
  const passwords = deps.passwords ?? createScryptHasher();
  const accounts = new AccountStore(db, now);

  let live: LiveStatusSource | undefined;
  let app: FastifyInstance | undefined;
  let config: ConfigService | undefined;
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
        deps: { ...deps.config, domains: deps.config?.domains ?? systemDomains(settings) },
        report: (error, what) => app?.log.error({ err: error }, what),
      }),
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

    registerAuthRoutes(app, ctx);
    registerMenuRoutes(app, ctx);
    registerStatusRoutes(app, ctx);
    registerQosRoutes(app, ctx);
    registerEntityRoutes(app, ctx, ENTITIES, { [adminUser.name]: adminBinding(ctx), ...networkBindings(db), ...firewallBindings(db), ...qosBindings(db), ...hotspotConfigBindings(ctx) });
    await registerHotspotConfigRoutes(app, ctx);
    registerJournalRoutes(app, ctx);
    registerConfirmRoutes(app, ctx);
    registerReconnectRoutes(app, ctx);
    await registerHotspot(app, ctx, deps.hotspot);
    await registerMaintainRoutes(app, ctx, deps.maintain);
    registerOpenApiRoute(app, routes);
    await registerStaticFiles(app, settings);

    const created = await initialAdmin;
    if (created) {
      const announce = deps.announce ?? ((line: string) => process.stdout.write(`${line}\n`));
      announce(`Initial admin password: ${created.password} (also in ${created.file})`);
    }

    seedFactoryNetwork(db, settings.factoryLanPorts, now);
    // A change left unconfirmed by the previous run is reverted or its window resumed.
    await ctx.config.resume();

    const source = live;
    const ownsLive = deps.live === undefined;
    app.addHook('onClose', async () => {
      if (ownsLive) source.stop();
      await ctx.config.stop();
      db.close();
    });
    return app;
  } catch (error) {
    await initialAdmin.catch(() => undefined);
    await config?.stop().catch(() => undefined);
    if (deps.live === undefined) live?.stop();
    await app?.close().catch(() => undefined);
    if (db.open) db.close();
    throw error;
  }
}
