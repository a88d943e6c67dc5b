import { describe, expect, it } from 'vitest';
import {
  allModules,
  allRoutePaths,
  buildMenu,
  findMenuChild,
  isPublicRoute,
  MENU_MAP,
  pagePermission,
  parseCapabilities,
  PUBLIC_ROUTES,
  type Capability,
  type MenuSection,
  type PagePermission,
} from '../src/index.js';

const everyone = (): PagePermission => 'modify';

function menu(
  caps: string | undefined,
  options: { disabled?: string[]; permissionOf?: (m: string) => PagePermission } = {},
): MenuSection[] {
  return buildMenu({
    capabilities: parseCapabilities(caps),
    disabledModules: new Set(options.disabled ?? []),
    permissionOf: options.permissionOf ?? everyone,
  });
}

function section(sections: MenuSection[], module: string): MenuSection | undefined {
  return sections.find((s) => s.module === module);
}

function childModules(sections: MenuSection[], module: string): string[] {
  return section(sections, module)?.children.map((c) => c.module) ?? [];
}

function allPaths(sections: MenuSection[]): string[] {
  return sections.flatMap((s) => s.children.flatMap((c) => [c.path, ...c.routes]));
}

describe('MENU_MAP', () => {
  it('declares the fifteen sections of the spec in order', () => {
    expect(MENU_MAP.map((s) => s.module)).toEqual([
      'dashboard', 'netconf', 'sysstatus', 'smartqos', 'firewall', 'vpnserver', 'hotspot', 'wirelessmanage',
      'cpemanage', 'cloud', 'enterprisestorage', 'appcenter', 'security', 'system', 'logging',
    ]);
  });

  it('names each page module after the last segment of its path', () => {
    for (const s of MENU_MAP) {
      for (const c of s.children) expect(c.path).toBe(`/${c.module}`);
    }
  });

  it('has no duplicate route paths', () => {
    const paths = allRoutePaths();
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('lists every sub-route of the spec table', () => {
    const paths = new Set(allRoutePaths());
    for (const p of [
      '/dashboard',
      '/netconf/dhcpserver/add',
      '/netconf/dhcpserver/edit',
      '/netconf/vpnclient/pptpadd',
      '/netconf/vpnclient/l2tpedit',
      '/netconf/vpnclient/openvpnadd',
      '/netconf/vpnclient/ipseclog',
      '/netconf/arpbind/behavior',
      '/netconf/portattribute/edit',
      '/sysstatus/inneruser/flowdetails',
      '/sysstatus/linemonitoring/details',
      '/smartqos/flowcontrol/macedit',
      '/smartqos/loadbalance/edit',
      '/firewall/acl/add',
      '/firewall/dmz/edit',
      '/vpnserver/openvpnservice/exportconf',
      '/hotspot/localportal/termofservice',
      '/hotspot/billingplan/advanced',
      '/hotspot/localuser/batch',
      '/hotspot/whitelistconfig/domainedit',
      '/hotspot/blacklistconfig/ipedit',
      '/wirelessmanage/firmware/add',
      '/cloud/vendor999',
      '/enterprisestorage/backup/detail',
      '/enterprisestorage/backup/config',
      '/appcenter/upnp/config',
      '/appcenter/onvif/config',
      '/security/behavioraudit/ipexport',
      '/security/behavioraudit/urlexport',
      '/security/behavioraudit/config',
      '/system/usermanagement/edit',
      '/logging/securitylogs',
    ]) {
      expect(paths.has(p), p).toBe(true);
    }
    expect(paths.size).toBe(allRoutePaths().length);
    expect(allModules()).toContain('lan2lan');
  });
});

describe('buildMenu', () => {
  it('with the default capabilities shows everything except iptv and keeps labels as keys', () => {
    const m = menu(undefined);
    expect(m.map((s) => s.module)).toEqual(MENU_MAP.map((s) => s.module));
    expect(childModules(m, 'appcenter')).toEqual(['upnp', 'ddns', 'wakeonlan', 'switches', 'onvif', 'phtunnel']);
    expect(childModules(m, 'hotspot')).toContain('cmccweb');
    expect(childModules(m, 'hotspot')).toContain('wifidog');
    expect(childModules(m, 'sysstatus')).toContain('stainfo');
    const iface = section(m, 'netconf')!.children[0]!;
    expect(iface).toEqual({
      path: '/netconf/interface',
      module: 'interface',
      label: 'menu.interface',
      hidden: false,
      routes: [],
      permission: 'modify',
    });
    expect(section(m, 'netconf')!.label).toBe('menu.netconf');
  });

  it('fills routes with full sub-route paths', () => {
    const dhcp = section(menu(undefined), 'netconf')!.children.find((c) => c.module === 'dhcpserver')!;
    expect(dhcp.routes).toEqual(['/netconf/dhcpserver/add', '/netconf/dhcpserver/edit']);
  });

  it('without vlan shows the reduced Network list and only PPTP/L2TP client pages', () => {
    const m = menu('gateway nas');
    expect(childModules(m, 'netconf')).toEqual(['interface', 'dhcpserver', 'vpnclient', 'staticroute', 'arpbind', 'dhcpstatic']);
    const vpn = section(m, 'netconf')!.children.find((c) => c.module === 'vpnclient')!;
    expect(vpn.routes).toEqual([
      '/netconf/vpnclient/pptpadd',
      '/netconf/vpnclient/pptpedit',
      '/netconf/vpnclient/l2tpadd',
      '/netconf/vpnclient/l2tpedit',
    ]);
    const withVlan = section(menu('vlan'), 'netconf')!.children.find((c) => c.module === 'vpnclient')!;
    expect(withVlan.routes).toContain('/netconf/vpnclient/ipsecedit');
    expect(withVlan.routes).toHaveLength(9);
  });

  it('shows the IPTV entry only with iptv', () => {
    expect(allPaths(menu('gateway iptv'))).toContain('/appcenter/iptv');
    expect(allPaths(menu('gateway'))).not.toContain('/appcenter/iptv');
  });

  it('gates phtunnel, cmccweb, wifidog and enterprise storage on their capabilities', () => {
    const bare = menu('gateway');
    const paths = allPaths(bare);
    for (const p of ['/appcenter/phtunnel', '/hotspot/cmccweb', '/hotspot/wifidog']) expect(paths).not.toContain(p);
    expect(section(bare, 'enterprisestorage')).toBeUndefined();
    const full = allPaths(menu('phtunnel cmcc wifidog nas'));
    for (const p of ['/appcenter/phtunnel', '/hotspot/cmccweb', '/hotspot/wifidog', '/enterprisestorage/disklist']) {
      expect(full).toContain(p);
    }
  });

  it('with wifi_cpe drops the wireless and CPE sections and the station list', () => {
    const m = menu(`${'gateway nas vlan'} wifi_cpe`);
    expect(section(m, 'wirelessmanage')).toBeUndefined();
    expect(section(m, 'cpemanage')).toBeUndefined();
    expect(childModules(m, 'sysstatus')).not.toContain('stainfo');
    const without = menu('gateway nas vlan');
    expect(section(without, 'wirelessmanage')).toBeDefined();
    expect(section(without, 'cpemanage')).toBeDefined();
    expect(childModules(without, 'sysstatus')).toContain('stainfo');
  });

  it('drops disabled modules, and a section whose module is disabled', () => {
    const m = menu(undefined, { disabled: ['ddns', 'dmz', 'logging'] });
    expect(childModules(m, 'appcenter')).not.toContain('ddns');
    expect(childModules(m, 'firewall')).not.toContain('dmz');
    expect(section(m, 'logging')).toBeUndefined();
  });

  it('drops a section left empty', () => {
    const m = menu(undefined, { disabled: ['pptpservice', 'l2tpservice', 'openvpnservice', 'ipsecservice'] });
    expect(section(m, 'vpnserver')).toBeUndefined();
    const cpe = menu(undefined, { disabled: ['cpeconfigure', 'cpelist', 'cpetopology'] });
    expect(section(cpe, 'cpemanage')).toBeUndefined();
  });

  it('drops forbidden pages and carries the permission of the others', () => {
    const perms: Record<string, PagePermission> = { nat: 'forbidden', acl: 'readonly', dmz: 'access' };
    const m = menu(undefined, { permissionOf: (mod) => perms[mod] ?? 'modify' });
    const fw = section(m, 'firewall')!;
    expect(fw.children.map((c) => c.module)).not.toContain('nat');
    expect(fw.children.find((c) => c.module === 'acl')!.permission).toBe('readonly');
    expect(fw.children.find((c) => c.module === 'dmz')!.permission).toBe('access');
  });

  it('gives a voucher administrator only its pages', () => {
    const m = menu(undefined, { permissionOf: (mod) => pagePermission('voucherAdmin', mod) });
    expect(m.map((s) => s.module)).toEqual(['dashboard', 'sysstatus', 'hotspot']);
    expect(childModules(m, 'hotspot')).toEqual(['billingplan', 'localuser', 'voucher', 'voucherbatch']);
    expect(childModules(m, 'sysstatus')).toEqual(['authuserinfo']);
  });

  it('keeps hidden entries, marked hidden', () => {
    const m = menu(undefined);
    const dash = section(m, 'dashboard')!;
    expect(dash.path).toBe('/');
    expect(dash.children).toEqual([
      { path: '/dashboard', module: 'dashboard', label: 'menu.dashboard', hidden: true, routes: [], permission: 'modify' },
    ]);
    const vendor = section(m, 'cloud')!.children.find((c) => c.module === 'vendor999')!;
    expect(vendor.hidden).toBe(true);
    expect(section(m, 'cloud')!.children.filter((c) => !c.hidden).map((c) => c.module)).toEqual(['cloud', 'sdlan']);
  });

  it('never lists a path that allRoutePaths does not know', () => {
    const known = new Set(allRoutePaths());
    const caps: Capability[] = ['gateway', 'vlan', 'nas', 'iptv', 'cmcc', 'wifidog', 'phtunnel'];
    for (const p of allPaths(menu(caps.join(' ')))) expect(known.has(p), p).toBe(true);
  });
});

describe('findMenuChild', () => {
  it('finds the page of a page path or a sub-route path', () => {
    expect(findMenuChild('/netconf/interface')?.child.module).toBe('interface');
    const edit = findMenuChild('/netconf/dhcpserver/edit');
    expect(edit?.child.module).toBe('dhcpserver');
    expect(edit?.subRoute).toBe('edit');
    expect(edit?.section.module).toBe('netconf');
    expect(findMenuChild('/hotspot/localuser/edit/42/')?.subRoute).toBe('edit');
    expect(findMenuChild('/dashboard?tab=1')?.child.module).toBe('dashboard');
  });

  it('does not match undeclared paths', () => {
    expect(findMenuChild('/netconf/interface/add')).toBeUndefined();
    expect(findMenuChild('/netconf')).toBeUndefined();
    expect(findMenuChild('/nowhere')).toBeUndefined();
    expect(findMenuChild('/netconf/interfaces')).toBeUndefined();
  });
});

describe('PUBLIC_ROUTES', () => {
  it('lists the spec public routes; the console serves the sign-in pages and the browser terminal', () => {
    const console = PUBLIC_ROUTES.filter((r) => r.app === 'console').map((r) => r.path);
    expect(console).toEqual(['/login', '/modpwd', '/rtty']);
    for (const p of ['/terminal/user/mgrsuc', '/auth/social/callback', '/notice/local', '/rtty', '/user']) {
      expect(isPublicRoute(p), p).toBe(true);
    }
    expect(PUBLIC_ROUTES).toHaveLength(18);
  });

  it('does not overlap admin routes', () => {
    const admin = new Set(allRoutePaths());
    for (const r of PUBLIC_ROUTES) expect(admin.has(r.path), r.path).toBe(false);
    expect(isPublicRoute('/netconf/interface')).toBe(false);
    expect(isPublicRoute('/login/')).toBe(true);
  });
});
