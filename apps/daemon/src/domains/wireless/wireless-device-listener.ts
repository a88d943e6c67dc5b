import { createServer, type Server } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { LINK_CLOSE_NORMAL, UCENTRAL_MAX_MESSAGE_BYTES, webSocketLink, type UcentralLink } from '@portico/schema';
import { checkDeviceCertificate, type DeviceCertificateCheck } from './controller/wireless-device-pki.js';

/**
 * The controller's end of the uCentral transport: a TLS WebSocket listener (OpenWiFi devices dial
 * port 15002) that asks every device for its client certificate, lets in only certificates of
 * the device CA naming a serial that is not revoked, and hands each connection to the controller
 * as a UcentralLink whose `peerSerial` is the serial the certificate proves. What the device
 * claims in its messages is checked against that serial by the controller.
 */

/** The WebSocket subprotocol OpenWiFi devices ask for; echoed when offered. */
export const UCENTRAL_SUBPROTOCOL = 'ucentral-broker';
/** A TLS handshake and WebSocket upgrade must finish within this. */
const HANDSHAKE_MS = 10_000;
/** TCP keep-alive probes find a device that vanished without closing. */
const KEEPALIVE_MS = 60_000;

export type DeviceRefusal = Exclude<DeviceCertificateCheck, { ok: true }>['reason'] | 'noCertificate';

export interface DeviceListenerOptions {
  port: number;
  host: string;
  /** The controller's TLS server key and certificate (PEM), issued by the device CA. */
  key: string | Buffer;
  cert: string | Buffer;
  /** The device CA certificate (PEM): TLS verifies client chains against it. */
  ca: string | Buffer;
  isRevoked(serial: string): boolean;
  onLink(link: UcentralLink): void;
  /** A device turned away before any link existed (certificate refused). */
  onRefused?(address: string, reason: DeviceRefusal): void;
  /** A device opened a TCP connection, before TLS: the moment to check the server certificate still fits. */
  onConnection?(): void;
  onError?(error: unknown): void;
}

export interface DeviceListener {
  /** The port bound (the one asked for, or the system's choice for 0). */
  readonly port: number;
  /** Open links at this moment. */
  readonly connections: number;
  /** Serves connections from now on with another server key and certificate (open links keep theirs). */
  setCertificate(key: string | Buffer, cert: string | Buffer): void;
  close(): Promise<void>;
}

/** An IPv4 address as itself rather than IPv4-mapped IPv6 (a dual-stack listener sees those). */
function unmapped(address: string | undefined): string | undefined {
  return address?.startsWith('::ffff:') ? address.slice(7) : address;
}

function addressOf(socket: { remoteAddress?: string; remotePort?: number }): string {
  const host = socket.remoteAddress ?? '';
  return host.includes(':') ? `[${host}]:${socket.remotePort ?? 0}` : `${host}:${socket.remotePort ?? 0}`;
}

/** Starts listening; resolves once bound, rejects when the port cannot be bound. */
export async function startDeviceListener(options: DeviceListenerOptions): Promise<DeviceListener> {
  const authority = new X509Certificate(options.ca);
  const context = (key: string | Buffer, cert: string | Buffer) => ({ key, cert, ca: options.ca, minVersion: 'TLSv1.2' as const });
  const server: Server = createServer({
    ...context(options.key, options.cert),
    // TLS asks for the client certificate and refuses chains that do not end at the device CA;
    // the upgrade below reads the serial from what TLS verified.
    requestCert: true,
    rejectUnauthorized: true,
    handshakeTimeout: HANDSHAKE_MS,
  });
  server.headersTimeout = HANDSHAKE_MS;
  server.requestTimeout = HANDSHAKE_MS;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: UCENTRAL_MAX_MESSAGE_BYTES,
    // Compression would let a small frame inflate past the limit before it is counted.
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(UCENTRAL_SUBPROTOCOL) ? UCENTRAL_SUBPROTOCOL : false),
  });
  const open = new Set<WebSocket>();

  // Anything but a WebSocket upgrade is not for this port.
  server.on('request', (_request, response) => {
    response.writeHead(426, { connection: 'close', upgrade: 'websocket' }).end();
  });
  server.on('connection', () => options.onConnection?.());
  server.on('secureConnection', (socket: TLSSocket) => socket.setKeepAlive(true, KEEPALIVE_MS));
  server.on('tlsClientError', () => undefined);
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const tls = socket as TLSSocket;
    const address = addressOf(tls);
    const refuse = (reason: DeviceRefusal) => {
      options.onRefused?.(address, reason);
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroy();
    };
    const peer = tls.getPeerX509Certificate?.();
    if (!tls.authorized || !peer) return refuse('noCertificate');
    // Wall-clock time, as TLS itself judged the validity.
    const check = checkDeviceCertificate(peer, authority, options.isRevoked, Date.now());
    if (!check.ok) return refuse(check.reason);
    wss.handleUpgrade(request, socket, head, (ws) => {
      open.add(ws);
      ws.on('close', () => open.delete(ws));
      try {
        options.onLink(webSocketLink(ws, check.serial, address, unmapped(tls.localAddress)));
      } catch (error) {
        options.onError?.(error);
        ws.terminate();
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      server.on('error', (error) => options.onError?.(error));
      resolve();
    });
  });
  const bound = server.address();
  return {
    port: typeof bound === 'object' && bound ? bound.port : options.port,
    get connections() {
      return open.size;
    },
    setCertificate(key, cert) {
      server.setSecureContext(context(key, cert));
    },
    async close() {
      for (const ws of open) ws.close(LINK_CLOSE_NORMAL, 'controller stopping');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Links that do not finish the close handshake promptly are cut.
      const cut = setTimeout(() => {
        for (const ws of open) ws.terminate();
        server.closeAllConnections();
      }, 2000);
      await closed;
      clearTimeout(cut);
      wss.close();
    },
  };
}
