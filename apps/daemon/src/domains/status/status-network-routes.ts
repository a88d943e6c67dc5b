import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  arpInfoQuerySchema,
  arpInfoSchema,
  dhcpLeaseListSchema,
  dhcpLeaseQuerySchema,
  lineDetailsQuerySchema,
  lineDetailsSchema,
  lineMonitoringSchema,
  monitoringQuerySchema,
  monitoringSchema,
  MSG,
  neighbourSchema,
  networkInterface,
  systemRouteListSchema,
  type NetworkInterface,
  systemRouteQuerySchema,
} from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import type { ConfigSnapshot, SnapshotRow } from '../../config/config-types.js';
import { LOAD_SAMPLE_MS, type ConfiguredLink, type NetworkFacts } from '../../drivers/live-source.js';
import { configRowCollection } from '../../config/entity-store.js';
import { createLinuxNetworkFacts } from '../../drivers/linux/linux-live.js';
import { NETWORK_FILES, networkConfigOf } from '../network/network-public.js';
import { NetworkStatus } from './status-network.js';

/** The current configuration, read as the journal captures it. */
function currentSnapshot(ctx: AppContext): ConfigSnapshot {
  const rows = ctx.db.prepare('SELECT entity, id, data FROM config_rows ORDER BY entity, rowid').all() as Array<{
    entity: string;
    id: string;
    data: string;
  }>;
  const out: Record<string, SnapshotRow[]> = {};
  for (const row of rows) (out[row.entity] ??= []).push({ id: row.id, data: JSON.parse(row.data) as Record<string, unknown> });
  return out;
}

function configuredLink(row: NetworkInterface): ConfiguredLink {
  const { ifname, role, proto, enabled, hwport, ipaddr, netmask, gateway, mtu } = row;
  return { ifname, role, proto, enabled, hwport, ipaddr, netmask, gateway, mtu };
}

/** The driver's network facts: the simulated device's own, or the real system's under the system root. */
export function networkFactsFor(ctx: AppContext): NetworkFacts {
  if (ctx.live.network) return ctx.live.network;
  const root = ctx.settings.systemRoot === '/' ? '' : ctx.settings.systemRoot.replace(/\/+$/, '');
  if (ctx.settings.driver === 'sim') {
    // A stand-in live source without a simulated network: nothing to show, and nothing to read.
    return { leases: async () => [], neighbours: async () => [], routes: async () => [], probe: async (_d, target) => ({ target, sent: 0, received: 0, latency: null }) };
  }
  return createLinuxNetworkFacts({ leasesFile: `${root}${NETWORK_FILES.leases}` });
}

/**
 * Network status reads (spec §2 /sysstatus, §7 `dhcpv4info`, `arpinfo`, `systemroute`): read-only,
 * each under the policy of the page that shows it. Interface rates are sampled every 5 seconds
 * for the monitoring charts while the daemon runs.
 */
export function registerNetworkStatusRoutes(root: FastifyInstance, ctx: AppContext, facts: NetworkFacts = networkFactsFor(ctx)): NetworkStatus {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const status = new NetworkStatus({ facts, live: ctx.live, config: () => networkConfigOf(currentSnapshot(ctx)), now: ctx.now });
  // A simulated device has the links its configuration names, like a real one.
  const interfaces = configRowCollection(ctx.db, networkInterface.name, ctx.now);
  ctx.live.followConfiguration?.(() => (interfaces.list() as unknown as NetworkInterface[]).map(configuredLink));

  status.sampleTraffic();
  const timer = setInterval(() => status.sampleTraffic(), LOAD_SAMPLE_MS);
  timer.unref();
  root.addHook('onClose', async () => clearInterval(timer));

  app.get(
    '/api/dhcpv4info',
    {
      config: { policy: { module: ['dhcplease', 'dhcpserver'], effect: 'read' } },
      schema: { querystring: dhcpLeaseQuerySchema, response: { 200: envelope(dhcpLeaseListSchema) } },
    },
    async (request) => success(await status.dhcpLeases(request.query)),
  );

  app.get(
    '/api/arplist',
    {
      config: { policy: { module: ['arpbind', 'arpinfo'], effect: 'read' } },
      schema: { response: { 200: envelope(z.object({ items: z.array(neighbourSchema), total: z.number().int() })) } },
    },
    async () => success(await status.arpList()),
  );

  app.get(
    '/api/arpinfo',
    {
      config: { policy: { module: ['arpinfo', 'arpbind'], effect: 'read' } },
      schema: { querystring: arpInfoQuerySchema, response: { 200: envelope(arpInfoSchema) } },
    },
    async (request) => success(await status.arpInfo(request.query)),
  );

  app.get(
    '/api/systemroute',
    {
      config: { policy: { module: ['systemroute', 'staticroute'], effect: 'read' } },
      schema: { querystring: systemRouteQuerySchema, response: { 200: envelope(systemRouteListSchema) } },
    },
    async (request) => success(await status.systemRoutes(request.query)),
  );

  app.get(
    '/api/status/monitoring',
    {
      config: { policy: { module: 'monitoring', effect: 'read' } },
      schema: { querystring: monitoringQuerySchema, response: { 200: envelope(monitoringSchema) } },
    },
    async (request) => success(status.monitoring(request.query.range)),
  );

  app.get(
    '/api/status/linemonitoring',
    {
      config: { policy: { module: 'linemonitoring', effect: 'read' } },
      schema: { response: { 200: envelope(lineMonitoringSchema) } },
    },
    async () => success(await status.lineMonitoring()),
  );

  app.get(
    '/api/status/linemonitoring/details',
    {
      config: { policy: { module: 'linemonitoring', effect: 'read' } },
      schema: { querystring: lineDetailsQuerySchema, response: { 200: envelope(lineDetailsSchema) } },
    },
    async (request) => {
      const details = await status.lineDetails(request.query.name, request.query.range);
      return details ? success(details) : failure(MSG.notFound);
    },
  );

  return status;
}
