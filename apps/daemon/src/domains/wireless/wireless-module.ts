import { hostname, networkInterfaces } from 'node:os';
import { contribute, defineDomain } from '../../config/domain-module.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { WIRELESS_DEVICE_MIGRATIONS } from './controller/wireless-device-store.js';
import { wirelessLogEntry } from './controller/wireless-controller-log.js';
import { wirelessBindings } from './wireless-bindings.js';
import { WIRELESS_CHANNEL_MIGRATIONS } from './wireless-channel-overrides.js';
import { registerFirmwareRoutes, registerWirelessRoutes, WIRELESS_PAGES } from './wireless-routes.js';
import { WirelessService, type WirelessDeps } from './wireless-service.js';
import { WIRELESS_FIRMWARE_MIGRATIONS } from './wireless-firmware.js';
import { wirelessRulesetContributor } from './wireless-ruleset.js';

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
export const wirelessModule = defineDomain<'wireless', WirelessDeps>({
  name: 'wireless',
  pages: WIRELESS_PAGES,
  capabilities: [],
  contributions: (settings) => [contribute(RULESET_PARTS, wirelessRulesetContributor(settings.wirelessPort))],
  migrations: [...WIRELESS_DEVICE_MIGRATIONS, ...WIRELESS_CHANNEL_MIGRATIONS, ...WIRELESS_FIRMWARE_MIGRATIONS],
  bindings: (ctx) =>
    wirelessBindings(
      ctx.db,
      (ids) => services.get(ctx.db)?.devicesIn(ids).length ?? 0,
      () => services.get(ctx.db)?.rowsChanged(),
    ),
  register: async (app, ctx, deps) => {
    const service = new WirelessService(ctx, (error) => app.log.error({ err: error }, 'wireless controller'), deps);
    services.set(ctx.db, service);
    // The wireless log page reads the controller's records through the logs domain.
    ctx.logs.provide('wireless', {
      entries: () => service.log.map(wirelessLogEntry),
      clear: () => void service.log.splice(0),
    });
    registerWirelessRoutes(app, service);
    await registerFirmwareRoutes(app, service);
    // Devices are served once the daemon serves: not in tests that only inject requests. The
    // CA work runs in the background so the console's listener is not held up; a port that
    // cannot be bound is logged, the console keeps running.
    app.addHook('onListen', () => {
      service
        .listenDevices({
          port: ctx.settings.wirelessPort,
          host: ctx.settings.host,
          names: controllerNames(),
          // A LAN network added later gives the gateway addresses its APs dial.
          currentNames: controllerNames,
          onRefused: (address, reason) => app.log.warn({ address, reason }, 'wireless device certificate refused'),
        })
        .then(
          (port) => app.log.info({ port }, 'wireless device listener'),
          (error: unknown) => app.log.error({ err: error }, 'wireless device listener not started'),
        );
    });
    return service;
  },
});

/** The names and addresses devices may reach the controller by: its server certificate's. */
function controllerNames(): string[] {
  const names = ['localhost', '127.0.0.1', '::1'];
  const host = hostname();
  if (/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(host)) names.unshift(host);
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (!address.internal && !address.address.includes('%')) names.push(address.address);
  }
  return names;
}
