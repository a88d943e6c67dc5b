import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { buildMenu, pagePermission } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import { envelope, success } from '../../plugins/api-envelope.js';

const menuItem = z.object({
  path: z.string(),
  module: z.string(),
  label: z.string(),
  hidden: z.boolean(),
  routes: z.array(z.string()),
  permission: z.enum(['readonly', 'access', 'modify']),
});
const menuSection = z.object({ path: z.string(), module: z.string(), label: z.string(), children: z.array(menuItem) });

/** GET /api/menu: the sections and pages this device offers and this account may open (spec §2). */
export function registerMenuRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/menu',
    {
      config: { policy: { module: 'session', effect: 'read', duringPasswordChange: true } },
      schema: { response: { 200: envelope(z.array(menuSection)) } },
    },
    async (request) => {
      const role = request.auth!.role;
      return success(
        buildMenu({
          capabilities: ctx.settings.capabilities,
          disabledModules: ctx.settings.disabledModules,
          permissionOf: (module) => pagePermission(role, module),
        }),
      );
    },
  );
}
