import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { fieldErrors, hotspotRadius, MSG, type HotspotRadius } from '@portico/schema';
import type { AppContext } from '../../../app-context.js';
import { failure, success } from '../../../plugins/api-envelope.js';
import { RadiusService } from './radius-service.js';
import { DAE_SESSION_SOURCES } from '../hotspot-public.js';

const testBody = z.object({
  action: z.literal('test').optional(),
  username: z.string().min(1, { error: 'validation.required' }).max(64, { error: 'validation.text.length' }).default('portico-test'),
  password: z.string().max(128, { error: 'validation.text.length' }).default('portico-test'),
});

/** The stored RADIUS settings (the singleton's row), with its defaults. */
export function radiusSettings(ctx: Pick<AppContext, 'db'>): HotspotRadius {
  const row = ctx.db.prepare("SELECT data FROM config_rows WHERE entity = ? AND id = ''").get(hotspotRadius.name) as { data: string } | undefined;
  return hotspotRadius.schema.parse(row ? JSON.parse(row.data) : {});
}

/**
 * The RADIUS service of the hotspot and POST /api/auth/radiustest: one Access-Request with the
 * saved settings (spec §5: save first), answered with whether the server accepted or rejected
 * the test account and how long it took, or why it did not answer.
 */
export function registerRadius(app: FastifyInstance, ctx: AppContext): RadiusService {
  const service = new RadiusService({
    settings: () => radiusSettings(ctx),
    now: ctx.now,
    report: (error, what) => app.log.warn({ err: error }, what),
    daeHost: ctx.settings.host,
    otherSessions: () => {
      const sources = ctx.contributions(DAE_SESSION_SOURCES);
      if (!sources.length) return [];
      const snapshot = ctx.config.journal.capture();
      return sources.flatMap((source) => source.sessions(snapshot));
    },
  });
  app.post('/api/auth/radiustest', { config: { policy: { module: 'radius', effect: 'action' }, doc: { summary: 'Send one Access-Request with the saved RADIUS settings' } } }, async (request) => {
    const body = testBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    const result = await service.test(body.data.username, body.data.password);
    return result.ok ? success({ accepted: result.accepted, rttMs: result.rttMs }) : failure(`msg.radius.${result.error}`);
  });
  // The disconnect port follows a save before it is answered; the service's timer catches
  // anything else (a port another program held).
  const unfollow = ctx.config.onApplied(() => service.reconcile());
  app.addHook('onReady', async () => {
    try {
      await service.start();
    } catch (error) {
      app.log.error({ err: error }, 'RADIUS disconnect port could not be opened');
    }
  });
  app.addHook('onClose', async () => {
    unfollow();
    await service.stop();
  });
  return service;
}
