import {
  durationSeconds,
  hotspotCmcc,
  hotspotRusystem,
  hotspotCloudportal,
  hotspotWeixin,
  hotspotSocial,
  hotspotWifidog,
  isIpv4,
  hotspotAccounting,
  hotspotBlacklist,
  hotspotPlan,
  hotspotPortal,
  hotspotReminder,
  hotspotTerms,
  hotspotWhitelist,
  hotspotZone,
  SECONDS_PER_UNIT,
  type HotspotAccounting,
  type HotspotListEntry,
  type HotspotPlan as HotspotPlanRow,
  type HotspotPortal,
  type HotspotReminder,
  type HotspotTerms,
  type HotspotZone as HotspotZoneRow,
} from '@portico/schema';
import { WECHAT_HOSTS } from './weixin/weixin-sign.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { PORTAL_AUTH_MODELS, PORTAL_METHOD_OF, type ExternalPortal, type HotspotConfig, type HotspotPlan, type HotspotZone, type PortalAuthModel, type ReminderSettings } from './hotspot-types.js';

/** Auth models whose zones sign in on the built-in portal with the model's one method. */
function isPortalAuthModel(model: string): model is PortalAuthModel {
  return (PORTAL_AUTH_MODELS as readonly string[]).includes(model);
}

const EXTERNAL_PORTALS: readonly string[] = ['wifidog', 'cmcc', 'rusystem', 'cloudportal', 'weixin', 'social'] satisfies ExternalPortal[];
/** Auth models whose zones sign in on an outside portal server the gateway redirects to. */
function isExternalPortal(model: string): model is ExternalPortal {
  return EXTERNAL_PORTALS.includes(model);
}

/**
 * Reads the hotspot configuration entities of a snapshot (packages/schema/src/hotspot) into
 * the engine's shapes (hotspot-types.ts). The rows were validated on the write path; singletons
 * not saved yet read as their schema defaults.
 */

/** Entities the hotspot's ruleset part is made from; a change to one re-renders it. */
export const HOTSPOT_ENTITIES = {
  zone: hotspotZone.name,
  portal: hotspotPortal.name,
  terms: hotspotTerms.name,
  plan: hotspotPlan.name,
  accounting: hotspotAccounting.name,
  whiteList: hotspotWhitelist.name,
  blackList: hotspotBlacklist.name,
  // Its port is where the ruleset sends clients to remind.
  reminder: hotspotReminder.name,
  // Their servers are reachable before sign-in (outsidePortalHosts).
  wifidog: hotspotWifidog.name,
  cmcc: hotspotCmcc.name,
  rusystem: hotspotRusystem.name,
  cloudportal: hotspotCloudportal.name,
  weixin: hotspotWeixin.name,
  social: hotspotSocial.name,
} as const;

function hostOf(url: string): string {
  try {
    return url === '' ? '' : new URL(url).hostname;
  } catch {
    return '';
  }
}

/**
 * The servers of the outside portals in use, as white-list entries: a client must reach the
 * login page (and the CMCC portal server) before it has signed in, as CoovaChilli's uamallowed.
 */
function outsidePortalHosts(snapshot: ConfigSnapshot, models: ReadonlySet<string>): HotspotListEntry[] {
  const hosts: string[] = [];
  if (models.has('wifidog')) hosts.push(single<{ server: string }>(snapshot, hotspotWifidog.schema as never, hotspotWifidog.name).server);
  if (models.has('cmcc')) {
    const cmcc = single<{ cmccurl: string; cmccip: string }>(snapshot, hotspotCmcc.schema as never, hotspotCmcc.name);
    hosts.push(hostOf(cmcc.cmccurl), cmcc.cmccip);
  }
  if (models.has('rusystem')) hosts.push(hostOf(single<{ authurl: string }>(snapshot, hotspotRusystem.schema as never, hotspotRusystem.name).authurl));
  if (models.has('cloudportal')) hosts.push(hostOf(single<{ authurl: string }>(snapshot, hotspotCloudportal.schema as never, hotspotCloudportal.name).authurl));
  if (models.has('weixin')) hosts.push(...WECHAT_HOSTS);
  if (models.has('social')) hosts.push(hostOf(single<{ issuer: string }>(snapshot, hotspotSocial.schema as never, hotspotSocial.name).issuer));
  return [...new Set(hosts.filter((h) => h !== ''))].map((host) => ({ type: isIpv4(host) ? 'ip' : 'url', value: host }) as HotspotListEntry);
}

const BYTES_PER_MB = 1_000_000;

/** Lines of a multi-line text field as the one text the portal API carries. */
export function linesText(lines: readonly string[]): string {
  return lines.join('\n');
}

function rows<T>(snapshot: ConfigSnapshot, entity: string): T[] {
  return (snapshot[entity] ?? []).map((row) => ({ ...row.data, id: row.id }) as T);
}

function single<T>(snapshot: ConfigSnapshot, schema: { parse(input: unknown): T }, entity: string): T {
  const stored = snapshot[entity]?.find((row) => row.id === '')?.data ?? {};
  return schema.parse(stored);
}

export function hotspotConfigOf(snapshot: ConfigSnapshot): HotspotConfig {
  const portal = single<HotspotPortal>(snapshot, hotspotPortal.schema as never, HOTSPOT_ENTITIES.portal);
  const terms = single<HotspotTerms>(snapshot, hotspotTerms.schema as never, HOTSPOT_ENTITIES.terms);
  const accounting = single<HotspotAccounting>(snapshot, hotspotAccounting.schema as never, HOTSPOT_ENTITIES.accounting);
  const zones: HotspotZone[] = rows<HotspotZoneRow>(snapshot, HOTSPOT_ENTITIES.zone)
    // The built-in portal serves the web-portal zones and those whose accounts are checked
    // outside the device (RADIUS, LDAP) or by SMS code; zones of an outside portal server are
    // kept too, their clients sent to that server; other models authenticate elsewhere.
    .filter((zone) => zone.enabled && (zone.authmodel === 'webportal' || isPortalAuthModel(zone.authmodel) || isExternalPortal(zone.authmodel)))
    .map((zone) => ({
      name: zone.name,
      interfaces: [zone.ifname],
      welcome: portal.welcome,
      contact: portal.contact,
      copyright: portal.copyright,
      // The entities keep these texts as lines; the portal shows them as one plain text.
      logintext: linesText(portal.logintext),
      chargetext: linesText(portal.chargetext),
      tos: linesText(terms.content),
      tosTitle: terms.title,
      methods: isPortalAuthModel(zone.authmodel) ? [PORTAL_METHOD_OF[zone.authmodel]] : isExternalPortal(zone.authmodel) ? [] : [...portal.methods],
      ...(isExternalPortal(zone.authmodel) ? { externalPortal: zone.authmodel } : {}),
      password: portal.password ?? '',
      redirectUrl: portal.redirect_url,
      sessionSeconds: durationSeconds(zone.authtime, zone.authtime_unit),
      idleSeconds: zone.idletime * 60,
      plan: '',
      ...(zone.authmodel === 'webportal' || isPortalAuthModel(zone.authmodel) ? { authModel: zone.authmodel } : {}),
    }));
  const plans: HotspotPlan[] = rows<HotspotPlanRow>(snapshot, HOTSPOT_ENTITIES.plan).map((plan) => ({
    name: plan.name,
    flowBytes: plan.flow * BYTES_PER_MB,
    seconds: durationSeconds(plan.effecttime, plan.effectunit),
    upKbps: plan.upspeed,
    downKbps: plan.downspeed,
    // The plan's reminder time is in minutes.
    remind: plan.remind ? { seconds: plan.remind_time * 60, bytes: plan.remind_flow * BYTES_PER_MB } : null,
  }));
  const stored = single<HotspotReminder>(snapshot, hotspotReminder.schema as never, HOTSPOT_ENTITIES.reminder);
  const reminder: ReminderSettings = {
    enabled: stored.enabled,
    sms: stored.sms,
    refresh: stored.refresh,
    url: stored.url,
    intervalSeconds: stored.interval * 3600,
    port: stored.port,
    content: linesText(stored.content),
    template: stored.template,
    // The accounting's reminder time is in hours.
    accountThresholds: { seconds: accounting.expiretime * 3600, bytes: accounting.expireflow * BYTES_PER_MB },
  };
  const interval = accounting.interval * (SECONDS_PER_UNIT[accounting.timeunit] ?? 1);
  return {
    zones,
    plans,
    whiteList: [
      ...rows<HotspotListEntry>(snapshot, HOTSPOT_ENTITIES.whiteList).map(({ type, value }) => ({ type, value })),
      ...outsidePortalHosts(snapshot, new Set(zones.flatMap((z) => (z.externalPortal ? [z.externalPortal] : [])))),
    ],
    blackList: rows<HotspotListEntry>(snapshot, HOTSPOT_ENTITIES.blackList).map(({ type, value }) => ({ type, value })),
    // The counters are read at least every 10 s so quotas cut in promptly.
    accountingSeconds: Math.min(10, Math.max(1, interval)),
    reminder,
  };
}
