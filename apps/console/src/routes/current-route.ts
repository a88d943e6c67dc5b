import { createContext, useContext } from 'react';
import { useTranslation } from 'react-i18next';
import type { RouteEntry } from './route-table.js';

/** The route being shown: its menu module, title key and the account's permission on it. */
export const CurrentRouteContext = createContext<RouteEntry | null>(null);

export function useCurrentRoute(): RouteEntry | null {
  return useContext(CurrentRouteContext);
}

/**
 * The title of a page the menu leads to: the text of that menu label, in the current
 * language. Pages never carry a title key of their own for it, so the title cannot drift from
 * the menu. Empty where no route is current (a page rendered on its own).
 */
export function useMenuTitle(): string {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  return route ? t(route.label) : '';
}
