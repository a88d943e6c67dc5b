import { entitiesByRoute, entityFormAt, type AnyEntity, type EntityFormRoute } from '@portico/schema';

/** Loaded with an entity page only: this is where zod and the entity schemas come in. */

/** The entities a list route shows (usually one; IP and MAC bandwidth rules share a page). */
export function resolveEntities(route: string): AnyEntity[] {
  const entities = entitiesByRoute(route);
  if (entities.length === 0) throw new Error(`no entity is declared for the route ${route}`);
  return entities;
}

/** The entity form a sub-route segment below a list route serves. */
export function resolveEntityForm(route: string, segment: string): EntityFormRoute & { entity: AnyEntity } {
  const form = entityFormAt(route, segment);
  if (!form) throw new Error(`no entity form is declared for ${route}/${segment}`);
  return form;
}
