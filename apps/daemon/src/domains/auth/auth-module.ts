import { defineDomain } from '../../config/domain-module.js';
import { registerAuthRoutes } from './auth-routes.js';

/** Sign-in, sign-out, password and language changes (the checks themselves are plugins'). */
export const authModule = defineDomain({ name: 'auth', pages: ['session'], register: registerAuthRoutes });
