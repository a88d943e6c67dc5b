import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { hotspotLocalNotice, hotspotPortal, type HotspotLocalNotice, type HotspotPortal } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import { networkConfigOf, planNetwork } from '../network/network-public.js';
import { hotspotConfigOf, HOTSPOT_ENTITIES, linesText } from './hotspot-config.js';
import { NftDataplane, SimDataplane, type HotspotDataplane } from './hotspot-dataplane.js';
import { HotspotEngine, type HotspotCredentials, type HotspotEngineOptions } from './hotspot-engine.js';
import { NftReminderRedirect, SimReminderRedirect, type ReminderRedirect } from './hotspot-reminder.js';
import { linuxNeighbours, simNeighbours, type NeighbourLookup } from './hotspot-neighbours.js';
import { buildPortalServer } from './hotspot-portal.js';
import { clientZone, type ZoneRange } from './hotspot-client-zone.js';
import { HOTSPOT_PORTAL, zoneDevices } from './hotspot-ruleset.js';
import { registerHotspotAdminRoutes } from './hotspot-admin-routes.js';
import type { HotspotConfig } from './hotspot-types.js';
import { deviceCredentials } from './hotspot-credentials.js';
import { registerSelfService } from './hotspot-self-service.js';
import { registerSmsPortal } from './sms/sms-portal.js';
import { smsSignIn } from './sms/sms-signin.js';
import { localUsers } from '../hotspot-config/hotspot-config-public.js';
import { LoginLimiter, PORTAL_GUESS_POLICY } from '../../plugins/login-limiter.js';

/** Services the hotspot uses; tests pass a data plane, neighbours and credentials. */
export interface HotspotDeps {
  dataplane?: HotspotDataplane;
  neighbours?: NeighbourLookup;
  credentials?: HotspotCredentials;
  reminders?: ReminderRedirect;
  run?: CommandRunner;
}

/** What other parts of the hotspot plug into the engine (hotspot-engine.ts extension points). */
export interface HotspotExtensions {
  outside?: HotspotEngineOptions['outside'];
  observers?: HotspotEngineOptions['observers'];
}

export interface HotspotRuntime {
  engine: HotspotEngine;
  portal: FastifyInstance;
}

declare module 'fastify' {
  interface FastifyInstance {
    hotspot: HotspotRuntime;
  }
}

/**
 * The current configuration rows, read again only when a revision has been committed since the
 * last read: every configuration write appends one in the rows' own transaction, so a zone or
 * plan the administrator just saved is what the next portal request sees.
 */
function snapshotReader(ctx: AppContext): () => ConfigSnapshot {
  let cached: { revision: number | undefined; snapshot: ConfigSnapshot } | undefined;
  return () => {
    const revision = ctx.config.journal.latestId();
    if (!cached || cached.revision !== revision) cached = { revision, snapshot: ctx.config.journal.capture() };
    return cached.snapshot;
  };
}

/**
 * The hotspot in the daemon: the engine (restored at start, saved at stop), the portal
 * listener on its own port, and the administrator's online-user routes.
 */
export async function registerHotspot(app: FastifyInstance, ctx: AppContext, deps: HotspotDeps = {}, extensions: HotspotExtensions = {}): Promise<HotspotRuntime> {
  const { settings } = ctx;
  HOTSPOT_PORTAL.port = settings.portalPort;
  const run = deps.run ?? runCommand;
  const linux = settings.driver === 'linux';
  const snapshot = snapshotReader(ctx);
  let configCache: { snapshot: ConfigSnapshot; config: HotspotConfig; zones: ZoneRange[] } | undefined;
  const current = () => {
    const snap = snapshot();
    if (configCache?.snapshot === snap) return configCache;
    const config = hotspotConfigOf(snap);
    let zones: ZoneRange[] = [];
    const network = networkConfigOf(snap);
    if (network.interfaces.length && config.zones.length) {
      const plan = planNetwork(network);
      zones = zoneDevices(config, plan).flatMap((d) => {
        const side = plan.lanSides.find((s) => s.device === d.device);
        const zone = config.zones.find((z) => z.name === d.zone);
        return side && zone ? [{ zone, gateway: d.address, first: side.address.first, last: side.address.last }] : [];
      });
    }
    configCache = { snapshot: snap, config, zones };
    return configCache;
  };

  const engine = new HotspotEngine({
    dataplane: deps.dataplane ?? (linux ? new NftDataplane(run) : new SimDataplane()),
    config: () => current().config,
    credentials: deps.credentials ?? deviceCredentials(ctx),
    now: ctx.now,
    reminders: deps.reminders ?? (linux ? new NftReminderRedirect(run) : new SimReminderRedirect()),
    stateFile: join(settings.stateDir, 'hotspot-state.json'),
    report: (error, what) => app.log.error({ err: error }, what),
    guard: new LoginLimiter(ctx.db, ctx.now, PORTAL_GUESS_POLICY),
    ...extensions,
  });

  const single = <T>(entity: { name: string; schema: unknown }): T =>
    (entity.schema as { parse(v: unknown): T }).parse(snapshot()[entity.name]?.find((r) => r.id === '')?.data ?? {});
  const neighbours = deps.neighbours ?? (linux ? linuxNeighbours(run) : simNeighbours);
  const zoneFor = (ip: string) => clientZone(current().zones, ip, settings.driver);
  const portal = await buildPortalServer({
    engine,
    portalPort: settings.portalPort,
    portalDir: settings.portalDir,
    logLevel: settings.logLevel,
    neighbours,
    zoneFor,
    files: { stateDir: settings.stateDir, customPortal: () => single<HotspotPortal>(hotspotPortal).customportal },
    notices(zone) {
      const local = single<HotspotLocalNotice>(hotspotLocalNotice);
      // An empty interface list shows the notice on every zone.
      const shownHere = local.interfaces.length === 0 || Boolean(zone?.zone.interfaces.some((name) => local.interfaces.includes(name)));
      const reminder = current().config.reminder;
      return {
        local: local.enabled && shownHere ? linesText(local.content) : '',
        expired: reminder?.content ?? '',
        renewUrl: reminder?.url ?? '',
        refresh: reminder?.refresh ?? false,
        template: reminder?.template ?? 'default',
      };
    },
  });

  registerSelfService(portal, {
    engine,
    accounts: () => localUsers(ctx),
    config: () => current().config,
    macOf: async (ip) => (zoneFor(ip) ? neighbours(ip) : null),
    now: ctx.now,
  });

  // SMS-code sign-in: the portal's send-code route.
  registerSmsPortal(portal, { sms: smsSignIn(ctx), zoneFor, neighbours });

  registerHotspotAdminRoutes(app, engine);
  const runtime: HotspotRuntime = { engine, portal };
  app.decorate('hotspot', runtime);

  // The ruleset (with the hotspot's sets) is loaded while the daemon starts; the engine
  // restores its clients into it once the app is ready.
  app.addHook('onReady', async () => {
    try {
      await engine.start();
    } catch (error) {
      app.log.error({ err: error }, 'hotspot clients could not be restored');
    }
    engine.startTimers();
    await portal.ready();
  });
  app.addHook('onListen', async () => {
    await portal.listen({ port: settings.portalPort, host: settings.host });
  });
  app.addHook('onClose', async () => {
    await portal.close();
    await engine.stop();
  });
  return runtime;
}

export { HOTSPOT_ENTITIES };
