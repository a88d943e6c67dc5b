import { schemaControllerOptions } from '../../plugins/zod-compilers.js';
import { PORTAL_CSP, setSecurityHeaders } from '../../plugins/api-envelope.js';
import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { z } from 'zod';
import { isIpv4, MSG } from '@portico/schema';
import type { HotspotEngine, LoginRequest } from './hotspot-engine.js';
import type { NeighbourLookup } from './hotspot-neighbours.js';
import { CAPTIVE_CONTENT_TYPE, captiveJson } from './hotspot-captive.js';
import { LOGIN_ERRORS, type HotspotZone, type ReminderTemplate } from './hotspot-types.js';
import {
  activeCustomPortal,
  CUSTOM_PORTAL_PREFIX,
  PORTAL_IMAGE_PREFIX,
  portalImageUrls,
  serveCustomFile,
  servePortalImage,
  type PortalFilesSource,
} from './hotspot-portal-files.js';
import { clientIp } from './hotspot-request.js';
import type { PortalNotice } from './hotspot-public.js';

/**
 * The captive portal's own listener (PORTICO_PORTAL_PORT), apart from the admin console: the
 * firewall sends unauthorised web requests here, so enabling the hotspot never puts the
 * console behind the portal. It serves the portal app, the RFC 8908 API and /portal-api/.
 * A client is identified by its source address and the MAC the neighbour table gives for it,
 * never by anything it sends. Contract: the portal API notes beside the portal app.
 */

export interface PortalZone {
  zone: HotspotZone;
  /** The gateway's address on the client's network: where the portal is reached. */
  gateway: string;
}

export interface PortalNotices {
  /** The local notice for the asking client's zone; '' when it is not shown there. */
  local: string;
  /** The expiration reminder's text, its renewal address and page. */
  expired: string;
  renewUrl: string;
  /** Absent: the reminder page does not return by itself, in the default template. */
  refresh?: boolean;
  template?: ReminderTemplate;
}

export interface PortalDeps {
  engine: HotspotEngine;
  zoneFor(ip: string): PortalZone | null;
  neighbours: NeighbourLookup;
  portalPort: number;
  portalDir: string;
  /** The notices as the client of a zone (null: of none) sees them. */
  notices(zone: PortalZone | null): PortalNotices;
  /** The administrator's uploaded picture, logo and custom page; absent: none are served. */
  files?: PortalFilesSource;
  logLevel?: string;
  /** The notice another domain confines an address to (hotspot-public.ts); absent: none does. */
  noticeFor?(ip: string): PortalNotice | null;
  /** Where a captive client of a zone with an outside portal (wifidog) signs in; null: not set up. */
  externalLogin?(zone: PortalZone, client: { ip: string; mac: string }, original: string): Promise<string | null> | string | null;
}

/** Self-service pages, reached under /user and under /terminal/user (spec §2 public routes). */
const USER_PAGES = ['', '/login', '/register', '/cpwd', '/mgr', '/mgrsuc'];
/** Every public route the portal app answers; the listener serves its index.html for each. */
export const PORTAL_PAGES: readonly string[] = [
  '/',
  '/auth',
  '/auth/portal',
  '/auth/success',
  '/notice',
  '/notice/expired',
  '/notice/local',
  '/terminal',
  ...USER_PAGES.map((page) => `/terminal/user${page}`),
  ...USER_PAGES.map((page) => `/user${page}`),
];
const PORTAL_ASSETS = '/portal-assets/';
/** The pages a client lands on: the custom page replaces these when it is in use. */
const LANDING_PAGES: readonly string[] = ['/', '/auth', '/auth/portal'];
const SMALL_BODY = 16 * 1024;

const loginBody = z.intersection(
  z.discriminatedUnion('method', [
    z.object({ method: z.literal('voucher'), code: z.string().min(1).max(64) }),
    z.object({ method: z.literal('local'), username: z.string().min(1).max(64), password: z.string().min(1).max(128) }),
    z.object({ method: z.literal('password'), password: z.string().min(1).max(128) }),
    z.object({ method: z.literal('onekey') }),
    z.object({ method: z.literal('ldap'), username: z.string().min(1).max(64), password: z.string().min(1).max(128) }),
    z.object({ method: z.literal('sms'), phone: z.string().min(1).max(20), code: z.string().min(1).max(8) }),
  ]),
  z.object({ acceptTerms: z.literal(true).optional() }),
);

function fail(msg: string, errors?: Record<string, string>) {
  return errors ? { success: false, msg, errors } : { success: false, msg };
}

function localAddress(request: FastifyRequest): string {
  const raw = request.socket.localAddress ?? '';
  return raw.startsWith('::ffff:') ? raw.slice(7) : raw;
}

async function fileUnder(root: string, path: string): Promise<string | null> {
  const full = resolve(root, `.${path}`);
  if (full !== root && !full.startsWith(root + sep)) return null;
  try {
    return (await stat(full)).isFile() ? full.slice(root.length) : null;
  } catch {
    return null;
  }
}

export async function buildPortalServer(deps: PortalDeps): Promise<FastifyInstance> {
  const { engine } = deps;
  const app = Fastify({
    logger: { level: deps.logLevel ?? 'warn' },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: SMALL_BODY,
    // The daemon's zod validator and JSON serialiser: Ajv is not part of the bundle.
    schemaController: schemaControllerOptions as never,
  }) as unknown as FastifyInstance;
  const portalDir = resolve(deps.portalDir);
  await app.register(fastifyStatic, { serve: false, preCompressed: true });
  // The console's security headers on every answer, pages and API alike; the custom page's
  // files keep the policy they were given (CUSTOM_PORTAL_CSP).
  app.addHook('onSend', async (_request, reply, payload) => {
    const own = reply.getHeader('content-security-policy');
    setSecurityHeaders(reply, typeof own === 'string' ? own : PORTAL_CSP);
    return payload;
  });

  const portalBase = (request: FastifyRequest, zone: PortalZone | null) => {
    const address = zone?.gateway ?? localAddress(request);
    return `http://${isIpv4(address) ? address : '127.0.0.1'}:${deps.portalPort}`;
  };

  /** The client behind a request: address, MAC and zone; null when it is not a hotspot client. */
  const identify = async (request: FastifyRequest) => {
    const ip = clientIp(request);
    const zone = deps.zoneFor(ip);
    const mac = zone ? await deps.neighbours(ip) : null;
    return { ip, mac, zone };
  };

  const sessionData = (ip: string) => {
    const session = engine.session(ip);
    if (!session) return undefined;
    return {
      secondsRemaining: engine.secondsRemaining(session),
      bytesRemaining: engine.bytesRemaining(session),
      ...(session.account ? { username: session.account.replace(/^[a-z]+:/, '') } : {}),
      ...(session.plan ? { plan: session.plan } : {}),
    };
  };

  app.get('/captive', async (request, reply) => {
    const { ip, zone } = await identify(request);
    const base = portalBase(request, zone);
    reply.header('cache-control', 'private, no-store').type(CAPTIVE_CONTENT_TYPE);
    return JSON.stringify(captiveJson(engine, ip, `${base}/auth/portal`));
  });

  app.get('/portal-api/state', async (request) => {
    const { ip, zone } = await identify(request);
    if (!zone) return fail(LOGIN_ERRORS.notConfigured);
    const z = zone.zone;
    const images = deps.files ? await portalImageUrls(deps.files) : {};
    return {
      success: true,
      data: {
        authorized: Boolean(engine.session(ip)),
        zone: {
          welcome: z.welcome,
          contact: z.contact,
          copyright: z.copyright,
          logintext: z.logintext,
          chargetext: z.chargetext,
          tos: z.tos,
          ...(z.tosTitle ? { tosTitle: z.tosTitle } : {}),
          methods: z.methods,
          ...images,
          ...(z.redirectUrl ? { redirectUrl: z.redirectUrl } : {}),
        },
        session: sessionData(ip),
      },
    };
  });

  app.post('/portal-api/login', async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (body.acceptTerms !== true) return fail(MSG.invalid, { acceptTerms: 'validation.required' });
    const parsed = loginBody.safeParse(body);
    if (!parsed.success) return fail(MSG.invalid, Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? 'method'), 'validation.required'])));
    const { ip, mac, zone } = await identify(request);
    if (!zone) return fail(LOGIN_ERRORS.notConfigured);
    // A client of a zone whose MAC the neighbour table does not know cannot be let through.
    if (!mac) return fail(LOGIN_ERRORS.system);
    const { acceptTerms: _accepted, ...login } = parsed.data as LoginRequest & { acceptTerms?: true };
    const outcome = await engine.login({ ip, mac }, zone.zone, login as LoginRequest);
    if (!outcome.ok) return fail(outcome.error);
    return {
      success: true,
      data: {
        secondsRemaining: engine.secondsRemaining(outcome.session),
        bytesRemaining: engine.bytesRemaining(outcome.session),
        ...(zone.zone.redirectUrl ? { redirectUrl: zone.zone.redirectUrl } : {}),
      },
    };
  });

  app.post('/portal-api/logout', async (request) => {
    await engine.kick(clientIp(request), 'logout');
    return { success: true, data: {} };
  });

  app.get('/portal-api/notice/local', async (request) => {
    const { zone } = await identify(request);
    return { success: true, data: { content: deps.notices(zone).local } };
  });
  // Shown both when access ran out and, with `session`, to a client reminded that it is about to.
  app.get('/portal-api/notice/expired', async (request) => {
    const { ip, zone } = await identify(request);
    const notices = deps.notices(zone);
    const session = sessionData(ip);
    return {
      success: true,
      data: {
        ...(notices.expired ? { content: notices.expired } : {}),
        ...(notices.renewUrl ? { renewUrl: notices.renewUrl } : {}),
        refresh: notices.refresh ?? false,
        template: notices.template ?? 'default',
        ...(session ? { session } : {}),
      },
    };
  });

  /** An http(s) address a client asked for, or none: anything else never reaches an outside portal's link. */
  const webAddress = (text: string | null): string => {
    if (!text || text.length > 2048) return '';
    try {
      const url = new URL(text);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : '';
    } catch {
      return '';
    }
  };

  const sendPage = async (reply: FastifyReply) => {
    reply.header('cache-control', 'no-cache');
    if (!(await fileUnder(portalDir, '/index.html'))) {
      return reply.code(503).type('text/plain; charset=utf-8').send('The captive portal is not installed on this device.\n');
    }
    return reply.sendFile('/index.html', portalDir, { cacheControl: false });
  };

  // Everything else: the portal's own pages and assets when asked of the portal itself, and
  // for any other site an unauthorised client tried, a redirect to the portal.
  const anyRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = (request.url.split('?')[0] ?? '/').replace(/\/+$/, '') || '/';
    const host = (request.headers.host ?? '').toLowerCase();
    const { ip, zone } = await identify(request);
    const base = portalBase(request, zone);
    const ownHost = host === base.slice('http://'.length) || host === `${localAddress(request)}:${deps.portalPort}`;
    if (ownHost && request.method === 'GET') {
      if (path.startsWith(PORTAL_ASSETS)) {
        const file = await fileUnder(portalDir, path.slice(PORTAL_ASSETS.length - 1));
        if (file) return reply.header('cache-control', 'public, max-age=31536000, immutable').sendFile(file, portalDir, { cacheControl: false });
        return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
      }
      if (path === PORTAL_IMAGE_PREFIX.slice(0, -1) || path.startsWith(PORTAL_IMAGE_PREFIX)) return servePortalImage(request, reply, deps.files, path);
      if (path === CUSTOM_PORTAL_PREFIX.slice(0, -1)) return reply.header('cache-control', 'no-cache').redirect(`${CUSTOM_PORTAL_PREFIX}index.html`, 302);
      if (path.startsWith(CUSTOM_PORTAL_PREFIX)) return serveCustomFile(request, reply, deps.files, path);
      // A zone signed in by an outside portal has no page here: its landing (the address the
      // captive API names, a bookmark) leads to the outside portal, unless it shows an error
      // the outside portal's return brought back.
      if (LANDING_PAGES.includes(path) && zone?.zone.externalPortal && deps.externalLogin && !engine.session(ip)) {
        const query = new URLSearchParams(request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '');
        if (!query.has('error')) {
          const mac = await deps.neighbours(ip);
          const outside = mac && !engine.isBlocked(mac) ? await deps.externalLogin(zone, { ip, mac }, webAddress(query.get('url'))) : null;
          if (outside) return reply.header('cache-control', 'no-store').redirect(outside, 302);
        }
      }
      // The custom page is served from its own folder so that its relative links resolve there;
      // the query (the address the client first asked for) goes along.
      if (LANDING_PAGES.includes(path) && activeCustomPortal(deps.files)) {
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        return reply.header('cache-control', 'no-cache').redirect(`${CUSTOM_PORTAL_PREFIX}index.html${query}`, 302);
      }
      if (PORTAL_PAGES.includes(path)) return sendPage(reply);
      if (path.startsWith('/portal-api/')) return reply.code(404).send(fail(MSG.notFound));
    }
    const ended = engine.endedFor(ip);
    // A redirected connection stays redirected (its NAT entry lives as long as it does), so
    // it is closed after the answer: the browser's next request opens a fresh one, which
    // reaches the site once the client is signed in.
    reply.header('cache-control', 'no-store').header('connection', 'close');
    const original = `http://${host || 'unknown'}${request.url}`;
    if (engine.session(ip) && host && !ownHost) {
      // Sent here to be reminded of its expiry: shown once, then its requests pass again.
      if (engine.reminderFor(ip)) {
        await engine.reminderShown(ip);
        const notices = deps.notices(zone);
        // A reminder that is only a renewal address sends the client straight there.
        if (!notices.expired && notices.renewUrl) return reply.redirect(notices.renewUrl, 302);
        return reply.redirect(`${base}/notice/expired?url=${encodeURIComponent(original)}`, 302);
      }
      // Signed in, but still on a connection redirected before: send it back where it was going.
      return reply.redirect(original, 302);
    }
    if (!engine.session(ip) && (ended === 'quota' || ended === 'expired')) return reply.redirect(`${base}/notice/expired`, 302);
    // An address another domain confines to the expiry notice (an expired PPPoE account's session).
    if (!engine.session(ip) && deps.noticeFor?.(ip) === 'expired') return reply.redirect(`${base}/notice/expired`, 302);
    if (zone?.zone.externalPortal && deps.externalLogin && !engine.session(ip)) {
      const mac = await deps.neighbours(ip);
      const outside = mac && !engine.isBlocked(mac) ? await deps.externalLogin(zone, { ip, mac }, original) : null;
      if (outside) return reply.redirect(outside, 302);
    }
    return reply.redirect(`${base}/auth/portal?url=${encodeURIComponent(original)}`, 302);
  };
  app.all('/*', anyRequest);
  app.all('/', anyRequest);
  return app;
}
