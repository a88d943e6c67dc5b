import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { hotspotUser, localUserPasswordStatusSchema, type AnyEntity } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { failure, success } from '../../plugins/api-envelope.js';
import { actorOf } from '../../config/config-write.js';
import { localUsers, type LocalUser } from './local-user-store.js';

const cleanBody = z.object({ action: z.literal('clean', { error: 'validation.option' }).default('clean') });

/**
 * The local user page's clean-ups (spec §7 POST auth/clearuser and auth/cleantel): removing
 * every expired account, and forgetting the phone numbers of the given accounts (all without
 * ids). Both are journalled like any account write. And the page's notice of the accounts whose
 * password must be set again before CHAP can check it (GET auth/userauth/needpassword).
 */
export function registerLocalUserRoutes(root: FastifyInstance, ctx: AppContext): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const users = localUsers(ctx);
  const entity = hotspotUser as unknown as AnyEntity;
  const policy = { module: 'localuser', effect: 'write' } as const;

  app.get(
    '/api/auth/userauth/needpassword',
    { config: { policy: { module: 'localuser', effect: 'read' }, doc: { summary: 'local accounts without a sealed password: CHAP cannot check them', response: localUserPasswordStatusSchema } } },
    // Names only, from the database: nothing is opened.
    async () => success({ needPassword: users.namesWithoutPassword() }),
  );

  app.post('/api/auth/clearuser', { config: { policy }, schema: { body: cleanBody } }, async (request) => {
    const expired = users.list().filter((user) => user.status === 'expired');
    const outcome = await ctx.config.write({
      entity,
      actor: actorOf(request),
      journalOnly: true,
      mutate: () => users.remove(expired.map((user) => user.id)),
      describe: () => expired.map((user) => ({ entity: entity.name, id: user.id, action: 'delete' as const, before: { ...user } })),
    });
    return outcome.ok ? success({ removed: outcome.result }) : outcome.reply;
  });

  app.post(
    '/api/auth/cleantel',
    { config: { policy }, schema: { body: cleanBody.extend({ ids: z.array(z.string().min(1).max(128)).max(10_000).optional() }) } },
    async (request) => {
      const { ids } = request.body;
      const chosen = ids ? ids.map((id) => users.get(id)).filter((user): user is LocalUser => user !== undefined) : users.list();
      if (ids && chosen.length === 0) return failure('msg.notFound');
      const withPhone = chosen.filter((user) => user.tel !== '');
      const outcome = await ctx.config.write({
        entity,
        actor: actorOf(request),
        journalOnly: true,
        mutate: async () => {
          for (const user of withPhone) await users.update(user.id, { tel: '' });
          return withPhone.length;
        },
        describe: () => withPhone.map((user) => ({ entity: entity.name, id: user.id, action: 'update' as const, before: { ...user }, after: { ...user, tel: '' } })),
      });
      return outcome.ok ? success({ cleared: outcome.result }) : outcome.reply;
    },
  );
}
