import type { FastifyRequest } from 'fastify';

/** The client's IPv4 address as the portal listener saw it (an IPv4-mapped IPv6 address unwrapped). */
export function clientIp(request: FastifyRequest): string {
  const raw = request.socket.remoteAddress ?? '';
  return raw.startsWith('::ffff:') ? raw.slice(7) : raw;
}

/** A query parameter as text: '' when it is absent, not one string, or longer than `max`. */
export function queryText(request: FastifyRequest, name: string, max = 2048): string {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' && value.length <= max ? value : '';
}
