import { defineDomain } from '../../config/domain-module.js';
import { hotspotConfigBindings } from './hotspot-config-bindings.js';
import { registerHotspotConfigRoutes } from './hotspot-config-routes.js';

/** The hotspot's configuration: local users (own table), portal uploads, the entities' rules. */
export const hotspotConfigModule = defineDomain({
  name: 'hotspot-config',
  pages: ['localportal', 'localuser'],
  bindings: hotspotConfigBindings,
  register: registerHotspotConfigRoutes,
});
