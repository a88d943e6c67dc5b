import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isIpv4, isMac, MSG } from '@portico/schema';
import { envelope, failure, success } from '../../plugins/api-envelope.js';
import type { HotspotEngine } from './hotspot-engine.js';

export const onlineHotspotUserSchema = z.object({
  ip: z.string(),
  mac: z.string(),
  zone: z.string(),
  kind: z.string(),
  username: z.string(),
  plan: z.string(),
  startedAt: z.number(),
  onlineSeconds: z.number(),
  bytesUp: z.number(),
  bytesDown: z.number(),
  secondsRemaining: z.number().nullable(),
  bytesRemaining: z.number().nullable(),
  upKbps: z.number(),
  downKbps: z.number(),
});

export const reminderEntrySchema = z.object({
  ipaddr: z.string(),
  username: z.string(),
  remindedAt: z.number(),
  state: z.enum(['awaiting', 'shown', 'withdrawn']),
});

const actionBody = z.discriminatedUnion('action', [
  z.object({ action: z.literal('kickoff'), ip: z.string().refine(isIpv4, { error: 'validation.ip' }) }),
  z.object({
    action: z.literal('ratelimit'),
    ip: z.string().refine(isIpv4, { error: 'validation.ip' }),
    upKbps: z.number().int().min(0).max(10_000_000),
    downKbps: z.number().int().min(0).max(10_000_000),
  }),
  z.object({ action: z.literal('blacklist'), mac: z.string().refine(isMac, { error: 'validation.mac' }) }),
  z.object({ action: z.literal('unblock'), mac: z.string().refine(isMac, { error: 'validation.mac' }) }),
]);

/** Actions of spec §7 POST status/user whose functions the device does not have yet. */
const LATER_STATUS_ACTIONS = ['format', 'savelog'] as const;

/**
 * The online-user page's data and actions (/sysstatus/authuserinfo): kick off, speed limit
 * and black-list take effect in the data plane before the reply. Every route passes the one
 * security guard through its policy.
 */
export function registerHotspotAdminRoutes(root: FastifyInstance, engine: HotspotEngine): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/hotspot/online',
    {
      config: { policy: { module: ['authuserinfo', 'inneruser'], effect: 'read' } },
      schema: { response: { 200: envelope(z.object({ items: z.array(onlineHotspotUserSchema), total: z.number(), blocked: z.array(z.string()) })) } },
    },
    async () => {
      const now = Date.now();
      const items = engine.list().map((s) => ({
        ip: s.ip,
        mac: s.mac,
        zone: s.zone,
        kind: s.kind,
        username: s.account?.replace(/^[a-z]+:/, '') ?? '',
        plan: s.plan ?? '',
        startedAt: s.startedAt,
        onlineSeconds: Math.max(0, Math.round((now - s.startedAt) / 1000)),
        bytesUp: s.bytesUp,
        bytesDown: s.bytesDown,
        secondsRemaining: engine.secondsRemaining(s),
        bytesRemaining: engine.bytesRemaining(s),
        upKbps: s.upKbps,
        downKbps: s.downKbps,
      }));
      return success({ items, total: items.length, blocked: engine.blockedMacs() });
    },
  );

  // The reminder list (spec §3): clients reminded of their expiry within the current interval.
  app.get(
    '/api/hotspot/reminders',
    {
      config: { policy: { module: 'expirationnotice', effect: 'read' } },
      schema: { response: { 200: envelope(z.object({ items: z.array(reminderEntrySchema), total: z.number() })) } },
    },
    async () => {
      const items = engine.reminderList().map((entry) => ({ ipaddr: entry.ip, username: entry.username, remindedAt: entry.remindedAt, state: entry.state }));
      return success({ items, total: items.length });
    },
  );

  const act = async (body: z.infer<typeof actionBody>) => {
    switch (body.action) {
      case 'kickoff':
        return (await engine.kick(body.ip)) ? success() : failure('msg.notFound');
      case 'ratelimit':
        return (await engine.rateLimit(body.ip, body.upKbps, body.downKbps)) ? success() : failure('msg.notFound');
      case 'blacklist':
        await engine.block(body.mac.toLowerCase());
        return success();
      case 'unblock':
        await engine.unblock(body.mac.toLowerCase());
        return success();
    }
  };
  app.post('/api/hotspot/online', { config: { policy: { module: 'authuserinfo', effect: 'action' } }, schema: { body: actionBody } }, async (request) => act(request.body));

  // The spec's §7 path of the same actions; formatting a disk and saving logs come with storage and logs.
  app.post(
    '/api/status/user',
    { config: { policy: { module: 'authuserinfo', effect: 'action' } }, schema: { body: z.union([actionBody, z.object({ action: z.enum(LATER_STATUS_ACTIONS) })]) } },
    async (request) => ((LATER_STATUS_ACTIONS as readonly string[]).includes(request.body.action) ? failure(MSG.notAvailableYet) : act(request.body as z.infer<typeof actionBody>)),
  );
}
