import { entityFormRoutes, type AnyEntity, type EntityFormRoute } from './define-entity.js';
import { adminUser } from '../system/admin-user.js';
import { networkInterface } from '../network/network-interface.js';
import { dhcpServer } from '../network/dhcp-server.js';
import { dhcpStatic } from '../network/dhcp-static.js';
import { staticRoute } from '../network/static-route.js';
import { arpBind } from '../network/arp-bind.js';
import { arpAuth } from '../network/arp-auth.js';
import { vlan } from '../network/vlan-interface.js';
import { multiWan } from '../network/multi-wan.js';
import { portAttribute } from '../network/port-attribute.js';
import { iptv } from '../network/iptv-config.js';
import { vpnClient } from '../network/vpn-client.js';
import { hotspotZone } from '../hotspot/hotspot-zone.js';
import { hotspotPortal, hotspotTerms } from '../hotspot/hotspot-portal.js';
import { hotspotAccounting, hotspotPlan } from '../hotspot/hotspot-plan.js';
import { hotspotUser, hotspotUserBatch } from '../hotspot/hotspot-user.js';
import { hotspotBlacklist, hotspotWhitelist } from '../hotspot/hotspot-lists.js';
import { hotspotLocalNotice, hotspotReminder } from '../hotspot/hotspot-notices.js';
import { firewallPortMapping } from '../firewall/firewall-port-mapping.js';
import { firewallNat } from '../firewall/firewall-nat.js';
import { firewallHostMapping } from '../firewall/firewall-host-mapping.js';
import { firewallAcl } from '../firewall/firewall-acl.js';
import { firewallLanForward } from '../firewall/firewall-lan-forward.js';
import { firewallShareBlock } from '../firewall/firewall-share-block.js';
import { firewallConnLimit, firewallSessionLimit } from '../firewall/firewall-conn-limit.js';
import { firewallDmz } from '../firewall/firewall-dmz.js';
import { qosBase } from '../qos/qos-base.js';
import { qosIpRule, qosMacRule } from '../qos/qos-bandwidth-rule.js';
import { qosDomainRule, qosPortRule } from '../qos/qos-class-rule.js';
import { qosIsp, qosLoadBalance } from '../qos/qos-load-balance.js';

import { hotspotSms } from '../hotspot/hotspot-sms.js';
import { hotspotRadius } from '../hotspot/hotspot-radius.js';
import { hotspotLdap } from '../hotspot/hotspot-ldap.js';
import { openvpnServer } from '../vpn-server/openvpn-server.js';
import { ipsecPeer } from '../vpn-server/ipsec-server.js';
import { l2tpServer, pppoeServer, pptpServer } from '../vpn-server/ppp-server.js';
import { hotspotWifidog } from '../hotspot/hotspot-wifidog.js';
import { hotspotCmcc } from '../hotspot/hotspot-cmcc.js';
import { hotspotRusystem } from '../hotspot/hotspot-rusystem.js';
import { hotspotCloudportal } from '../hotspot/hotspot-cloudportal.js';
import { hotspotWeixin } from '../hotspot/hotspot-weixin.js';
import { hotspotSocial } from '../hotspot/hotspot-social.js';
import { securityEvents } from '../security/security-events.js';
import { emailRecipient, emailServer } from '../security/email-notice.js';
import { apGroup, wirelessSsid, apMacFilter, cpeProfile } from '../wireless/index.js';
import { behaviourAudit, speedTest } from '../audit/behaviour-audit.js';
import { netParam, remoteAccess, remoteSyslog, systemHost, systemTime } from '../system/system-settings.js';
/**
 * Every declared entity, one line each. The daemon registers routes for all of them, the
 * console builds pages for those with a `route`, and the i18n and injection suites walk it.
 */
export const ENTITIES: readonly AnyEntity[] = [
  adminUser as unknown as AnyEntity,
  networkInterface as unknown as AnyEntity,
  dhcpServer as unknown as AnyEntity,
  dhcpStatic as unknown as AnyEntity,
  staticRoute as unknown as AnyEntity,
  arpBind as unknown as AnyEntity,
  arpAuth as unknown as AnyEntity,
  vlan as unknown as AnyEntity,
  multiWan as unknown as AnyEntity,
  portAttribute as unknown as AnyEntity,
  iptv as unknown as AnyEntity,
  vpnClient as unknown as AnyEntity,
  hotspotZone as unknown as AnyEntity,
  hotspotPortal as unknown as AnyEntity,
  hotspotTerms as unknown as AnyEntity,
  hotspotPlan as unknown as AnyEntity,
  hotspotAccounting as unknown as AnyEntity,
  hotspotUser as unknown as AnyEntity,
  hotspotUserBatch as unknown as AnyEntity,
  hotspotWhitelist as unknown as AnyEntity,
  hotspotBlacklist as unknown as AnyEntity,
  hotspotReminder as unknown as AnyEntity,
  hotspotLocalNotice as unknown as AnyEntity,
  hotspotSms as unknown as AnyEntity,
  hotspotRadius as unknown as AnyEntity,
  hotspotLdap as unknown as AnyEntity,
  hotspotWifidog as unknown as AnyEntity,
  hotspotCmcc as unknown as AnyEntity,
  hotspotRusystem as unknown as AnyEntity,
  hotspotCloudportal as unknown as AnyEntity,
  hotspotWeixin as unknown as AnyEntity,
  hotspotSocial as unknown as AnyEntity,
  firewallPortMapping as unknown as AnyEntity,
  firewallNat as unknown as AnyEntity,
  firewallHostMapping as unknown as AnyEntity,
  firewallAcl as unknown as AnyEntity,
  firewallLanForward as unknown as AnyEntity,
  firewallShareBlock as unknown as AnyEntity,
  firewallSessionLimit as unknown as AnyEntity,
  firewallConnLimit as unknown as AnyEntity,
  firewallDmz as unknown as AnyEntity,
  qosBase as unknown as AnyEntity,
  qosIpRule as unknown as AnyEntity,
  qosMacRule as unknown as AnyEntity,
  qosPortRule as unknown as AnyEntity,
  qosDomainRule as unknown as AnyEntity,
  qosLoadBalance as unknown as AnyEntity,
  qosIsp as unknown as AnyEntity,
  apGroup as unknown as AnyEntity,
  wirelessSsid as unknown as AnyEntity,
  apMacFilter as unknown as AnyEntity,
  cpeProfile as unknown as AnyEntity,
  openvpnServer as unknown as AnyEntity,
  behaviourAudit as unknown as AnyEntity,
  speedTest as unknown as AnyEntity,
  systemTime as unknown as AnyEntity,
  remoteAccess as unknown as AnyEntity,
  netParam as unknown as AnyEntity,
  remoteSyslog as unknown as AnyEntity,
  systemHost as unknown as AnyEntity,
  ipsecPeer as unknown as AnyEntity,
  pptpServer as unknown as AnyEntity,
  l2tpServer as unknown as AnyEntity,
  pppoeServer as unknown as AnyEntity,
  securityEvents as unknown as AnyEntity,
  emailServer as unknown as AnyEntity,
  emailRecipient as unknown as AnyEntity,
];

export function entityByPath(path: string): AnyEntity | undefined {
  return ENTITIES.find((e) => e.path === path);
}

/** The first entity listed at a route (a route may list several: IP and MAC bandwidth rules). */
export function entityByRoute(route: string): AnyEntity | undefined {
  return ENTITIES.find((e) => e.route === route);
}

/** Every collection or singleton whose list a route shows, in registry order. */
export function entitiesByRoute(route: string): AnyEntity[] {
  return ENTITIES.filter((e) => e.route === route);
}

export function entityByName(name: string): AnyEntity | undefined {
  return ENTITIES.find((e) => e.name === name);
}

/** The entity form a sub-route segment of a list route serves (`pptpadd` below vpnclient). */
export function entityFormAt(route: string, segment: string): (EntityFormRoute & { entity: AnyEntity }) | undefined {
  for (const entity of entitiesByRoute(route)) {
    const form = entityFormRoutes(entity).find((r) => r.segment === segment);
    if (form) return { ...form, entity };
  }
  return undefined;
}

/**
 * A spec §7 path that reads and writes several entities at once (the spec's name for an area
 * whose entities have finer paths of their own): its GET answers every section, its POST
 * writes the one its body's `section` names, as that entity's own path would.
 */
export interface EntityGroup {
  path: string;
  sections: Readonly<Record<string, AnyEntity>>;
}

export const ENTITY_GROUPS: readonly EntityGroup[] = [
  {
    path: 'firewall',
    sections: {
      redirect: firewallPortMapping as unknown as AnyEntity,
      nat: firewallNat as unknown as AnyEntity,
      filter: firewallAcl as unknown as AnyEntity,
      lanforward: firewallLanForward as unknown as AnyEntity,
    },
  },
  { path: 'auth/bwlist', sections: { whitelist: hotspotWhitelist as unknown as AnyEntity, blacklist: hotspotBlacklist as unknown as AnyEntity } },
  // The authentication configuration (spec §3 "Auth config"): the zones with their model, and the web portal.
  { path: 'auth', sections: { zone: hotspotZone as unknown as AnyEntity, webportal: hotspotPortal as unknown as AnyEntity } },
];
