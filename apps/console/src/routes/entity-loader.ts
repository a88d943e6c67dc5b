import { entityByRoute, type AnyEntity } from '@portico/schema';

/** Loaded with an entity page only: this is where zod and the entity schemas come in. */
export function resolveEntity(route: string): AnyEntity {
  const entity = entityByRoute(route);
  if (!entity) throw new Error(`no entity is declared for the route ${route}`);
  return entity;
}
