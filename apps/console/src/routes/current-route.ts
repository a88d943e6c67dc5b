import { createContext, useContext } from 'react';
import type { RouteEntry } from './route-table.js';

/** The route being shown: its menu module, title key and the account's permission on it. */
export const CurrentRouteContext = createContext<RouteEntry | null>(null);

export function useCurrentRoute(): RouteEntry | null {
  return useContext(CurrentRouteContext);
}
