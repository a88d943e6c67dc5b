import type { MenuChildDef, MenuSectionDef } from './menu-types.js';

/**
 * Every admin route of the console (spec §2): sections, their pages and the pages' sub-routes.
 * The module of a page is the last segment of its path; it is the menu key, the ACL key and
 * the label key `menu.<module>`.
 *
 * Capability rules:
 * - Without `vlan` the Network section is reduced to interface, dhcpserver, vpnclient,
 *   staticroute, arpbind and dhcpstatic: multiwan, vlan and portattribute need `vlan`, and so
 *   do the OpenVPN and IPsec client pages below vpnclient.
 * - /appcenter/iptv needs `iptv`, /appcenter/phtunnel `phtunnel`, /hotspot/cmccweb `cmcc`,
 *   /hotspot/wifidog `wifidog`, the Enterprise storage section `nas`.
 * - The Wireless manage and CPE manage sections and /sysstatus/stainfo are absent with
 *   `wifi_cpe` (the device is itself a wireless CPE, not a controller).
 * - /dashboard and /cloud/vendor999 are routed but never listed.
 */

const ADD_EDIT = ['add', 'edit'] as const;
const LIST_EDITS = ['macedit', 'ipedit', 'domainedit'] as const;

function page(module: string, extra: Omit<MenuChildDef, 'path' | 'module'> = {}): MenuChildDef {
  return { path: `/${module}`, module, ...extra };
}

export const MENU_MAP: readonly MenuSectionDef[] = [
  {
    path: '/',
    module: 'dashboard',
    children: [page('dashboard', { hidden: true })],
  },
  {
    path: '/netconf',
    module: 'netconf',
    children: [
      page('interface'),
      page('dhcpserver', { sub: ADD_EDIT }),
      page('multiwan', { sub: ADD_EDIT, requires: 'vlan' }),
      page('vlan', { sub: ADD_EDIT, requires: 'vlan' }),
      page('vpnclient', {
        sub: [
          'pptpadd',
          'pptpedit',
          'l2tpadd',
          'l2tpedit',
          { path: 'openvpnadd', requires: 'vlan' },
          { path: 'openvpnedit', requires: 'vlan' },
          { path: 'ipsecadd', requires: 'vlan' },
          { path: 'ipsecedit', requires: 'vlan' },
          { path: 'ipseclog', requires: 'vlan' },
        ],
      }),
      page('staticroute', { sub: ADD_EDIT }),
      page('arpbind', { sub: ['add', 'edit', 'behavior'] }),
      page('dhcpstatic', { sub: ADD_EDIT }),
      page('portattribute', { sub: ['edit'], requires: 'vlan' }),
    ],
  },
  {
    path: '/sysstatus',
    module: 'sysstatus',
    children: [
      page('monitoring'),
      page('inneruser', { sub: ['flowdetails', 'detail'] }),
      page('dhcplease'),
      page('authuserinfo'),
      page('linemonitoring', { sub: ['details'] }),
      page('license'),
      page('arpinfo'),
      page('systemroute'),
      page('stainfo', { excludedBy: 'wifi_cpe' }),
    ],
  },
  {
    path: '/smartqos',
    module: 'smartqos',
    children: [
      page('qosbase'),
      page('flowcontrol', { sub: ['ipadd', 'macadd', 'ipedit', 'macedit'] }),
      page('portroute', { sub: ADD_EDIT }),
      page('domainroute', { sub: ADD_EDIT }),
      page('loadbalance', { sub: ['edit'] }),
      page('isp'),
    ],
  },
  {
    path: '/firewall',
    module: 'firewall',
    children: [
      page('portmapping', { sub: ADD_EDIT }),
      page('nat', { sub: ADD_EDIT }),
      page('hostmapping', { sub: ADD_EDIT }),
      page('acl', { sub: ADD_EDIT }),
      page('lan2lan'),
      page('shareblock'),
      page('connectionlimit', { sub: [...ADD_EDIT, 'settings'] }),
      page('dmz', { sub: ADD_EDIT }),
    ],
  },
  {
    path: '/vpnserver',
    module: 'vpnserver',
    children: [page('pptpservice'), page('l2tpservice'), page('openvpnservice', { sub: ['exportconf'] }), page('ipsecservice', { sub: ADD_EDIT })],
  },
  {
    path: '/hotspot',
    module: 'hotspot',
    children: [
      page('servicezone'),
      page('localportal', { sub: ['termofservice'] }),
      page('billingplan', { sub: ['add', 'edit', 'advanced'] }),
      page('localuser', { sub: ['add', 'batch', 'edit'] }),
      page('voucher'),
      page('voucherbatch'),
      page('ppoeservice'),
      page('radius'),
      page('ldap'),
      page('sms'),
      page('cloudportal'),
      page('rusystem'),
      page('weixin'),
      page('social'),
      page('whitelistconfig', { sub: LIST_EDITS }),
      page('blacklistconfig', { sub: LIST_EDITS }),
      page('expirationnotice'),
      page('localnotice'),
      page('cmccweb', { requires: 'cmcc' }),
      page('wifidog', { requires: 'wifidog' }),
    ],
  },
  {
    path: '/wirelessmanage',
    module: 'wirelessmanage',
    excludedBy: 'wifi_cpe',
    children: [
      page('wirelessstatus'),
      page('grouping', { sub: ADD_EDIT }),
      page('aplist'),
      page('wifiplaning'),
      page('whiteblacklist', { sub: ADD_EDIT }),
      page('firmware', { sub: ADD_EDIT }),
      page('topology'),
    ],
  },
  {
    path: '/cpemanage',
    module: 'cpemanage',
    excludedBy: 'wifi_cpe',
    children: [page('cpeconfigure'), page('cpelist'), page('cpetopology')],
  },
  {
    path: '/cloud',
    module: 'cloud',
    children: [page('cloud'), page('sdlan'), page('vendor999', { hidden: true })],
  },
  {
    path: '/enterprisestorage',
    module: 'enterprisestorage',
    requires: 'nas',
    children: [
      page('disklist'),
      page('diskstatus'),
      page('storeadvanced'),
      page('allocation'),
      page('enterprisemgr', { sub: ADD_EDIT }),
      page('sharedfiles', { sub: ADD_EDIT }),
      page('fileservice'),
      page('usergrouping', { sub: ADD_EDIT }),
      page('backup', { sub: ['detail', 'config'] }),
    ],
  },
  {
    path: '/appcenter',
    module: 'appcenter',
    children: [
      page('upnp', { sub: ['config'] }),
      page('ddns', { sub: ADD_EDIT }),
      page('wakeonlan', { sub: ADD_EDIT }),
      page('switches', { sub: ADD_EDIT }),
      page('onvif', { sub: ['config'] }),
      page('iptv', { requires: 'iptv' }),
      page('phtunnel', { requires: 'phtunnel' }),
    ],
  },
  {
    path: '/security',
    module: 'security',
    children: [
      page('health'),
      page('examination'),
      page('emailnotice', { sub: ADD_EDIT }),
      page('speedtest'),
      page('behavioraudit', { sub: ['ipexport', 'urlexport', 'config'] }),
    ],
  },
  {
    path: '/system',
    module: 'system',
    children: [
      page('systemmaintain'),
      page('romotevisit'),
      page('usermanagement', { sub: ADD_EDIT }),
      page('networkdiagnosis'),
      page('telnetclient'),
      page('networkparameter'),
      page('clockconfiguration'),
      page('clientrsa'),
      page('caconfiguration'),
      // The first-run wizard (spec §2 "other screens"): reached from the dashboard, not listed.
      page('wizard', { hidden: true }),
    ],
  },
  {
    path: '/logging',
    module: 'logging',
    children: [
      page('systemlogs'),
      page('portlogs'),
      page('smslogs'),
      page('authlogs'),
      page('wirelesslogs'),
      page('securitylogs'),
    ],
  },
];

/** Which bundle serves a public route: the console (sign-in pages) or the portal. */
export type PublicRouteApp = 'console' | 'portal';

export interface PublicRoute {
  path: string;
  app: PublicRouteApp;
}

/**
 * Routes reachable without an admin session (spec §2). The console serves its sign-in and
 * forced password change; everything a hotspot client or local user sees is the portal's.
 */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { path: '/login', app: 'console' },
  { path: '/modpwd', app: 'console' },
  { path: '/terminal', app: 'portal' },
  { path: '/terminal/user', app: 'portal' },
  { path: '/terminal/user/login', app: 'portal' },
  { path: '/terminal/user/register', app: 'portal' },
  { path: '/terminal/user/cpwd', app: 'portal' },
  { path: '/terminal/user/mgrsuc', app: 'portal' },
  { path: '/terminal/user/mgr', app: 'portal' },
  { path: '/auth', app: 'portal' },
  { path: '/auth/portal', app: 'portal' },
  { path: '/auth/success', app: 'portal' },
  { path: '/auth/social/callback', app: 'portal' },
  { path: '/notice', app: 'portal' },
  { path: '/notice/expired', app: 'portal' },
  { path: '/notice/local', app: 'portal' },
  { path: '/rtty', app: 'console' },
  { path: '/user', app: 'portal' },
];

export function isPublicRoute(path: string): boolean {
  const clean = normalizePath(path);
  return PUBLIC_ROUTES.some((r) => r.path === clean);
}

/** `/a/b/` -> `/a/b`; query and hash dropped; `''` -> `/`. */
export function normalizePath(path: string): string {
  const bare = path.split(/[?#]/)[0] ?? '';
  const trimmed = bare.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}
