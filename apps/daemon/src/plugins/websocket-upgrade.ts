import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * WebSocket upgrades through Fastify's own routing, so every upgrade passes the security guard
 * (Host, Origin, session, allowed IP, CSRF, permission) like any request: Node hands upgrades to
 * the server's `upgrade` event, outside Fastify; here the raw request is routed with a response
 * written onto its socket. A refusal is that response (the handshake fails); a route declaring
 * `config.websocket` takes the socket with `takeUpgrade` and completes the handshake itself
 * (with the `ws` library's `handleUpgrade`).
 */

const UPGRADE = Symbol('portico.upgrade');

export interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
}

type UpgradeRequest = IncomingMessage & { [UPGRADE]?: PendingUpgrade & { taken: boolean } };

export function registerWebSocketUpgrades(app: FastifyInstance): void {
  app.server.on('upgrade', (raw: UpgradeRequest, socket: Duplex, head: Buffer) => {
    const pending = { socket, head, taken: false };
    raw[UPGRADE] = pending;
    const response = new ServerResponse(raw);
    response.assignSocket(socket as Socket);
    // An answer instead of a handshake ends the connection: there is no HTTP after an upgrade.
    response.on('finish', () => {
      if (!pending.taken) socket.destroy();
    });
    socket.on('error', () => socket.destroy());
    try {
      app.routing(raw, response);
    } catch (error) {
      app.log.warn({ err: error }, 'WebSocket upgrade not routed');
      socket.destroy();
    }
  });
}

/**
 * The upgrade of a request that arrived as one, handed over once; null for a plain request.
 * The caller owns the socket from then on (Fastify's reply is hijacked).
 */
export function takeUpgrade(request: FastifyRequest, reply: { hijack(): void }): PendingUpgrade | null {
  const pending = (request.raw as UpgradeRequest)[UPGRADE];
  if (!pending || pending.taken) return null;
  pending.taken = true;
  reply.hijack();
  return { socket: pending.socket, head: pending.head };
}
