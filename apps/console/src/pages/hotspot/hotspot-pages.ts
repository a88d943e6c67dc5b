import { createElement, lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { hotspotListPaths } from './hotspot-list-routes.js';

type LazyPage = LazyExoticComponent<ComponentType>;

function listPage(path: string): LazyPage {
  // One component per path, so moving between a list and its typed sub-routes starts afresh.
  return lazy(async () => {
    const { default: HotspotListPage } = await import('./hotspot-list-page.js');
    return { default: () => createElement(HotspotListPage, { key: path }) };
  });
}

/**
 * Hand-written Hotspot pages by full path, for the console's page registry: the local portal
 * (settings and its files), the local users (list and the accounts whose password must be set
 * again), the RADIUS server (settings and its connectivity test) and the white/black lists with their typed sub-routes.
 */
export const HOTSPOT_PAGES: Readonly<Record<string, LazyPage>> = {
  '/hotspot/localportal': lazy(() => import('./portal-page.js')),
  '/hotspot/localuser': lazy(() => import('./local-user-page.js')),
  '/hotspot/radius': lazy(() => import('./radius-page.js')),
  ...Object.fromEntries(hotspotListPaths().map((path) => [path, listPage(path)])),
};
