import { defineDomain } from '../../config/domain-module.js';
import { registerMenuRoutes } from './menu-routes.js';

/** The console's menu, built from the route map, the capabilities and the account. */
export const menuModule = defineDomain({ name: 'menu', pages: ['session'], register: registerMenuRoutes });
