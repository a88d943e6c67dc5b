import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname as osHostname } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  accessIpAllows,
  CSRF_HEADER,
  CSRF_PROTOCOL_PREFIX,
  allModules,
  MSG,
  pagePermission,
  PAGE_PERMISSIONS,
  permits,
  roleOf,
  SHELL_MODULES,
  type PagePermission,
  type RouteEffect,
} from '@portico/schema';
import type { Settings } from '../settings.js';
import type { AccountStore } from './account-store.js';
import type { SessionStore } from './session-store.js';
import { readSessionCookie } from './session-cookie.js';
import type { RequestAuth, RouteEntry, RoutePolicy } from './route-policy.js';

/** Every module a policy may name: the menu's sections and pages plus the shell's own. */
export const KNOWN_MODULES: ReadonlySet<string> = new Set<string>([...SHELL_MODULES, ...allModules()]);

/** The widest permission the account has on any of the policy's modules. */
export function policyPermission(auth: RequestAuth, policy: RoutePolicy): PagePermission {
  const modules = typeof policy.module === 'string' ? [policy.module] : policy.module;
  let best: PagePermission = 'forbidden';
  for (const module of modules) {
    const permission = pagePermission(auth.role, module);
    if (PAGE_PERMISSIONS.indexOf(permission) > PAGE_PERMISSIONS.indexOf(best)) best = permission;
  }
  return best;
}

function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  try {
    // URL parsing normalises case, IPv6 brackets and default ports.
    const url = new URL(`http://${header}`);
    if (url.username || url.password || url.pathname !== '/') return null;
    return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  } catch {
    return null;
  }
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function isApi(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

function isUpgrade(request: FastifyRequest): boolean {
  return request.headers.upgrade?.toLowerCase() === 'websocket';
}

/** The CSRF token a WebSocket upgrade offers among its subprotocols (`csrf.<token>`). */
function protocolToken(request: FastifyRequest): string | undefined {
  const offered = request.headers['sec-websocket-protocol'];
  if (typeof offered !== 'string') return undefined;
  const names = offered.split(',').map((name) => name.trim());
  return names.find((name) => name.startsWith(CSRF_PROTOCOL_PREFIX))?.slice(CSRF_PROTOCOL_PREFIX.length);
}

function fail(reply: FastifyReply, status: number, msg: string): FastifyReply {
  return reply.code(status).send({ success: false, msg });
}

/**
 * The one place that decides whether a request may reach its handler: Host, Origin, session,
 * the account's allowed addresses, CSRF token, forced password change and page permission.
 * Routes only declare `config.policy` or `config.public`; a route declaring neither makes the
 * daemon refuse to start.
 */
/** What the guard reads: the settings, the sessions and the accounts behind them. */
export interface GuardContext {
  settings: Settings;
  now: () => number;
  sessions: SessionStore;
  accounts: AccountStore;
}

export function registerSecurityGuard(app: FastifyInstance, ctx: GuardContext, routes: RouteEntry[]): void {
  const localName = osHostname().toLowerCase();
  const hostNames = new Set<string>(['localhost', localName, localName.split('.')[0]!, ...ctx.settings.allowedHosts]);

  const hostAllowed = (host: string): boolean =>
    isIP(host) !== 0 || hostNames.has(host) || host.endsWith('.localhost');

  app.decorateRequest('auth', null);

  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { policy?: RoutePolicy; public?: boolean; doc?: RouteEntry['doc'] };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!config.public && !config.policy) {
      throw new Error(`route ${methods.join(',')} ${route.url} declares neither config.policy nor config.public`);
    }
    if (config.policy) {
      const modules = typeof config.policy.module === 'string' ? [config.policy.module] : config.policy.module;
      for (const module of [...modules, ...Object.values(config.policy.pageBy?.pages ?? {})]) {
        if (!KNOWN_MODULES.has(module)) throw new Error(`route ${route.url} names unknown module "${module}"`);
      }
    }
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routes.push({
        method,
        url: route.url,
        policy: config.policy,
        public: Boolean(config.public),
        schema: route.schema as RouteEntry['schema'],
        doc: config.doc,
      });
    }
  });

  /** The policy narrowed to the one page a request names, for routes that serve several (`pageBy`). */
  const pageOf = (request: FastifyRequest, policy: RoutePolicy): RoutePolicy => {
    if (!policy.pageBy) return policy;
    const fields = (request.method === 'POST' ? request.body : request.query) as Record<string, unknown> | undefined;
    const value = fields?.[policy.pageBy.field];
    const page = typeof value === 'string' && Object.hasOwn(policy.pageBy.pages, value) ? policy.pageBy.pages[value] : undefined;
    return page ? { ...policy, module: page } : policy;
  };

  const checkEffect = (request: FastifyRequest, reply: FastifyReply, policy: RoutePolicy, effect: RouteEffect) => {
    const auth = request.auth!;
    if (!permits(policyPermission(auth, pageOf(request, policy)), effect)) return fail(reply, 200, MSG.forbidden);
    return undefined;
  };

  app.addHook('onRequest', async (request, reply) => {
    const host = hostOf(request.headers.host);
    if (host === null || !hostAllowed(host)) return fail(reply, 421, 'msg.badHost');

    const api = isApi(request.url);
    // Browsers send Origin on every WebSocket upgrade and never check it themselves.
    if ((api || isUpgrade(request)) && foreignOrigin(request)) return fail(reply, 403, MSG.csrf);

    const config = request.routeOptions.config;
    const policy = config.policy;
    // Unmatched URLs reach the not-found handler, which reveals nothing.
    if (!policy && !config.public) return;

    if (policy || config.session === 'optional') request.auth = authenticate(request);
    const auth = request.auth;
    if (policy && !auth) return fail(reply, 401, MSG.unauthorized);
    // A WebSocket opens a channel that writes: its upgrade carries the token like a POST.
    const upgrade = config.websocket === true && isUpgrade(request);
    if (auth && (request.method === 'POST' || upgrade)) {
      const token = upgrade ? protocolToken(request) : request.headers[CSRF_HEADER];
      if (typeof token !== 'string' || !sameToken(token, auth.session.csrf)) return fail(reply, 403, MSG.csrf);
    }
    if (!policy || !auth) return;
    if (auth.account.mustChangePassword && !policy.duringPasswordChange) return fail(reply, 200, MSG.changePassword);
    // Routes whose effect or page depends on the body are checked once the body is parsed.
    if ((policy.actionEffects || policy.pageBy) && request.method === 'POST') return;
    return checkEffect(request, reply, policy, upgrade ? (policy.upgradeEffect ?? policy.effect) : policy.effect);
  });

  app.addHook('preValidation', async (request, reply) => {
    const policy = request.routeOptions.config.policy;
    if (!(policy?.actionEffects || policy?.pageBy) || request.method !== 'POST' || !request.auth) return;
    const body = request.body as { action?: unknown } | undefined;
    const action = typeof body?.action === 'string' ? body.action : 'update';
    return checkEffect(request, reply, policy, policy.actionEffects?.[action] ?? policy.effect);
  });

  function foreignOrigin(request: FastifyRequest): boolean {
    if (request.headers['sec-fetch-site'] === 'cross-site') return true;
    const origin = request.headers.origin;
    if (origin === undefined) return false;
    try {
      const own = new URL(`${request.protocol}://${request.headers.host}`);
      const theirs = new URL(origin);
      return theirs.origin !== own.origin;
    } catch {
      return true;
    }
  }

  function authenticate(request: FastifyRequest): RequestAuth | null {
    const id = readSessionCookie(request);
    if (!id) return null;
    const session = ctx.sessions.find(id, ctx.now(), request.ip);
    if (!session) return null;
    const account = ctx.accounts.byId(session.userId);
    if (!account || account.disabled) {
      ctx.sessions.revoke(session.idHash);
      return null;
    }
    // Checked on every request: an allowed-IP change takes effect at once.
    if (!accessIpAllows(account.allowdIps, request.ip)) return null;
    return { session, account, role: roleOf(account.privilege) };
  }
}
