import type { AnyEntity } from './define-entity.js';
import { adminUser } from '../system/admin-user.js';

/**
 * Every declared entity, one line each. The daemon registers routes for all of them, the
 * console builds pages for those with a `route`, and the i18n and injection suites walk it.
 */
export const ENTITIES: readonly AnyEntity[] = [adminUser as unknown as AnyEntity];

export function entityByPath(path: string): AnyEntity | undefined {
  return ENTITIES.find((e) => e.path === path);
}

export function entityByRoute(route: string): AnyEntity | undefined {
  return ENTITIES.find((e) => e.route === route);
}
