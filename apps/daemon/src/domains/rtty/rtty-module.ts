import { defineDomain } from '../../config/domain-module.js';
import { registerRtty, type RttyDeps } from './rtty-routes.js';

/** The browser terminal (/rtty): the device's login on a PTY over a WebSocket, for administrators. */
export const rttyModule = defineDomain({
  name: 'rtty',
  pages: ['telnetclient'],
  register: (app, ctx, deps: RttyDeps | undefined) => registerRtty(app, ctx, deps),
});
