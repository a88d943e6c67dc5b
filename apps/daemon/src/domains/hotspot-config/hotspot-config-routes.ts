import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { cleanPortalStaging, registerPortalUploadRoutes } from './portal-uploads.js';
import { registerLocalUserRoutes } from './local-user-routes.js';

/** The Hotspot configuration routes besides the derived entity routes: portal uploads, local user clean-ups. */
export async function registerHotspotConfigRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  cleanPortalStaging(ctx.settings.stateDir);
  await registerPortalUploadRoutes(app, ctx);
  registerLocalUserRoutes(app, ctx);
}
