import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { fieldErrors, MSG } from '@portico/schema';
import type { AppContext } from '../../../app-context.js';
import { failure, success } from '../../../plugins/api-envelope.js';
import { ldapAuthenticate } from './ldap-auth.js';
import { ldapLoginError, ldapSettings } from './ldap-signin.js';

const testBody = z.object({
  action: z.literal('test').optional(),
  username: z.string().min(1, { error: 'validation.required' }).max(64, { error: 'validation.text.length' }),
  password: z.string().min(1, { error: 'validation.required' }).max(256, { error: 'validation.text.length' }),
});

/**
 * POST /api/auth/ldaptest: signs a user in against the saved LDAP settings (save first), so the
 * administrator sees the directory accept an account, and the DN it bound, before guests rely
 * on it. A failure answers with the message a guest would see.
 */
export function registerLdapRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/api/auth/ldaptest', { config: { policy: { module: 'ldap', effect: 'action' }, doc: { summary: 'Sign a user in against the saved LDAP settings' } } }, async (request) => {
    const body = testBody.safeParse(request.body ?? {});
    if (!body.success) return failure(MSG.invalid, fieldErrors(body.error));
    const settings = ldapSettings(ctx);
    if (!settings.enabled) return failure('msg.ldap.disabled');
    const outcome = await ldapAuthenticate(settings, body.data.username, body.data.password);
    return outcome.ok ? success({ dn: outcome.dn }) : failure(ldapLoginError(outcome).error);
  });
}
