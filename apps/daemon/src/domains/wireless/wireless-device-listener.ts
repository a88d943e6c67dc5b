import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import type { WebSocket, WebSocketServer } from 'ws';
import { LINK_CLOSE_NORMAL, UCENTRAL_MAX_MESSAGE_BYTES, webSocketLink, type UcentralLink } from '@portico/schema';
import { checkDeviceCertificate, type DeviceCertificateCheck } from './controller/wireless-device-pki.js';
import { TerminatedLink, type LinkCarrier, type UpgradeDecision, type UpgradeRequest } from './wireless-device-websocket.js';
import { libraryExports } from '../../engine/library-import.js';

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
  /** The TLS terminator's path; null: Node terminates TLS; unset: the built one when there is one. */
  tlsTerminator?: string | null;
}

export interface DeviceListener {
  /** The port bound (the one asked for, or the system's choice for 0). */
  readonly port: number;
  /** The TLS terminator's process, when it terminates TLS (its memory is the listener's too); undefined while it restarts. */
  readonly terminatorPid: number | undefined;
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

/** A connection's certificate and addresses, from Node's TLS socket or from the terminator. */
interface VerifiedPeer {
  certificate: X509Certificate | Buffer | undefined;
  address: string;
  localAddress: string | undefined;
}

/**
 * Counts a link among the open ones until it closes. Apart from the upgrade: a listener that lives
 * as long as the link holds its function's scope, which in the upgrade would keep the certificate
 * check and the handshake's callbacks of every link.
 */
function track(open: Set<WebSocket>, ws: WebSocket): void {
  open.add(ws);
  ws.on('close', () => open.delete(ws));
}

/** The serial a connection's certificate proves, or why it is refused (both transports). */
function admit(peer: VerifiedPeer, authority: X509Certificate, options: DeviceListenerOptions): { ok: true; serial: string } | { ok: false; reason: DeviceRefusal } {
  if (!peer.certificate) return { ok: false, reason: 'noCertificate' };
  // Wall-clock time, as TLS itself judged the validity.
  const check = checkDeviceCertificate(peer.certificate, authority, options.isRevoked, Date.now());
  return check.ok ? { ok: true, serial: check.serial } : { ok: false, reason: check.reason };
}

/**
 * What Node's TLS path has: the WebSocket server and the upgrade, which reads the serial from
 * the certificate TLS verified, and the set of open links.
 */
function deviceUpgrades(options: DeviceListenerOptions, Server: typeof WebSocketServer) {
  const authority = new X509Certificate(options.ca);
  const wss = new Server({
    noServer: true,
    maxPayload: UCENTRAL_MAX_MESSAGE_BYTES,
    // Compression would let a small frame inflate past the limit before it is counted.
    perMessageDeflate: false,
    // `open` tracks the links: ws's own set would add a second close listener and set entry each.
    clientTracking: false,
    handleProtocols: (protocols) => (protocols.has(UCENTRAL_SUBPROTOCOL) ? UCENTRAL_SUBPROTOCOL : false),
  });
  const open = new Set<WebSocket>();
  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer, peer: VerifiedPeer) => {
    const refuse = (reason: DeviceRefusal) => {
      options.onRefused?.(peer.address, reason);
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroy();
    };
    const check = admit(peer, authority, options);
    if (!check.ok) return refuse(check.reason);
    wss.handleUpgrade(request, socket, head, (ws) => {
      track(open, ws);
      try {
        options.onLink(webSocketLink(ws, check.serial, peer.address, unmapped(peer.localAddress)));
      } catch (error) {
        options.onError?.(error);
        ws.terminate();
      }
    });
  };
  /** Anything but a WebSocket upgrade is not for this port. */
  const notUpgrade = (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(426, { connection: 'close', upgrade: 'websocket' }).end();
  };
  const closeLinks = () => {
    for (const ws of open) ws.close(LINK_CLOSE_NORMAL, 'controller stopping');
  };
  const cutLinks = () => {
    for (const ws of open) ws.terminate();
  };
  return { wss, open, upgrade, notUpgrade, closeLinks, cutLinks };
}

/**
 * Starts listening; resolves once bound, rejects when the port cannot be bound. TLS is
 * terminated by `portico-tlsterm` when it is built (`tlsTerminator`), else by Node.
 */
export async function startDeviceListener(options: DeviceListenerOptions): Promise<DeviceListener> {
  const terminator = options.tlsTerminator === undefined ? tlsTerminatorPath() : options.tlsTerminator;
  if (terminator) return startTerminatedListener(options, terminator);
  // ws is imported when Node terminates TLS, once the daemon listens: the bundle keeps it in a
  // chunk of its own (dist/lazy/), not parsed before ready.
  const { WebSocketServer } = libraryExports(await import('ws'));
  return startNodeTlsListener(options, WebSocketServer);
}

async function startNodeTlsListener(options: DeviceListenerOptions, Server: typeof WebSocketServer): Promise<DeviceListener> {
  const context = (key: string | Buffer, cert: string | Buffer) => ({ key, cert, ca: options.ca, minVersion: 'TLSv1.2' as const });
  const server: Server = createServer({
    ...context(options.key, options.cert),
    // TLS asks for the client certificate and refuses chains that do not end at the device CA;
    // the upgrade reads the serial from what TLS verified.
    requestCert: true,
    rejectUnauthorized: true,
    handshakeTimeout: HANDSHAKE_MS,
  });
  server.headersTimeout = HANDSHAKE_MS;
  server.requestTimeout = HANDSHAKE_MS;
  const links = deviceUpgrades(options, Server);

  server.on('request', links.notUpgrade);
  server.on('connection', () => options.onConnection?.());
  server.on('secureConnection', (socket: TLSSocket) => socket.setKeepAlive(true, KEEPALIVE_MS));
  server.on('tlsClientError', () => undefined);
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const tls = socket as TLSSocket;
    const peer = tls.authorized ? tls.getPeerX509Certificate?.() : undefined;
    links.upgrade(request, socket, head, { certificate: peer, address: addressOf(tls), localAddress: tls.localAddress });
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
    terminatorPid: undefined,
    get connections() {
      return links.open.size;
    },
    setCertificate(key, cert) {
      server.setSecureContext(context(key, cert));
    },
    async close() {
      links.closeLinks();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Links that do not finish the close handshake promptly are cut.
      const cut = setTimeout(() => {
        links.cutLinks();
        server.closeAllConnections();
      }, 2000);
      await closed;
      clearTimeout(cut);
      links.wss.close();
    },
  };
}

/** The terminator's name, built by apps/daemon/tlsterm-build.mjs beside the bundle. */
export const TLSTERM_NAME = 'portico-tlsterm';
const here = dirname(fileURLToPath(import.meta.url));
/** Beside the bundle, then the build's output seen from src/domains/wireless (tests, the lab). */
export const TLSTERM_PLACES = [join(here, TLSTERM_NAME), join(here, '..', '..', '..', 'dist', TLSTERM_NAME)];

export function tlsTerminatorPath(places: readonly string[] = TLSTERM_PLACES): string | null {
  return places.find((path) => existsSync(path)) ?? null;
}

/**
 * TLS terminated by portico-tlsterm (wireless-tlsterm.c, which says why and its frames): the
 * plaintext of every device connection arrives over one socketpair, where each connection is a
 * TerminatedLink (wireless-device-websocket.ts: its upgrade and WebSocket frames). The
 * certificate that proves a connection's serial is the one the terminator verified and announced
 * for that connection.
 */
async function startTerminatedListener(options: DeviceListenerOptions, terminator: string): Promise<DeviceListener> {
  const authority = new X509Certificate(options.ca);
  const open = new Set<TerminatedLink>();
  /** A link is up (handed to the controller) or gone. */
  const settled = (link: TerminatedLink, up: boolean) => {
    if (!up) return void open.delete(link);
    open.add(link);
    try {
      options.onLink(link);
    } catch (error) {
      options.onError?.(error);
      link.terminate();
    }
  };

  // The server's key sits in a private folder only while a terminator starts and reads it.
  const folder = await mkdtemp(join(tmpdir(), 'portico-tlsterm-'));
  const caFile = join(folder, 'ca.pem');
  const keyFile = join(folder, 'key.pem');
  const certFile = join(folder, 'cert.pem');
  await writeFile(caFile, options.ca, { mode: 0o600 });
  let serverKey = options.key;
  let serverCert = options.cert;
  let port = options.port;
  let child: ChildProcess | null = null;
  let mux: TerminatorMux | null = null;
  let stopping = false;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | undefined;

  /** Starts a terminator; resolves with the port it listens on once it does. */
  const launch = async (): Promise<number> => {
    await writeFile(keyFile, serverKey, { mode: 0o600 });
    await writeFile(certFile, serverCert, { mode: 0o600 });
    const started = spawn(terminator, [options.host, String(port), caFile, keyFile, certFile], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let stderr = '';
    started.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    const frames = new TerminatorMux(started.stdio[3] as Socket);
    const ended = (code: number | null, signal: NodeJS.Signals | null) => `portico-tlsterm ended (${signal ?? `exit ${code}`})${stderr.trim() ? `: ${stderr.trim()}` : ''}`;
    const bound = await new Promise<number>((resolve, reject) => {
      frames.onReady = resolve;
      started.once('error', reject);
      started.once('exit', (code, signal) => reject(new Error(ended(code, signal))));
    }).finally(() => rm(keyFile, { force: true }));
    started.removeAllListeners('exit');
    started.removeAllListeners('error');
    started.on('error', (error) => options.onError?.(error));
    started.on('exit', (code, signal) => {
      frames.endAll();
      if (child !== started || stopping) return;
      child = null;
      mux = null;
      // Its links are gone (devices dial again); a new terminator takes the port after a pause
      // that grows while starts keep failing.
      const delay = Math.min(RESTART_FIRST_MS * 2 ** Math.min(failures++, 6), RESTART_MAX_MS);
      options.onError?.(new Error(`${ended(code, signal)}; starting it again in ${delay} ms`));
      restartTimer = setTimeout(relaunch, delay);
      restartTimer.unref();
    });
    frames.onAccept = () => options.onConnection?.();
    frames.onOpen = (id, peer) => {
      failures = 0;
      const decide = (request: UpgradeRequest): UpgradeDecision => {
        const check = admit(peer, authority, options);
        // The certificate has done its work: the link keeps none of it.
        peer.certificate = undefined;
        if (!check.ok) {
          options.onRefused?.(peer.address, check.reason);
          return { accept: false, status: 403 };
        }
        return { accept: true, serial: check.serial, protocol: request.protocols.has(UCENTRAL_SUBPROTOCOL) ? UCENTRAL_SUBPROTOCOL : false };
      };
      const link = new TerminatedLink(frames, id, UCENTRAL_MAX_MESSAGE_BYTES, decide, settled, peer.address, unmapped(peer.localAddress));
      // The TLS handshake is done; the WebSocket upgrade must follow within the same bound.
      link.deadline = setTimeout(() => link.terminate(), HANDSHAKE_MS);
      link.deadline.unref();
      return link;
    };
    child = started;
    mux = frames;
    return bound;
  };
  const relaunch = () => {
    if (stopping) return;
    launch().catch((error: unknown) => {
      options.onError?.(error);
      if (stopping) return;
      restartTimer = setTimeout(relaunch, Math.min(RESTART_FIRST_MS * 2 ** Math.min(failures++, 6), RESTART_MAX_MS));
      restartTimer.unref();
    });
  };
  try {
    port = await launch();
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }

  return {
    port,
    get terminatorPid() {
      return child?.pid;
    },
    get connections() {
      return open.size;
    },
    setCertificate(key, cert) {
      serverKey = key;
      serverCert = cert;
      const keyBytes = Buffer.from(key);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(keyBytes.length);
      mux?.certificate(Buffer.concat([length, keyBytes, Buffer.from(cert)]));
    },
    async close() {
      stopping = true;
      clearTimeout(restartTimer);
      for (const link of [...open]) link.close(LINK_CLOSE_NORMAL, 'controller stopping');
      // Links whose devices do not answer the close promptly are cut.
      const cut = setTimeout(() => [...open].forEach((link) => link.terminate()), 2000);
      while (open.size > 0 && child) await new Promise((resolve) => setTimeout(resolve, 20));
      clearTimeout(cut);
      const running = child as ChildProcess | null;
      if (running && running.exitCode === null && running.signalCode === null) {
        const exited = new Promise((resolve) => running.once('exit', resolve));
        running.kill('SIGTERM');
        await exited;
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** Pause before a terminator that ended is started again: doubling from the first, at most the last. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 60_000;

const FRAME_OPEN = 1;
const FRAME_DATA = 2;
const FRAME_CLOSE = 3;
const FRAME_ACCEPT = 4;
const FRAME_READY = 5;
const FRAME_CERT = 6;
const HEADER = 9;

/** The frames of the socketpair to portico-tlsterm (wireless-tlsterm.c); carries each link's bytes. */
class TerminatorMux implements LinkCarrier {
  onReady: (port: number) => void = () => undefined;
  onAccept: () => void = () => undefined;
  onOpen: (id: number, peer: VerifiedPeer) => TerminatedLink = () => {
    throw new Error('no handler for connections');
  };
  private readonly links = new Map<number, TerminatedLink>();
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly stream: Socket) {
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    stream.on('error', () => undefined);
  }

  /** One frame, written in place: a DATA frame's payload by `fill`, a control frame's as given. */
  private frame(type: number, id: number, size: number, fill?: (frame: Buffer, offset: number) => void): void {
    if (this.stream.destroyed) return;
    const frame = Buffer.allocUnsafe(HEADER + size);
    frame[0] = type;
    frame.writeUInt32BE(id, 1);
    frame.writeUInt32BE(size, 5);
    fill?.(frame, HEADER);
    // The terminator reads devices only while it has room toward the daemon, and the daemon
    // writes what the controller sends: the stream's own buffer holds what waits.
    this.stream.write(frame);
  }

  send(id: number, size: number, fill: (frame: Buffer, offset: number) => void): void {
    this.frame(FRAME_DATA, id, size, fill);
  }

  end(id: number): void {
    if (!this.links.delete(id)) return;
    this.frame(FRAME_CLOSE, id, 0);
  }

  /** A new server key and certificate for new connections. */
  certificate(payload: Buffer): void {
    this.frame(FRAME_CERT, 0, payload.length, (frame, at) => void payload.copy(frame, at));
  }

  /** The terminator is gone: so is every connection it carried. */
  endAll(): void {
    const links = [...this.links.values()];
    this.links.clear();
    for (const link of links) link.gone();
  }

  private receive(chunk: Buffer): void {
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let at = 0;
    while (data.length - at >= HEADER) {
      const length = data.readUInt32BE(at + 5);
      if (data.length - at < HEADER + length) break;
      this.dispatch(data[at]!, data.readUInt32BE(at + 1), data.subarray(at + HEADER, at + HEADER + length));
      at += HEADER + length;
    }
    data = data.subarray(at);
    // What stays is copied so the chunk it came from is not kept alive.
    this.pending = data.length ? Buffer.from(data) : Buffer.alloc(0);
  }

  private dispatch(type: number, id: number, payload: Buffer): void {
    if (type === FRAME_DATA) {
      this.links.get(id)?.receive(payload);
    } else if (type === FRAME_OPEN) {
      const remoteLength = payload[0]!;
      const [host, port] = payload.subarray(1, 1 + remoteLength).toString('latin1').split(' ');
      const localLength = payload[1 + remoteLength]!;
      const local = payload.subarray(2 + remoteLength, 2 + remoteLength + localLength).toString('latin1');
      const der = Buffer.from(payload.subarray(2 + remoteLength + localLength));
      const peer: VerifiedPeer = { certificate: der, address: addressOf({ remoteAddress: host, remotePort: Number(port) }), localAddress: local };
      this.links.set(id, this.onOpen(id, peer));
    } else if (type === FRAME_CLOSE) {
      const link = this.links.get(id);
      this.links.delete(id);
      link?.gone();
    } else if (type === FRAME_ACCEPT) {
      this.onAccept();
    } else if (type === FRAME_READY) {
      this.onReady(Number(payload.toString('latin1')));
    }
  }
}
