import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { fieldErrors, MSG, type ApiFailure } from '@portico/schema';
import { ValidationFailure } from './zod-compilers.js';

/** A reply of the contract's failure shape (HTTP 200 for business failures, DESIGN §3). */
export function failure(msg: string, errors?: Record<string, string>, data?: unknown): ApiFailure & { data?: unknown } {
  return errors ? { success: false, msg, errors } : data === undefined ? { success: false, msg } : { success: false, msg, data };
}

export function success<T>(data?: T): { success: true; data?: T } {
  return data === undefined ? { success: true } : { success: true, data };
}

/** Reply envelope schemas, for route declarations and the OpenAPI document. */
export const failureSchema = z.object({
  success: z.literal(false),
  msg: z.string(),
  errors: z.record(z.string(), z.string()).optional(),
  data: z.unknown().optional(),
});

export function envelope(data?: z.ZodType) {
  const ok = data ? z.object({ success: z.literal(true), data }) : z.object({ success: z.literal(true) });
  return z.union([ok, failureSchema]);
}

/** A same-origin Content-Security-Policy that is never framed, with the page's own sources. */
function sameOriginPolicy(sources: { style: string; img: string; font?: string }): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src ${sources.style}`,
    `img-src ${sources.img}`,
    ...(sources.font ? [`font-src ${sources.font}`] : []),
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Every console answer's. Mantine sets CSS variables through inline style elements and attributes. */
const CSP = sameOriginPolicy({ style: "'self' 'unsafe-inline'", img: "'self' data: blob:", font: "'self' data:" });

/** The captive portal's: no inline styles (its bundle has none), no fonts or blob images. */
export const PORTAL_CSP = sameOriginPolicy({ style: "'self'", img: "'self' data:" });

/**
 * The security headers of every answer of the console and of the portal listener: the page's
 * policy, never framed, no type sniffing, no referrer sent on.
 */
export function setSecurityHeaders(reply: FastifyReply, csp: string): void {
  reply.header('content-security-policy', csp);
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
}

function isApi(request: FastifyRequest): boolean {
  return request.url === '/api' || request.url.startsWith('/api/') || request.url.startsWith('/api?');
}

/**
 * The reply contract for every route: JSON failures instead of framework error pages, zod
 * validation failures as field `errors` (the validator comes in through
 * schemaControllerOptions), and the security headers.
 */
export function registerApiEnvelope(app: FastifyInstance): void {
  // A cross-site form can post text/plain without a preflight; only JSON is accepted.
  app.removeContentTypeParser('text/plain');

  app.addHook('onSend', async (request, reply, payload) => {
    setSecurityHeaders(reply, CSP);
    if (isApi(request)) reply.header('cache-control', 'no-store');
    return payload;
  });

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ValidationFailure) {
      return reply.code(200).send(failure(MSG.invalid, fieldErrors(error.error)));
    }
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return reply.code(500).send(failure('msg.serverError'));
    }
    const code = (error as { code?: string }).code;
    return reply.code(status).send(failure(code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'msg.tooLarge' : 'msg.badRequest'));
  });
}
