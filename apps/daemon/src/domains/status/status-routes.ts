import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  chartRangeSchema,
  dashboardSchema,
  loadSeriesSchema,
  MSG,
  netifListSchema,
  onlineUserListSchema,
  systemInfoSchema,
} from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import { registerNetworkStatusRoutes } from './status-network-routes.js';

/** A write's action (spec §7: `update` unless another is given); other fields are the action's own. */
const actionBody = z.object({ action: z.string().max(32).default('update') }).passthrough().optional();

/**
 * Live data reads (spec §3 "Dashboard", "Statistics"). Each read belongs to the pages that show
 * it; the dashboard's own pieces stay readable by every account that may open the dashboard.
 */
export function registerStatusRoutes(root: FastifyInstance, ctx: AppContext): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { live } = ctx;

  app.get(
    '/api/dashboard',
    { config: { policy: { module: 'dashboard', effect: 'read' } }, schema: { response: { 200: envelope(dashboardSchema) } } },
    async () => success(live.dashboard()),
  );

  app.get(
    '/api/status/loadavg',
    {
      config: { policy: { module: ['dashboard', 'monitoring'], effect: 'read' } },
      schema: {
        querystring: z.object({ range: chartRangeSchema.default('5m') }),
        response: { 200: envelope(loadSeriesSchema) },
      },
    },
    async (request) => success(live.loadSeries(request.query.range)),
  );

  app.get(
    '/api/status/netif',
    {
      config: { policy: { module: ['dashboard', 'monitoring', 'interface'], effect: 'read' } },
      schema: { response: { 200: envelope(netifListSchema) } },
    },
    async () => success(live.netif()),
  );

  app.get(
    '/api/status/user',
    {
      config: { policy: { module: ['inneruser', 'authuserinfo'], effect: 'read' } },
      schema: { response: { 200: envelope(onlineUserListSchema) } },
    },
    async () => success(live.onlineUsers()),
  );

  app.get(
    '/api/sysconf/system',
    {
      config: { policy: { module: ['systemmaintain', 'dashboard'], effect: 'read' } },
      schema: { response: { 200: envelope(systemInfoSchema) } },
    },
    async () => success(live.system()),
  );

  // The configuration's state as the status pages show it: its latest revision, and the change
  // waiting for its confirmation, if any (spec §7 POST status/config, action get).
  app.post(
    '/api/status/config',
    {
      config: { policy: { module: ['dashboard', 'systemmaintain'], effect: 'write', actionEffects: { get: 'read' } } },
      schema: { body: actionBody },
    },
    async (request) =>
      request.body?.action === 'get'
        ? success({ revision: ctx.config.journal.latestId() ?? null, pending: ctx.config.status() })
        : failure(MSG.invalid, { action: 'validation.option' }),
  );

  registerNetworkStatusRoutes(root, ctx);
}
