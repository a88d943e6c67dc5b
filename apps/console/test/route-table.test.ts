import { describe, expect, test } from 'vitest';
import { allRoutePaths, buildMenu, CAPABILITIES, pagePermission, type Capability, type MenuSection } from '@portico/schema';
import { PAGE_CATALOGUE } from '../src/routes/page-registry.js';
import { resolveEntities, resolveEntityForm } from '../src/routes/entity-loader.js';
import { isUnbuilt, UNBUILT_PAGES } from '../src/routes/unbuilt-pages.js';
import {
  activeItemPath,
  buildRouteTable,
  homePath,
  pageFor,
  visibleSections,
  type PageCatalogue,
} from '../src/routes/route-table.js';

const catalogue: PageCatalogue = {
  customPages: new Set(['/dashboard']),
  entityRoutes: new Set(['/system/usermanagement']),
};

function menuFor(capabilities: readonly Capability[], role: 'manager' | 'voucherAdmin' | 'guest' = 'manager'): MenuSection[] {
  return buildMenu({
    capabilities: new Set(capabilities),
    disabledModules: new Set(),
    permissionOf: (module) => pagePermission(role, module),
  });
}

const DEFAULT_CAPS: Capability[] = ['gateway', 'nas', 'vlan', 'qrcode', 'cmcc', 'wifidog', 'phtunnel'];

describe('pageFor', () => {
  test('custom pages, entity list and add/edit forms, everything else not available', () => {
    expect(pageFor('/dashboard', catalogue)).toEqual({ kind: 'custom' });
    expect(pageFor('/system/usermanagement', catalogue)).toEqual({ kind: 'entityList', entityRoute: '/system/usermanagement' });
    expect(pageFor('/system/usermanagement/add', catalogue)).toEqual({
      kind: 'entityForm',
      entityRoute: '/system/usermanagement',
      segment: 'add',
      mode: 'add',
    });
    expect(pageFor('/system/usermanagement/edit', catalogue)).toMatchObject({ kind: 'entityForm', mode: 'edit' });
    expect(pageFor('/system/usermanagement/l2tpedit', catalogue)).toMatchObject({ kind: 'entityForm', segment: 'l2tpedit', mode: 'edit' });
    expect(pageFor('/system/usermanagement/batch', catalogue)).toEqual({ kind: 'notAvailable' });
    expect(pageFor('/netconf/interface', catalogue)).toEqual({ kind: 'notAvailable' });
  });
});

describe('buildRouteTable', () => {
  const menu = menuFor(DEFAULT_CAPS);
  const table = buildRouteTable(menu, catalogue);
  const paths = table.map((e) => e.path);

  test('every page and every sub-route of the menu is routed, once', () => {
    for (const section of menu) {
      for (const item of section.children) {
        expect(paths).toContain(item.path);
        for (const route of item.routes) expect(paths).toContain(route);
      }
    }
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toContain('/netconf/dhcpserver/add');
    expect(paths).toContain('/netconf/vpnclient/ipseclog');
  });

  test('hidden pages are routed (the dashboard), sections are not pages', () => {
    expect(paths).toContain('/dashboard');
    expect(paths).toContain('/cloud/vendor999');
    expect(paths).not.toContain('/netconf');
    expect(paths).not.toContain('/');
  });

  test('sub-routes carry the title and module of their page', () => {
    const add = table.find((e) => e.path === '/netconf/dhcpserver/add');
    expect(add).toMatchObject({
      module: 'dhcpserver',
      label: 'menu.dhcpserver',
      menuPath: '/netconf/dhcpserver',
      subRoutes: ['/netconf/dhcpserver/add', '/netconf/dhcpserver/edit'],
      page: { kind: 'notAvailable' },
    });
    const userAdd = table.find((e) => e.path === '/system/usermanagement/add');
    expect(userAdd).toMatchObject({ module: 'usermanagement', page: { kind: 'entityForm', mode: 'add' } });
  });

  test('routes switched off by a capability are not in the table (they are not found)', () => {
    const noVlan = buildRouteTable(menuFor(['gateway']), catalogue).map((e) => e.path);
    expect(noVlan).not.toContain('/netconf/vlan');
    expect(noVlan).not.toContain('/netconf/vpnclient/ipsecadd');
    expect(noVlan).toContain('/netconf/vpnclient/pptpadd');
    expect(noVlan).not.toContain('/enterprisestorage/disklist');
    expect(paths).not.toContain('/appcenter/iptv');
    const cpe = buildRouteTable(menuFor([...CAPABILITIES]), catalogue).map((e) => e.path);
    expect(cpe).not.toContain('/wirelessmanage/aplist');
    expect(cpe).toContain('/appcenter/iptv');
  });

  test('an account only gets the routes its menu lists', () => {
    const voucher = buildRouteTable(menuFor(DEFAULT_CAPS, 'voucherAdmin'), catalogue).map((e) => e.path);
    expect(voucher).toContain('/hotspot/voucher');
    expect(voucher).toContain('/dashboard');
    expect(voucher).not.toContain('/system/usermanagement');
  });
});

describe('the console build', () => {
  const every = allRoutePaths();

  test('serves every page of the route map except those declared not built', () => {
    const missing = every.filter((path) => pageFor(path, PAGE_CATALOGUE).kind === 'notAvailable' && !isUnbuilt(path));
    expect(missing).toEqual([]);
  });

  test('declares nothing not built that it serves, and nothing outside the route map', () => {
    const served = every.filter((path) => isUnbuilt(path) && pageFor(path, PAGE_CATALOGUE).kind !== 'notAvailable');
    expect(served).toEqual([]);
    for (const path of UNBUILT_PAGES) expect(every, path).toContain(path);
  });

  test('every entity form sub-route resolves to a declared form', () => {
    for (const path of every) {
      const page = pageFor(path, PAGE_CATALOGUE);
      if (page.kind !== 'entityForm') continue;
      expect(() => resolveEntityForm(page.entityRoute, page.segment), path).not.toThrow();
      expect(resolveEntityForm(page.entityRoute, page.segment).mode, path).toBe(page.mode);
    }
    expect(resolveEntityForm('/netconf/vpnclient', 'ipsecadd')).toMatchObject({ mode: 'add', preset: { field: 'type', value: 'ipsec' } });
    expect(resolveEntities('/smartqos/flowcontrol').map((e) => e.name)).toEqual(['qosIpRule', 'qosMacRule']);
  });
});

describe('navigation helpers', () => {
  const menu = menuFor(DEFAULT_CAPS);

  test('/ leads to the dashboard, or to the first listed page without one', () => {
    expect(homePath(menu, '/dashboard')).toBe('/dashboard');
    const withoutDashboard = menu.filter((s) => s.path !== '/');
    expect(homePath(withoutDashboard, '/dashboard')).toBe(withoutDashboard[0]!.children[0]!.path);
    expect(homePath([], '/dashboard')).toBeNull();
  });

  test('the page of a sub-route is the highlighted menu entry', () => {
    expect(activeItemPath(menu, '/netconf/dhcpserver/edit')).toBe('/netconf/dhcpserver');
    expect(activeItemPath(menu, '/netconf/dhcpserver/')).toBe('/netconf/dhcpserver');
    expect(activeItemPath(menu, '/nowhere')).toBeNull();
  });

  test('hidden pages are not listed and a section left empty is dropped', () => {
    const listed = visibleSections(menu);
    expect(listed.map((s) => s.path)).not.toContain('/');
    const cloud = listed.find((s) => s.path === '/cloud');
    expect(cloud?.children.map((c) => c.path)).toEqual(['/cloud/cloud', '/cloud/sdlan']);
  });
});
