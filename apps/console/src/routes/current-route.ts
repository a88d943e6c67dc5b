import { createContext, useContext } from 'react';
import { useTranslation } from 'react-i18next';
import type { RouteEntry } from './route-table.js';

/** The route being shown: its menu module, title key and the account's permission on it. */
export const CurrentRouteContext = createContext<RouteEntry | null>(null);

export function useCurrentRoute(): RouteEntry | null {
  return useContext(CurrentRouteContext);
}

/**
 * A page's title: the menu label that leads to it. `fallbackKey` serves where no route is
 * current (a page rendered on its own, in tests).
 */
export function useMenuTitle(fallbackKey: string): string {
  const { t } = useTranslation();
  return t(useCurrentRoute()?.label ?? fallbackKey);
}
