import type { AnyEntity } from '@portico/schema';

/** Console addresses of an entity's pages: `<route>`, `<route>/add`, `<route>/edit?id=<id>`. */

/** The list route: the declared one, else the current address without its add/edit step. */
export function listRouteOf(entity: AnyEntity, pathname: string): string {
  if (entity.route) return entity.route;
  const trimmed = pathname.replace(/\/+$/, '');
  return trimmed.replace(/\/(add|edit)$/, '') || '/';
}

export function addRouteOf(listRoute: string): string {
  return `${listRoute.replace(/\/+$/, '')}/add`;
}

export function editRouteOf(listRoute: string, id: string): string {
  return `${listRoute.replace(/\/+$/, '')}/edit?${new URLSearchParams({ id }).toString()}`;
}
