import type { PagePermission } from '../auth/role-policy.js';
import { MENU_MAP, normalizePath } from './menu-map.js';
import type { Capability, MenuChildDef, MenuItem, MenuSection, MenuSectionDef } from './menu-types.js';

interface CapabilityRule {
  requires?: Capability;
  excludedBy?: Capability;
}

/** Whether a section, page or sub-route is present on a device with these capabilities. */
export function capabilityAllows(rule: CapabilityRule, capabilities: ReadonlySet<Capability>): boolean {
  if (rule.requires && !capabilities.has(rule.requires)) return false;
  if (rule.excludedBy && capabilities.has(rule.excludedBy)) return false;
  return true;
}

/** Full path of a page: the dashboard section `/` holds `/dashboard`. */
export function childPath(section: MenuSectionDef, child: MenuChildDef): string {
  return section.path === '/' ? child.path : `${section.path}${child.path}`;
}

function subRoutes(child: MenuChildDef): Array<{ path: string; requires?: Capability }> {
  return (child.sub ?? []).map((s) => (typeof s === 'string' ? { path: s } : s));
}

/** Full paths of a page's sub-routes, optionally only those the capabilities allow. */
export function subRoutePaths(
  section: MenuSectionDef,
  child: MenuChildDef,
  capabilities?: ReadonlySet<Capability>,
): string[] {
  const base = childPath(section, child);
  return subRoutes(child)
    .filter((s) => !capabilities || capabilityAllows(s, capabilities))
    .map((s) => `${base}/${s.path}`);
}

export function menuLabel(module: string): string {
  return `menu.${module}`;
}

export interface BuildMenuInput {
  capabilities: ReadonlySet<Capability>;
  /** Modules switched off on this device (spec §2). */
  disabledModules: ReadonlySet<string>;
  /** The signed-in account's permission on a page module. */
  permissionOf: (module: string) => PagePermission;
}

/**
 * The menu one account sees on one device: pages whose capability rule fails, whose module is
 * disabled or which the account may not open are left out; a section left empty, or whose own
 * module is disabled, is left out too. Hidden pages stay, marked hidden, so they stay routable.
 */
export function buildMenu(input: BuildMenuInput, map: readonly MenuSectionDef[] = MENU_MAP): MenuSection[] {
  const out: MenuSection[] = [];
  for (const section of map) {
    if (!capabilityAllows(section, input.capabilities)) continue;
    if (input.disabledModules.has(section.module)) continue;
    const children: MenuItem[] = [];
    for (const child of section.children) {
      if (!capabilityAllows(child, input.capabilities)) continue;
      if (input.disabledModules.has(child.module)) continue;
      const permission = input.permissionOf(child.module);
      if (permission === 'forbidden') continue;
      children.push({
        path: childPath(section, child),
        module: child.module,
        label: menuLabel(child.module),
        hidden: child.hidden === true,
        routes: subRoutePaths(section, child, input.capabilities),
        permission,
      });
    }
    if (children.length === 0) continue;
    out.push({ path: section.path, module: section.module, label: menuLabel(section.module), children });
  }
  return out;
}

/**
 * Every page and sub-route path declared in a map, whatever the capabilities (the console
 * registers them all and lets the menu decide what is reachable). Section paths are groups,
 * not pages, and are not included.
 */
export function allRoutePaths(map: readonly MenuSectionDef[] = MENU_MAP): string[] {
  return map.flatMap((section) =>
    section.children.flatMap((child) => [childPath(section, child), ...subRoutePaths(section, child)]),
  );
}

/** Every module name of a map: sections and pages, each once. */
export function allModules(map: readonly MenuSectionDef[] = MENU_MAP): string[] {
  const names = new Set<string>();
  for (const section of map) {
    names.add(section.module);
    for (const child of section.children) names.add(child.module);
  }
  return [...names];
}

export interface MenuChildMatch {
  section: MenuSectionDef;
  child: MenuChildDef;
  /** Full path of the page. */
  path: string;
  /** The sub-route segment when the path is below the page (e.g. `add`), else undefined. */
  subRoute?: string;
}

/**
 * The page a console path belongs to, so its module (ACL, menu highlight) can be found:
 * `/netconf/dhcpserver/edit` -> dhcpserver with subRoute `edit`. Segments after a declared
 * sub-route (record ids) still match it; a path under a page that is not one of its
 * sub-routes does not match.
 */
export function findMenuChild(path: string, map: readonly MenuSectionDef[] = MENU_MAP): MenuChildMatch | undefined {
  const target = normalizePath(path);
  for (const section of map) {
    for (const child of section.children) {
      const full = childPath(section, child);
      if (target === full) return { section, child, path: full };
      if (!target.startsWith(`${full}/`)) continue;
      const first = target.slice(full.length + 1).split('/')[0];
      const sub = subRoutes(child).find((s) => s.path === first);
      if (sub) return { section, child, path: full, subRoute: sub.path };
    }
  }
  return undefined;
}
