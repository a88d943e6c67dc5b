import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { hotspotLocalNotice, hotspotPortal, type HotspotLocalNotice, type HotspotPortal } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import { networkConfigOf, planNetwork } from '../network/network-public.js';
import { hotspotConfigOf, HOTSPOT_ENTITIES, linesText } from './hotspot-config.js';
import { NftDataplane, SimDataplane, type HotspotDataplane } from './hotspot-dataplane.js';
import { HotspotEngine, type CredentialResult, type HotspotCredentials, type HotspotEngineOptions, type SessionObserver } from './hotspot-engine.js';
import { NftReminderRedirect, SimReminderRedirect, type ReminderRedirect } from './hotspot-reminder.js';
import { linuxNeighbours, simNeighbours, type NeighbourLookup } from './hotspot-neighbours.js';
import { buildPortalServer } from './hotspot-portal.js';
import { clientZone, type ZoneRange } from './hotspot-client-zone.js';
import { HOTSPOT_PORTAL, zoneDevices } from './hotspot-ruleset.js';
import { registerHotspotAdminRoutes } from './hotspot-admin-routes.js';
import { LOGIN_ERRORS, type HotspotConfig, type HotspotSession } from './hotspot-types.js';
import { deviceCredentials } from './hotspot-credentials.js';
import { registerSelfService } from './hotspot-self-service.js';
import { registerSmsPortal } from './sms/sms-portal.js';
import { smsSignIn } from './sms/sms-signin.js';
import { localUsers } from '../hotspot-config/hotspot-config-public.js';
import { LoginLimiter, PORTAL_GUESS_POLICY } from '../../plugins/login-limiter.js';
import { realScheduler, type Scheduler } from '../../config/config-types.js';
import { WifidogService, wifidogSettings } from './wifidog/wifidog-service.js';
import { CmccService, cmccSettings } from './cmcc/cmcc-service.js';
import { RusystemService, rusystemSettings } from './rusystem/rusystem-service.js';
import { CloudportalService, cloudportalSettings } from './cloudportal/cloudportal-service.js';
import { WeixinService, weixinSettings } from './weixin/weixin-service.js';
import { SocialService, socialSettings } from './social/social-service.js';
import { PORTAL_NOTICE_SOURCES } from './hotspot-public.js';

/** Services the hotspot uses; tests pass a data plane, neighbours and credentials. */
export interface HotspotDeps {
  dataplane?: HotspotDataplane;
  neighbours?: NeighbourLookup;
  credentials?: HotspotCredentials;
  reminders?: ReminderRedirect;
  run?: CommandRunner;
  /** Timers of the outside portals' loops (WiFiDog counters and heartbeats); tests fire them. */
  schedule?: Scheduler;
}

/** What other parts of the hotspot plug into the engine (hotspot-engine.ts extension points). */
export interface HotspotExtensions {
  outside?: HotspotEngineOptions['outside'];
  observers?: HotspotEngineOptions['observers'];
}

export interface HotspotRuntime {
  engine: HotspotEngine;
  portal: FastifyInstance;
  wifidog: WifidogService;
  cmcc: CmccService;
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
/** Portal sessions starting and ending, as auth log entries. */
function authLogObserver(ctx: AppContext): SessionObserver {
  const values = (session: HotspotSession) => ({ ip: session.ip, mac: session.mac, zone: session.zone, method: session.kind, account: session.account ?? '' });
  return {
    started: (session) => ctx.logs.append('auth', { level: 'info', origin: 'portal', key: 'logs.auth.portalSignedIn', values: values(session) }),
    ended: (session, reason) => ctx.logs.append('auth', { level: 'info', origin: 'portal', key: 'logs.auth.portalEnded', values: { ...values(session), reasonKey: `logs.endReason.${reason}` } }),
  };
}

export async function registerHotspot(app: FastifyInstance, ctx: AppContext, deps: HotspotDeps = {}, extensions: HotspotExtensions = {}): Promise<HotspotRuntime> {
  const { settings } = ctx;
  HOTSPOT_PORTAL.port = settings.portalPort;
  const run = deps.run ?? runCommand;
  // linux and openwrt alike: the clients are elements of `inet portico` (hotspot-openwrt.ts).
  const linux = settings.driver !== 'sim';
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

  const credentials = deps.credentials ?? deviceCredentials(ctx);
  const guard = new LoginLimiter(ctx.db, ctx.now, PORTAL_GUESS_POLICY);
  const engine = new HotspotEngine({
    dataplane: deps.dataplane ?? (linux ? new NftDataplane(run) : new SimDataplane()),
    config: () => current().config,
    credentials,
    now: ctx.now,
    reminders: deps.reminders ?? (linux ? new NftReminderRedirect(run) : new SimReminderRedirect()),
    stateFile: join(settings.stateDir, 'hotspot-state.json'),
    report: (error, what) => app.log.error({ err: error }, what),
    guard,
    ...extensions,
    // The auth log (Logs → auth): portal sign-ins, sign-outs and refusals.
    observers: [...(extensions.observers ?? []), authLogObserver(ctx)],
    refused: (client, zone, method, error) =>
      ctx.logs.append('auth', { level: 'warning', origin: 'portal', key: 'logs.auth.portalRefused', values: { ip: client.ip, mac: client.mac, zone, method, reasonKey: error } }),
  });

  const single = <T>(entity: { name: string; schema: unknown }): T =>
    (entity.schema as { parse(v: unknown): T }).parse(snapshot()[entity.name]?.find((r) => r.id === '')?.data ?? {});
  const neighbours = deps.neighbours ?? (linux ? linuxNeighbours(run) : simNeighbours);
  const zoneFor = (ip: string) => clientZone(current().zones, ip, settings.driver);
  const wifidog = new WifidogService({
    engine,
    settings: () => wifidogSettings((entity) => snapshot()[entity]?.find((r) => r.id === '')?.data),
    zoneFor,
    neighbours,
    portalPort: settings.portalPort,
    schedule: deps.schedule ?? realScheduler,
    now: ctx.now,
    report: (error, what) => app.log.warn({ err: error }, what),
  });
  const wifidogInUse = () => current().config.zones.some((z) => z.externalPortal === 'wifidog');
  // Credentials without a CHAP check (a test's) cannot sign anyone in by CHAP.
  const chapCheck = (username: string, matches: (password: string) => boolean): Promise<CredentialResult> =>
    credentials.verifyLocalUserChap?.(username, matches) ?? Promise.resolve({ ok: false, error: LOGIN_ERRORS.system });
  const cmcc = new CmccService({
    engine,
    settings: () => cmccSettings((entity) => snapshot()[entity]?.find((r) => r.id === '')?.data),
    zoneFor,
    neighbours,
    verifyLocalUser: (username, password) => credentials.verifyLocalUser(username, password),
    verifyLocalUserChap: chapCheck,
    limiter: guard,
    now: ctx.now,
    report: (error, what) => app.log.warn({ err: error }, what),
  });
  const rusystem = new RusystemService({
    engine,
    settings: () => rusystemSettings((entity) => snapshot()[entity]?.find((r) => r.id === '')?.data),
    zoneFor,
    neighbours,
    verifyLocalUser: (username, password) => credentials.verifyLocalUser(username, password),
    verifyLocalUserChap: chapCheck,
    portalPort: settings.portalPort,
    now: ctx.now,
    report: (error, what) => app.log.warn({ err: error }, what),
  });
  const cloudportal = new CloudportalService({
    engine,
    settings: () => cloudportalSettings((entity) => snapshot()[entity]?.find((r) => r.id === '')?.data),
    zoneFor,
    neighbours,
    portalPort: settings.portalPort,
    now: ctx.now,
  });
  const weixin = new WeixinService({
    engine,
    settings: () => weixinSettings((entity) => snapshot()[entity]?.find((r) => r.id === '')?.data),
    zoneFor,
    neighbours,
    portalPort: settings.portalPort,
    now: ctx.now,
  });
  const social = new SocialService({
    engine,
    settings: () => socialSettings((entity) => snapshot()[entity]?.find((r) => r.id === '')?.data),
    zoneFor,
    neighbours,
    portalPort: settings.portalPort,
    now: ctx.now,
    report: (error, what) => app.log.warn({ err: error }, what),
  });
  const cmccInUse = () => current().config.zones.some((z) => z.externalPortal === 'cmcc');
  const noticeSources = ctx.contributions(PORTAL_NOTICE_SOURCES);
  const portal = await buildPortalServer({
    engine,
    portalPort: settings.portalPort,
    portalDir: settings.portalDir,
    logLevel: settings.logLevel,
    neighbours,
    zoneFor,
    externalLogin: (zone, client, original) => {
      if (zone.zone.externalPortal === 'wifidog') return wifidog.loginUrl(zone, client, original);
      if (zone.zone.externalPortal === 'cmcc') return cmcc.loginUrl(client, original);
      if (zone.zone.externalPortal === 'rusystem') return rusystem.loginUrl(zone, client, original);
      if (zone.zone.externalPortal === 'cloudportal') return cloudportal.loginUrl(zone, client, original);
      if (zone.zone.externalPortal === 'weixin') return weixin.loginUrl(zone, client);
      if (zone.zone.externalPortal === 'social') return social.loginUrl(zone, client, original);
      return null;
    },
    noticeFor: (ip) => {
      for (const source of noticeSources) {
        const notice = source.noticeFor(snapshot(), ip);
        if (notice) return notice;
      }
      return null;
    },
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

  // WiFiDog: the auth server's return to /wifidog/auth?token= on the portal listener.
  wifidog.register(portal);
  // RU system (UAM): /logon and /logoff on the portal listener.
  rusystem.register(portal);
  // Cloud portal: the cloud's signed return to /cloudportal/auth on the portal listener.
  cloudportal.register(portal);
  // WeChat Wi-Fi: WeChat's call to authUrl, /weixin/auth on the portal listener.
  weixin.register(portal);
  // Social login (OpenID Connect): the provider's return to /auth/<provider>/callback.
  social.register(portal);

  registerHotspotAdminRoutes(app, engine);
  const runtime: HotspotRuntime = { engine, portal, wifidog, cmcc };
  app.decorate('hotspot', runtime);

  // The ruleset (with the hotspot's sets) is loaded while the daemon starts; the engine
  // restores its clients into it once the app is ready.
  let stopFollowing = () => {};
  app.addHook('onReady', async () => {
    try {
      await engine.start();
    } catch (error) {
      app.log.error({ err: error }, 'hotspot clients could not be restored');
    }
    engine.startTimers();
    await portal.ready();
    // The WiFiDog gateway and the CMCC access controller follow the saved zones and sections: checked now, every few seconds
    // (the snapshot is re-read only after a commit) and on each captive request of its zones.
    const follow = () => {
      try {
        wifidog.sync(wifidogInUse());
      } catch (error) {
        app.log.error({ err: error }, 'wifidog could not be started');
      }
      cmcc
        .sync(cmccInUse())
        .then(() => cmcc.releaseEnded())
        .catch((error) => app.log.error({ err: error }, 'cmcc access controller failed'));
    };
    follow();
    const timer = setInterval(follow, 5000);
    timer.unref();
    stopFollowing = () => clearInterval(timer);
  });
  app.addHook('onListen', async () => {
    await portal.listen({ port: settings.portalPort, host: settings.host });
  });
  app.addHook('onClose', async () => {
    stopFollowing();
    wifidog.stop();
    await cmcc.stop();
    await portal.close();
    await engine.stop();
  });
  return runtime;
}

export { HOTSPOT_ENTITIES };
