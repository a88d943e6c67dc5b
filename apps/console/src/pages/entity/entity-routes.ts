import { entitiesByRoute, entityFormRoutes, type AnyEntity, type EntityFormRoute } from '@portico/schema';

/**
 * Console addresses of an entity's pages: the list, and its add and edit forms. A form opens on
 * its sub-route when the menu routes it (spec §2: `/add`, `/ipedit`, `/pptpadd`…), else over
 * the list in a drawer, so no Add or Edit button ever leads to a page that does not exist.
 */

/** The list route: the declared one, else the current address without its add/edit step. */
export function listRouteOf(entity: AnyEntity, pathname: string): string {
  if (entity.route) return entity.route;
  const trimmed = pathname.replace(/\/+$/, '');
  return trimmed.replace(/\/[a-z]*(add|edit)$/, '') || '/';
}

/**
 * Where a form returns to: the list, on the tab of its entity when the route lists several
 * (IP and MAC bandwidth rules).
 */
export function listAddressOf(entity: AnyEntity, pathname: string): string {
  const route = listRouteOf(entity, pathname);
  return entitiesByRoute(route).length > 1 ? `${route}?${new URLSearchParams({ [LIST_TAB_PARAM]: entity.name }).toString()}` : route;
}

/** The search parameter naming the open tab of a route that lists several entities. */
export const LIST_TAB_PARAM = 'tab';

export type FormPreset = NonNullable<EntityFormRoute['preset']>;

/** Where an Add or Edit button leads: a sub-route page, or the form in a drawer over the list. */
export type FormTarget = { kind: 'page'; path: string } | { kind: 'drawer' };

export interface AddAction {
  /** `add`, or the option an Add of a kind fixes (`pptp`). */
  key: string;
  preset?: FormPreset;
  target: FormTarget;
}

function routed(form: EntityFormRoute, listRoute: string, subRoutes: readonly string[]): boolean {
  return subRoutes.includes(`${listRoute}/${form.segment}`);
}

function pathOf(listRoute: string, form: EntityFormRoute, id?: string): string {
  const base = `${listRoute.replace(/\/+$/, '')}/${form.segment}`;
  return id === undefined ? base : `${base}?${new URLSearchParams({ id }).toString()}`;
}

/**
 * The Add buttons of a list. An entity with one form per kind (VPN clients by type) gets one
 * button per kind the menu routes (OpenVPN and IPsec only with the vlan capability); with
 * none routed, one Add opens the generic form in a drawer.
 */
export function addActions(entity: AnyEntity, listRoute: string, subRoutes: readonly string[]): AddAction[] {
  const forms = entityFormRoutes(entity).filter((form) => form.mode === 'add');
  const present = forms.filter((form) => routed(form, listRoute, subRoutes));
  const byKind = forms.some((form) => form.preset);
  if (byKind && present.length > 0) {
    return present.map((form) => ({ key: form.preset!.value, preset: form.preset!, target: { kind: 'page', path: pathOf(listRoute, form) } }));
  }
  const first = present[0];
  return [{ key: 'add', target: first ? { kind: 'page', path: pathOf(listRoute, first) } : { kind: 'drawer' } }];
}

/** Where a row's Edit leads: its kind's edit sub-route when routed, else the drawer. */
export function editTarget(
  entity: AnyEntity,
  listRoute: string,
  subRoutes: readonly string[],
  record: Readonly<Record<string, unknown>>,
  id: string,
): FormTarget {
  const form = entityFormRoutes(entity).find(
    (candidate) =>
      candidate.mode === 'edit' &&
      (!candidate.preset || String(record[candidate.preset.field]) === candidate.preset.value) &&
      routed(candidate, listRoute, subRoutes),
  );
  return form ? { kind: 'page', path: pathOf(listRoute, form, id) } : { kind: 'drawer' };
}

/** A related-page link is shown only when it leads somewhere this menu routes (a sub-route it lists). */
export function linkRouted(link: { route: string }, listRoute: string, subRoutes: readonly string[]): boolean {
  return !link.route.startsWith(`${listRoute}/`) || subRoutes.includes(link.route);
}
