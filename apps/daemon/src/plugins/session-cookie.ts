import type { FastifyReply, FastifyRequest } from 'fastify';

/** Over HTTPS the cookie takes the `__Host-` prefix: Secure, no Domain, Path=/ enforced by browsers. */
export function sessionCookieName(request: FastifyRequest): string {
  return request.protocol === 'https' ? '__Host-portico_sid' : 'portico_sid';
}

export function readSessionCookie(request: FastifyRequest): string | undefined {
  return request.cookies[sessionCookieName(request)];
}

/** A browser-session cookie; lifetime is enforced by the server's idle and absolute timeouts. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, id: string): void {
  reply.setCookie(sessionCookieName(request), id, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(sessionCookieName(request), {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
  });
}

export const LANG_COOKIE = 'portico_lang';
