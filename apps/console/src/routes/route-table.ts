import type { MenuSection } from '@portico/schema';

/** What a console path shows. */
export type RoutePage =
  | { kind: 'custom' }
  | { kind: 'entityList'; entityRoute: string }
  /** `segment` is the sub-route below the list (`add`, `pptpedit`, `macadd`…); its suffix is the mode. */
  | { kind: 'entityForm'; entityRoute: string; segment: string; mode: 'add' | 'edit' }
  | { kind: 'notAvailable' };

export interface RouteEntry {
  /** Full path, e.g. `/netconf/dhcpserver/add`. */
  path: string;
  /** Module of the menu page the path belongs to (highlight, permission). */
  module: string;
  /** i18n key of the page title: the menu label of the page. */
  label: string;
  permission: MenuSection['children'][number]['permission'];
  /** Full path of the menu page the path belongs to (the list a form returns to). */
  menuPath: string;
  /** Every sub-route of that page this account and device have (capability-filtered by the server). */
  subRoutes: readonly string[];
  page: RoutePage;
}

export interface PageCatalogue {
  /** Paths with a hand-written page. */
  customPages: ReadonlySet<string>;
  /** List routes of declared entities. */
  entityRoutes: ReadonlySet<string>;
}

/** A form sub-route: `add`/`edit`, optionally after a prefix (`ipadd`, `pptpedit`; spec §2). */
const FORM_SEGMENT = /^[a-z0-9]*(add|edit)$/;

/**
 * Which page serves a path: a custom page, an entity list or form, or none in this build.
 * Which entity a form segment belongs to is resolved with the schemas, in the page's chunk
 * (a console test checks every routed segment resolves).
 */
export function pageFor(path: string, catalogue: PageCatalogue): RoutePage {
  if (catalogue.customPages.has(path)) return { kind: 'custom' };
  if (catalogue.entityRoutes.has(path)) return { kind: 'entityList', entityRoute: path };
  const cut = path.lastIndexOf('/');
  const parent = path.slice(0, cut);
  const segment = path.slice(cut + 1);
  const form = FORM_SEGMENT.exec(segment);
  if (catalogue.entityRoutes.has(parent) && form) {
    return { kind: 'entityForm', entityRoute: parent, segment, mode: form[1] === 'add' ? 'add' : 'edit' };
  }
  return { kind: 'notAvailable' };
}

/**
 * Every route the signed-in account may open, from the server's menu: each page and each
 * of its sub-routes, hidden pages included (they are routed, just not listed). Anything not
 * in this table is unknown to the console and shows the not-found page.
 */
export function buildRouteTable(menu: readonly MenuSection[], catalogue: PageCatalogue): RouteEntry[] {
  const entries = new Map<string, RouteEntry>();
  for (const section of menu) {
    for (const item of section.children) {
      for (const path of [item.path, ...item.routes]) {
        if (entries.has(path)) continue;
        entries.set(path, {
          path,
          module: item.module,
          label: item.label,
          permission: item.permission,
          menuPath: item.path,
          subRoutes: item.routes,
          page: pageFor(path, catalogue),
        });
      }
    }
  }
  return [...entries.values()];
}

/** Where `/` leads: the dashboard when the account has it, else the first listed page. */
export function homePath(menu: readonly MenuSection[], preferred: string): string | null {
  const items = menu.flatMap((s) => s.children);
  if (items.some((i) => i.path === preferred)) return preferred;
  return items.find((i) => !i.hidden)?.path ?? items[0]?.path ?? null;
}

/** The menu page a location belongs to, for highlighting: the page itself or one of its routes. */
export function activeItemPath(menu: readonly MenuSection[], pathname: string): string | null {
  const clean = pathname.replace(/\/+$/, '') || '/';
  for (const section of menu) {
    for (const item of section.children) {
      if (item.path === clean || item.routes.includes(clean)) return item.path;
    }
  }
  return null;
}

/** Menu sections as listed in the navbar: hidden pages left out, empty sections dropped. */
export function visibleSections(menu: readonly MenuSection[]): MenuSection[] {
  return menu
    .map((section) => ({ ...section, children: section.children.filter((item) => !item.hidden) }))
    .filter((section) => section.children.length > 0);
}
