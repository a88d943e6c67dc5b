import { defineDomain } from '../../config/domain-module.js';
import { hotspotConfigBackup } from './hotspot-config-backup.js';
import { hotspotConfigBindings } from './hotspot-config-bindings.js';
import { registerHotspotConfigRoutes } from './hotspot-config-routes.js';
import { LOCAL_USER_MIGRATIONS } from './local-user-store.js';

/** The hotspot's configuration: local users (own table, in the backup), portal uploads, the entities' rules. */
export const hotspotConfigModule = defineDomain({
  name: 'hotspot-config',
  pages: ['localportal', 'localuser'],
  bindings: hotspotConfigBindings,
  backup: hotspotConfigBackup,
  migrations: LOCAL_USER_MIGRATIONS,
  register: registerHotspotConfigRoutes,
});
