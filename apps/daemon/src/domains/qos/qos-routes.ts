import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { chartRangeSchema, ISP_BUILTIN_GROUPS, ISP_FILE_GROUPS, ispDefaultsSchema, ispFileSchema, qosIsp } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { runCommand } from '../../engine/command-runner.js';
import { envelope, success } from '../../plugins/api-envelope.js';
import { FLOW_SERIES, linuxQosCounters, QosFlowHistory, simQosCounters, startQosFlowSampler } from './qos-flow.js';
import { readQosRows } from './qos-bindings.js';
import { isBuiltinIspGroup, readIspDefaults } from './qos-isp-defaults.js';

const seriesRates = z.object(Object.fromEntries(FLOW_SERIES.map((s) => [s, z.number().int().nonnegative()])) as Record<(typeof FLOW_SERIES)[number], z.ZodNumber>);

export const flowChartSchema = z.object({
  range: chartRangeSchema,
  /** Seconds between points. */
  step: z.number().int().positive(),
  points: z.array(
    z.object({
      t: z.number().int(),
      up: seriesRates,
      down: seriesRates,
      wans: z.record(z.string(), z.object({ rx: z.number().int().nonnegative(), tx: z.number().int().nonnegative() })),
    }),
  ),
});

/**
 * Smart QoS reads beyond its entities: the flow charts (GET /api/flow/chart?range=5m), fed by
 * a sampler the daemon runs from start to close; the definition file a group uses now, for
 * download (GET /api/flow/ispinfo/file?group=telecom); and the size of each shipped file
 * (GET /api/flow/ispinfo/defaults), for the operator list.
 */
export function registerQosRoutes(root: FastifyInstance, ctx: AppContext): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const history = new QosFlowHistory();
  const read =
    ctx.settings.driver === 'sim'
      ? simQosCounters(['wan1'])
      : linuxQosCounters({ root: ctx.settings.systemRoot, run: runCommand });
  // The sim driver's sampler is a pure function of time; linux and openwrt (the same tc script) read the system.
  const stop = startQosFlowSampler(read, history, ctx.now);
  root.addHook('onClose', async () => stop());

  app.get(
    '/api/flow/chart',
    {
      config: { policy: { module: 'smartqos', effect: 'read' } },
      schema: { querystring: z.object({ range: chartRangeSchema.default('5m') }), response: { 200: envelope(flowChartSchema) } },
    },
    async (request) => success(history.chart(request.query.range, ctx.now())),
  );

  app.get(
    `/api/${qosIsp.path}/file`,
    {
      config: { policy: { module: 'smartqos', effect: 'read' } },
      schema: { querystring: z.object({ group: z.enum(ISP_FILE_GROUPS, { error: 'validation.option' }) }), response: { 200: envelope(ispFileSchema) } },
    },
    async (request) => {
      const { group } = request.query;
      const uploaded = readQosRows(ctx.db).qosIsp?.find((row) => row.group === group);
      if (uploaded) return success({ group, source: 'uploaded' as const, networks: uploaded.networks });
      if (isBuiltinIspGroup(group)) return success({ group, source: 'builtin' as const, networks: [...readIspDefaults(group)] });
      return success({ group, source: 'none' as const, networks: [] });
    },
  );

  app.get(
    `/api/${qosIsp.path}/defaults`,
    { config: { policy: { module: 'smartqos', effect: 'read' } }, schema: { response: { 200: envelope(ispDefaultsSchema) } } },
    async () => success({ groups: ISP_BUILTIN_GROUPS.map((group) => ({ group, count: readIspDefaults(group).length })) }),
  );
}
