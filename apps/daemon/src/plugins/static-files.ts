import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { MSG } from '@portico/schema';
import type { Settings } from '../settings.js';
import { failure } from './api-envelope.js';

/** Page paths of the captive portal's bundle (spec §2 public routes). */
const PORTAL_PAGES = ['/auth', '/notice', '/terminal', '/user'];
/** Where the portal's build puts its files (its Vite `base`). */
const PORTAL_ASSETS = '/portal-assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';

export function isPortalPage(path: string): boolean {
  return PORTAL_PAGES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * The portal listener's address for a portal page asked of the console: the same host name
 * (the security guard has already accepted the Host header, so this is no open redirect), the
 * portal port, the same path and query. Null when the Host header does not parse.
 */
export function portalListenerUrl(hostHeader: string | undefined, portalPort: number, pathAndQuery: string): string | null {
  try {
    const url = new URL(`http://${hostHeader ?? ''}`);
    if (url.username || url.password || url.pathname !== '/') return null;
    url.port = String(portalPort);
    return `${url.origin}${pathAndQuery}`;
  } catch {
    return null;
  }
}

function isApi(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

/** A regular file under root for a URL path, or null; `..` cannot leave root. */
async function fileUnder(root: string, path: string): Promise<string | null> {
  const full = resolve(root, `.${path}`);
  if (full !== root && !full.startsWith(root + sep)) return null;
  try {
    return (await stat(full)).isFile() ? full.slice(root.length) : null;
  } catch {
    return null;
  }
}

/**
 * The console bundle: pre-compressed files (.br/.gz written by its build), hashed assets cached
 * for a year, pages revalidated every time, and client-side routes answered with the app's
 * index.html. A missing build answers 503 instead of failing.
 *
 * The captive portal's pages and assets are not served here: they are sent to the portal
 * listener on the same host. The portal app talks only to /portal-api, which exists there
 * alone, and it should stay so: that API is public and state-changing without a session or a
 * CSRF token (clients are known by address and MAC), sets its own self-service cookie, and is
 * what hotspot clients reach through the firewall. Answering it here too would put it behind
 * the console's guard as `public` routes beside the admin session cookie, widening the
 * console's surface; a redirect leaves the console's guard, CSRF and Host rules as they are.
 */
export async function registerStaticFiles(app: FastifyInstance, settings: Pick<Settings, 'consoleDir' | 'portalPort'>): Promise<void> {
  const consoleDir = resolve(settings.consoleDir);
  await app.register(fastifyStatic, { serve: false, preCompressed: true });

  const send = (reply: FastifyReply, root: string, file: string, cacheControl: string) => {
    reply.header('cache-control', cacheControl);
    reply.header('vary', 'accept-encoding');
    return reply.sendFile(file, root, { cacheControl: false });
  };

  const page = async (reply: FastifyReply, root: string, name: string) => {
    if (!(await fileUnder(root, '/index.html'))) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(`The ${name} is not installed on this device (${root} has no index.html).\n`);
    }
    return send(reply, root, '/index.html', 'no-cache');
  };

  app.get('/*', { config: { public: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.url.split('?')[0] ?? '/';
    let path: string;
    try {
      path = decodeURIComponent(raw);
    } catch {
      return reply.code(400).type('text/plain; charset=utf-8').send('Bad request\n');
    }
    if (path.includes('\0')) return reply.code(400).type('text/plain; charset=utf-8').send('Bad request\n');
    if (isApi(path)) return reply.code(404).send(failure(MSG.notFound));

    if (path.startsWith(PORTAL_ASSETS) || isPortalPage(path)) {
      const target = portalListenerUrl(request.headers.host, settings.portalPort, request.url);
      if (!target) return reply.code(400).type('text/plain; charset=utf-8').send('Bad request\n');
      return reply.header('cache-control', 'no-store').redirect(target, 302);
    }

    const file = path.endsWith('/') ? null : await fileUnder(consoleDir, path);
    if (file) return send(reply, consoleDir, file, path.startsWith('/assets/') ? IMMUTABLE : 'no-cache');
    // A missing hashed asset is a real 404: answering index.html would break the page silently.
    if (path.startsWith('/assets/')) return notFound(reply);
    return page(reply, consoleDir, 'admin console');
  });

  app.setNotFoundHandler((request, reply) => {
    if (isApi(request.url.split('?')[0] ?? '')) return reply.code(404).send(failure(MSG.notFound));
    return notFound(reply);
  });
}

function notFound(reply: FastifyReply) {
  return reply.code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('Not found\n');
}
