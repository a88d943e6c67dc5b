import { createElement, type ReactElement } from 'react';
import { buildMenu, CAPABILITIES, normalizePath, type Capability } from '@portico/schema';
import { CurrentRouteContext } from '../src/routes/current-route.js';
import { PAGE_CATALOGUE } from '../src/routes/page-registry.js';
import { buildRouteTable, type RouteEntry } from '../src/routes/route-table.js';

/**
 * The console's route table for a device with every page (all capabilities but `wifi_cpe`,
 * which removes the AP controller pages) and an account that may change everything.
 */
const capabilities = new Set<Capability>(CAPABILITIES.filter((c) => c !== 'wifi_cpe'));
export const ROUTE_TABLE: readonly RouteEntry[] = buildRouteTable(
  buildMenu({ capabilities, disabledModules: new Set(), permissionOf: () => 'modify' }),
  PAGE_CATALOGUE,
);

/** The route entry of a console address (query ignored), as the app makes it current. */
export function routeEntryOf(url: string): RouteEntry {
  const path = normalizePath(url);
  const entry = ROUTE_TABLE.find((e) => e.path === path);
  if (!entry) throw new Error(`${path} is not routed`);
  return entry;
}

/** A page element with the route of its address current, as RoutedPage renders it. */
export function onRoute(url: string, page: ReactElement): ReactElement {
  return createElement(CurrentRouteContext.Provider, { value: routeEntryOf(url) }, page);
}
