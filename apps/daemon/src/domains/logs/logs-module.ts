import type { AppContext } from '../../app-context.js';
import { defineDomain } from '../../config/domain-module.js';
import { dhcpLogContributions } from './logs-dhcp.js';
import { registerLogRoutes } from './logs-routes.js';
import { LogsService, type LogsDeps } from './logs-service.js';

const services = new WeakMap<AppContext, LogsService>();

/** The logs service of a running daemon (tests cut dnsmasq's file through it). */
export function logsServiceOf(ctx: AppContext): LogsService | undefined {
  return services.get(ctx);
}

/**
 * Logs (spec §1, §2 /logging, §7 `sysconf/log`): the system (kernel), port, SMS, auth, IPsec,
 * wireless and security (DHCP) logs, read, filtered, paged, cleaned and downloaded one way.
 */
export const logsModule = defineDomain<'logs', LogsDeps>({
  name: 'logs',
  pages: ['systemlogs', 'portlogs', 'smslogs', 'authlogs', 'wirelesslogs', 'securitylogs', 'vpnclient'],
  contributions: dhcpLogContributions,
  register: async (app, ctx, deps) => {
    const service = new LogsService(ctx, deps);
    await service.start();
    services.set(ctx, service);
    registerLogRoutes(app, service, ctx.now);
    return service;
  },
});
