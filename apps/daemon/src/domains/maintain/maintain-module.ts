import { defineDomain } from '../../config/domain-module.js';
import { registerMaintainRoutes, type MaintainDeps } from './maintain-routes.js';

/** Backup, restore, factory reset and reboot. */
export const maintainModule = defineDomain({
  name: 'maintain',
  pages: ['systemmaintain'],
  register: (app, ctx, deps: MaintainDeps | undefined) => registerMaintainRoutes(app, ctx, deps),
});
