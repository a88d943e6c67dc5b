import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { fieldErrors, healthCheckCommandSchema, healthCheckSchema, healthReportSchema, MSG } from '@portico/schema';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import type { RoutePolicy } from '../../plugins/route-policy.js';
import type { HealthEventStore } from './health-events.js';
import type { HealthExamination } from './health-examination.js';
import type { HealthMonitor } from './health-monitor.js';

export const HEALTH_URL = '/api/sysconf/health';
export const CHECK_URL = '/api/sysconf/check';

/** Events the health report carries, newest first. */
export const REPORT_EVENTS = 50;

const healthQuery = z.object({ _: z.string().optional() });

/**
 * `sysconf/health` (the health report with its findings and latest events) and
 * `sysconf/check` (the routing health check: read, start full or quick, stop).
 * `sysconf/events` is the securityEvents entity's own generic route.
 */
export function registerHealthRoutes(app: FastifyInstance, monitor: HealthMonitor, examination: HealthExamination, events: HealthEventStore): void {
  const readHealth: RoutePolicy = { module: 'health', effect: 'read' };
  const checkPolicy: RoutePolicy = { module: 'examination', effect: 'action', actionEffects: { get: 'read' } };

  app.get(
    HEALTH_URL,
    {
      config: { policy: readHealth, doc: { summary: 'Health report: disk, memory, upstream response times, link statistics since 0:00, LAN findings and the latest security events' } },
      schema: { querystring: healthQuery, response: { 200: envelope(healthReportSchema) } },
    },
    async () => success({ ...monitor.snapshot(), events: events.list(REPORT_EVENTS) }),
  );

  app.get(
    CHECK_URL,
    {
      config: { policy: { module: 'examination', effect: 'read' }, doc: { summary: 'The routing health check: the last or running check and its items' } },
      schema: { querystring: healthQuery, response: { 200: envelope(healthCheckSchema) } },
    },
    async () => success(examination.read()),
  );

  app.post(
    CHECK_URL,
    {
      config: {
        policy: checkPolicy,
        doc: { summary: 'start (mode full or quick; again: restart), stop, or get the routing health check', body: healthCheckCommandSchema, response: envelope(healthCheckSchema) },
      },
    },
    async (request) => {
      const parsed = healthCheckCommandSchema.safeParse(request.body ?? {});
      if (!parsed.success) return failure(MSG.invalid, fieldErrors(parsed.error));
      const command = parsed.data;
      if (command.action === 'get') return success(examination.read());
      request.log.info({ user: request.auth?.account.username, ip: request.ip, action: command.action }, 'health check');
      return success(command.action === 'start' ? examination.start(command.mode) : examination.stop());
    },
  );
}
