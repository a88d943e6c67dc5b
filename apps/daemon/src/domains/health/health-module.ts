import { defineDomain } from '../../config/domain-module.js';
import { realScheduler } from '../../config/config-types.js';
import { runCommand } from '../../engine/command-runner.js';
import { HealthEventStore, HEALTH_MIGRATIONS } from './health-events.js';
import { HealthExamination } from './health-examination.js';
import { HealthMonitor } from './health-monitor.js';
import { registerHealthRoutes } from './health-routes.js';
import { healthSources, type HealthDeps } from './health-sources.js';
import { SECURITY_EVENT_RECORDED } from './health-public.js';

/** Security: health monitoring, the routing health check and the security events. */
export const healthModule = defineDomain({
  name: 'health',
  pages: ['health', 'examination'],
  migrations: HEALTH_MIGRATIONS,
  register: (app, ctx, deps: HealthDeps | undefined) => {
    const given = deps ?? {};
    const sources = healthSources(ctx, given, given.run ?? runCommand);
    const events = new HealthEventStore(ctx.db, (event) => ctx.signals.emit(SECURITY_EVENT_RECORDED, event));
    const monitor = new HealthMonitor(sources, events, ctx.now, given.schedule ?? realScheduler, (error) => app.log.warn({ err: error }, 'health monitor'));
    const examination = new HealthExamination(sources, monitor, ctx.now);
    registerHealthRoutes(app, monitor, examination, events);
    monitor.start();
    return {
      stop: async () => {
        monitor.stop();
      },
    };
  },
});
