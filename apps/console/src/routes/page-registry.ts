import { createElement, lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { ENTITY_ROUTES } from './entity-routes.js';
import { HOTSPOT_PAGES } from '../pages/hotspot/hotspot-pages.js';
import { AUDIT_PAGES } from '../pages/audit/audit-pages.js';
import type { PageCatalogue, RoutePage } from './route-table.js';

type LazyPage = LazyExoticComponent<ComponentType>;

/** Hand-written pages by full path; each is its own chunk. */
export const CUSTOM_PAGES: Readonly<Record<string, LazyPage>> = {
  '/dashboard': lazy(() => import('../pages/dashboard/dashboard-page.js')),
  '/system/systemmaintain': lazy(() => import('../pages/system-maintain/system-maintain-page.js')),
  '/sysstatus/license': lazy(() => import('../pages/license/license-page.js')),
  '/system/wizard': lazy(() => import('../pages/wizard/wizard-page.js')),
  '/smartqos/qosbase': lazy(() => import('../pages/smartqos/qos-base-page.js')),
  '/hotspot/voucherbatch': lazy(() => import('../pages/hotspot/voucher-batch-page.js')),
  '/hotspot/voucher': lazy(() => import('../pages/hotspot/voucher-list-page.js')),
  '/sysstatus/monitoring': lazy(() => import('../pages/network-status/monitoring-page.js')),
  '/sysstatus/dhcplease': lazy(() => import('../pages/network-status/dhcp-lease-page.js')),
  '/sysstatus/linemonitoring': lazy(() => import('../pages/network-status/line-monitoring-page.js')),
  '/sysstatus/linemonitoring/details': lazy(() => import('../pages/network-status/line-details-page.js')),
  '/sysstatus/arpinfo': lazy(() => import('../pages/network-status/arp-info-page.js')),
  '/sysstatus/systemroute': lazy(() => import('../pages/network-status/system-route-page.js')),
  '/sysstatus/authuserinfo': lazy(() => import('../pages/hotspot-status/auth-user-info-page.js')),
  '/sysstatus/inneruser': lazy(() => import('../pages/hotspot-status/inner-user-page.js')),
  '/sysstatus/inneruser/flowdetails': lazy(() => import('../pages/hotspot-status/inner-user-flow-page.js')),
  '/sysstatus/inneruser/detail': lazy(() => import('../pages/hotspot-status/inner-user-detail-page.js')),
  '/hotspot/expirationnotice': lazy(() => import('../pages/hotspot/reminder-page.js')),
  '/netconf/vpnclient/ipseclog': lazy(() => import('../pages/network/ipsec-log-page.js')),
  '/wirelessmanage/wirelessstatus': lazy(() => import('../pages/wireless/wireless-status-page.js')),
  '/wirelessmanage/aplist': lazy(() => import('../pages/wireless/ap-list-page.js')),
  '/wirelessmanage/wifiplaning': lazy(() => import('../pages/wireless/channel-planning-page.js')),
  '/wirelessmanage/topology': lazy(() => import('../pages/wireless/ap-topology-page.js')),
  '/wirelessmanage/firmware': lazy(() => import('../pages/wireless/firmware-page.js')),
  '/wirelessmanage/firmware/add': lazy(() => import('../pages/wireless/firmware-upload-page.js')),
  '/wirelessmanage/firmware/edit': lazy(() => import('../pages/wireless/firmware-rollout-page.js')),
  '/cpemanage/cpelist': lazy(() => import('../pages/wireless/cpe-list-page.js')),
  '/cpemanage/cpetopology': lazy(() => import('../pages/wireless/cpe-topology-page.js')),
  '/sysstatus/stainfo': lazy(() => import('../pages/wireless/station-list-page.js')),
  '/logging/systemlogs': lazy(() => import('../pages/logging/log-pages.js').then((m) => ({ default: m.SystemLogPage }))),
  '/logging/portlogs': lazy(() => import('../pages/logging/log-pages.js').then((m) => ({ default: m.PortLogPage }))),
  '/logging/smslogs': lazy(() => import('../pages/logging/log-pages.js').then((m) => ({ default: m.SmsLogPage }))),
  '/logging/authlogs': lazy(() => import('../pages/logging/log-pages.js').then((m) => ({ default: m.AuthLogPage }))),
  '/logging/wirelesslogs': lazy(() => import('../pages/logging/log-pages.js').then((m) => ({ default: m.WirelessLogPage }))),
  '/logging/securitylogs': lazy(() => import('../pages/logging/log-pages.js').then((m) => ({ default: m.SecurityLogPage }))),
  '/hotspot/ldap': lazy(() => import('../pages/hotspot/ldap-page.js')),
  '/vpnserver/openvpnservice': lazy(() => import('../pages/vpn-server/openvpn-page.js')),
  '/system/caconfiguration': lazy(() => import('../pages/vpn-server/ca-config-page.js')),
  '/system/clientrsa': lazy(() => import('../pages/vpn-server/client-rsa-page.js')),
  '/vpnserver/openvpnservice/exportconf': lazy(() => import('../pages/vpn-server/openvpn-export-page.js')),
  '/system/clockconfiguration': lazy(() => import('../pages/system/clock-page.js')),
  '/system/networkparameter': lazy(() => import('../pages/system/network-parameter-page.js')),
  '/system/networkdiagnosis': lazy(() => import('../pages/system/diagnosis-page.js')),
  '/system/telnetclient': lazy(() => import('../pages/system/telnet-page.js')),
  '/vpnserver/ipsecservice': lazy(() => import('../pages/vpn-server/ipsec-page.js')),
  '/vpnserver/pptpservice': lazy(() => import('../pages/vpn-server/ppp-server-page.js').then((m) => ({ default: m.PptpServerPage }))),
  '/vpnserver/l2tpservice': lazy(() => import('../pages/vpn-server/ppp-server-page.js').then((m) => ({ default: m.L2tpServerPage }))),
  '/hotspot/ppoeservice': lazy(() => import('../pages/vpn-server/ppp-server-page.js').then((m) => ({ default: m.PppoeServerPage }))),
  '/security/health': lazy(() => import('../pages/security/health-page.js')),
  '/security/examination': lazy(() => import('../pages/security/examination-page.js')),
  '/security/emailnotice': lazy(() => import('../pages/security/email-notice-page.js')),
  ...HOTSPOT_PAGES,
  ...AUDIT_PAGES,
};

export const PAGE_CATALOGUE: PageCatalogue = {
  customPages: new Set(Object.keys(CUSTOM_PAGES)),
  entityRoutes: new Set(ENTITY_ROUTES),
};

const entityPages = new Map<string, LazyPage>();

/** The list page of an entity route, with the entity resolved inside the lazy chunk. */
function entityListPage(entityRoute: string): LazyPage {
  return lazy(async () => {
    const [{ resolveEntities }, { EntityRoutePage }] = await Promise.all([
      import('./entity-loader.js'),
      import('../pages/entity/entity-list-page.js'),
    ]);
    const entities = resolveEntities(entityRoute);
    return { default: () => createElement(EntityRoutePage, { entities }) };
  });
}

function entityFormPage(entityRoute: string, segment: string): LazyPage {
  return lazy(async () => {
    const [{ resolveEntityForm }, { default: EntityFormPage }] = await Promise.all([
      import('./entity-loader.js'),
      import('../pages/entity/entity-form-page.js'),
    ]);
    const { entity, mode, preset } = resolveEntityForm(entityRoute, segment);
    return { default: () => createElement(EntityFormPage, { entity, mode, preset }) };
  });
}

/**
 * The component of a routed page, or null when this build has none for it. Components are
 * created once per path so React keeps them across renders.
 */
export function pageComponent(path: string, page: RoutePage): LazyPage | null {
  if (page.kind === 'custom') return CUSTOM_PAGES[path] ?? null;
  if (page.kind === 'notAvailable') return null;
  let component = entityPages.get(path);
  if (!component) {
    component = page.kind === 'entityList' ? entityListPage(page.entityRoute) : entityFormPage(page.entityRoute, page.segment);
    entityPages.set(path, component);
  }
  return component;
}
