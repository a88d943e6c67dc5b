import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { revisionSummarySchema } from '@portico/schema';
import type { AppContext } from '../app-context.js';
import { envelope, success } from '../plugins/api-envelope.js';

export const CONFIRM_URL = '/api/sysconf/confirm';

const confirmBody = z.object({
  token: z.string({ error: 'validation.required' }).min(1, { error: 'validation.required' }).max(128, { error: 'validation.tooBig' }),
  action: z.enum(['confirm', 'revert'], { error: 'validation.option' }).default('confirm'),
});

const status = z.object({
  pending: z.boolean(),
  revision: z.number().int().optional(),
  user: z.string().optional(),
  summary: revisionSummarySchema.optional(),
  deadline: z.number().int().optional(),
  seconds: z.number().int().optional(),
  secondsLeft: z.number().int().optional(),
});

/**
 * Confirmation of a change that can cut the administrator off. The POST is public: after an
 * address change the console reaches the device at its new address, where its session cookie
 * does not follow; the one-time token from the write's reply is the credential.
 */
export function registerConfirmRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { config } = ctx;

  app.get(
    CONFIRM_URL,
    {
      // Every signed-in account may see that the device waits for a confirmation.
      config: { policy: { module: 'session', effect: 'read' }, doc: { summary: 'Whether a change waits for its confirmation' } },
      schema: { response: { 200: envelope(status) } },
    },
    async () => success(config.status()),
  );

  app.post(
    CONFIRM_URL,
    {
      config: { public: true, doc: { summary: 'Keep (confirm) or revert the change waiting for its confirmation' } },
      schema: {
        body: confirmBody,
        response: { 200: envelope(z.object({ revision: z.number().int().nullable() })) },
      },
    },
    async (request) => {
      const { token, action } = request.body as z.infer<typeof confirmBody>;
      const outcome = action === 'revert' ? await config.refuse(token, request.ip) : await config.confirm(token);
      return outcome.ok ? success({ revision: outcome.revision }) : outcome.reply;
    },
  );
}
