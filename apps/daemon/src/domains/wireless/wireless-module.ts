import { defineDomain } from '../../config/domain-module.js';
import { WIRELESS_DEVICE_MIGRATIONS } from './controller/wireless-device-store.js';
import { wirelessBindings } from './wireless-bindings.js';
import { WIRELESS_CHANNEL_MIGRATIONS } from './wireless-channel-overrides.js';
import { registerWirelessRoutes, WIRELESS_PAGES } from './wireless-routes.js';
import { WirelessService } from './wireless-service.js';

const services = new WeakMap<object, WirelessService>();

/** The running controller of a daemon (by its database): the device transport hands it links. */
export function wirelessServiceOf(ctx: { db: object }): WirelessService | undefined {
  return services.get(ctx.db);
}

/**
 * The wireless controller: AP groups with their SSIDs and radio profiles, the MAC filter and
 * CPE profiles as entities; adopted devices speak the uCentral protocol to the controller,
 * which sends each the configuration its group or profile makes.
 */
export const wirelessModule = defineDomain({
  name: 'wireless',
  pages: WIRELESS_PAGES,
  capabilities: [],
  migrations: [...WIRELESS_DEVICE_MIGRATIONS, ...WIRELESS_CHANNEL_MIGRATIONS],
  bindings: (ctx) =>
    wirelessBindings(
      ctx.db,
      (ids) => services.get(ctx.db)?.devicesIn(ids).length ?? 0,
      () => services.get(ctx.db)?.rowsChanged(),
    ),
  register: (app, ctx) => {
    const service = new WirelessService(ctx, (error) => app.log.error({ err: error }, 'wireless controller'));
    services.set(ctx.db, service);
    registerWirelessRoutes(app, service);
    return service;
  },
});
