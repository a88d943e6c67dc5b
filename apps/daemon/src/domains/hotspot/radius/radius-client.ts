import { createHash, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import radius from 'radius';
import { verifyAuthenticator } from './radius-accounting.js';

/**
 * A RADIUS client over UDP (RFC 2865 authentication, RFC 2866 accounting): node-radius encodes
 * and decodes the packets (authenticators, User-Password hiding, Message-Authenticator); this
 * file only moves them. One connected socket per server endpoint, so the kernel reports an
 * ICMP "port unreachable" as ECONNREFUSED and a dead server fails fast instead of timing out;
 * each socket carries at most 256 requests in flight (the identifier is one byte), more
 * sockets open to the same endpoint when a burst needs them.
 */

export interface RadiusEndpoint {
  host: string;
  port: number;
}

export interface RadiusTransportOptions {
  secret: string;
  /** Milliseconds before a request is sent again. */
  timeoutMs: number;
  /** Times a request is sent again before the next server is tried. */
  retries: number;
  /** Local address the sockets bind to; none: the kernel chooses. */
  bindAddress?: string;
  /** Requests in flight to one endpoint at once; more wait their turn (DEFAULT_WINDOW). */
  window?: number;
}

/**
 * Requests in flight to one server port. A Linux socket's default receive buffer (212,992
 * bytes) holds about 270 RADIUS requests; half of that leaves room for other NASes.
 */
export const DEFAULT_WINDOW = 128;

/** An attribute as node-radius encodes it: [name, value] (a date attribute takes a Date), or [number, raw value]. */
export type RadiusAttribute = [string, string | number | Buffer | Date] | [number, Buffer];

export type RadiusOutcome =
  | { ok: true; code: string; raw: Array<[number, Buffer]>; server: RadiusEndpoint; rttMs: number }
  | { ok: false; error: 'timeout' | 'unreachable' | 'badResponse' };

interface Pending {
  packet: Buffer;
  /** Builds the packet again for a retransmission under a new identifier (accounting: a new Acct-Delay-Time). */
  rebuild: ((identifier: number) => Buffer) | null;
  tries: number;
  timer: NodeJS.Timeout | null;
  resolve: (outcome: { kind: 'answer'; response: Buffer } | { kind: 'timeout' } | { kind: 'unreachable' }) => void;
  /** Answers whose authenticator did not verify: the real server may still answer. */
  forged: number;
}

/** Whether an attribute of this type is in a packet (the attribute walk stops at a bad length). */
function hasAttribute(packet: Buffer, type: number): boolean {
  for (let offset = 20; offset + 2 <= packet.length; ) {
    const length = packet[offset + 1]!;
    if (length < 2) return false;
    if (packet[offset] === type) return true;
    offset += length;
  }
  return false;
}

/**
 * The Response Authenticator (RFC 2865 §3), and the Message-Authenticator when the answer has
 * one (node-radius checks both). Servers that predate RFC 3579's advice answer a request with a
 * Message-Authenticator without one: their answer is verified by its authenticator alone.
 */
function verifyResponse(request: Buffer, response: Buffer, secret: string, secretBytes: Buffer, scratch: Buffer): boolean {
  const length = response.readUInt16BE(2);
  if (length < 20 || length > response.length) return false;
  const packet = response.subarray(0, length);
  try {
    if (hasAttribute(packet, 80)) return radius.verify_response({ request, response: Buffer.from(packet), secret });
    return verifyAuthenticator(request, packet, secretBytes, scratch);
  } catch {
    return false;
  }
}

/** Byte-long identifiers in use on one socket. */
const IDS = 256;

class EndpointSocket {
  readonly socket: dgram.Socket;
  readonly pending = new Map<number, Pending>();
  private nextId = randomBytes(1)[0]!;
  private ready: Promise<void>;
  closed = false;
  private readonly secretBytes: Buffer;
  /** Where answers are verified: one buffer per socket rather than one per answer. */
  private readonly scratch: Buffer;

  constructor(
    private readonly endpoint: RadiusEndpoint,
    private readonly options: RadiusTransportOptions,
  ) {
    this.secretBytes = Buffer.from(options.secret, 'utf8');
    this.scratch = Buffer.alloc(4096 + this.secretBytes.length);
    this.socket = dgram.createSocket(endpoint.host.includes(':') ? 'udp6' : 'udp4');
    this.socket.on('message', (message) => this.onMessage(message));
    // A connected UDP socket hears ICMP errors: every request on it fails at once.
    this.socket.on('error', () => this.failAll('unreachable'));
    this.ready = new Promise<void>((resolve) => {
      const connect = () => this.socket.connect(endpoint.port, endpoint.host, () => resolve());
      if (options.bindAddress) this.socket.bind({ address: options.bindAddress, port: 0 }, connect);
      else connect();
    }).catch(() => this.failAll('unreachable'));
    this.socket.unref();
  }

  get full(): boolean {
    return this.pending.size >= IDS;
  }

  /** A free identifier; undefined when all 256 are in flight. */
  private takeId(): number | undefined {
    for (let i = 0; i < IDS; i++) {
      const id = (this.nextId + i) % IDS;
      if (!this.pending.has(id)) {
        this.nextId = (id + 1) % IDS;
        return id;
      }
    }
    return undefined;
  }

  /** One request; `rebuild`: each retransmission is built again under a new identifier. */
  async request(build: (identifier: number) => Buffer, rebuild = false): Promise<{ kind: 'answer'; response: Buffer } | { kind: 'timeout' } | { kind: 'unreachable' }> {
    const id = this.takeId();
    if (id === undefined) throw new Error('no free RADIUS identifier');
    const packet = build(id);
    const settled = new Promise<{ kind: 'answer'; response: Buffer } | { kind: 'timeout' } | { kind: 'unreachable' }>((resolve) => {
      this.pending.set(id, { packet, rebuild: rebuild ? build : null, tries: 0, timer: null, resolve, forged: 0 });
    });
    await this.ready;
    this.send(id);
    return settled;
  }

  private send(sentAs: number): void {
    let id = sentAs;
    const entry = this.pending.get(id);
    if (!entry || this.closed) return;
    // Changed content needs a new identifier (RFC 2866 §5.2); with none free the same packet goes again.
    const next = entry.tries > 0 && entry.rebuild ? this.takeId() : undefined;
    if (next !== undefined) {
      this.pending.delete(id);
      entry.packet = entry.rebuild!(next);
      entry.forged = 0;
      this.pending.set(next, entry);
      id = next;
    }
    entry.tries += 1;
    // No callback per packet: a send error is the socket's 'error', which fails its requests.
    this.socket.send(entry.packet);
    entry.timer = setTimeout(() => {
      if (entry.tries > this.options.retries) this.finish(id, { kind: 'timeout' });
      else this.send(id);
    }, this.options.timeoutMs);
    entry.timer.unref();
  }

  private finish(id: number, outcome: Parameters<Pending['resolve']>[0]): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    if (entry.timer) clearTimeout(entry.timer);
    this.pending.delete(id);
    entry.resolve(outcome);
  }

  private onMessage(message: Buffer): void {
    // Hostile input: a short datagram or one for no request in flight is dropped.
    if (message.length < 20 || message.length > 4096) return;
    const id = message[1]!;
    const entry = this.pending.get(id);
    if (!entry) return;
    const verified = verifyResponse(entry.packet, message, this.options.secret, this.secretBytes, this.scratch);
    // A forged or mangled answer is ignored: the server's own may still come (RFC 2865 §3).
    if (!verified) {
      entry.forged += 1;
      return;
    }
    this.finish(id, { kind: 'answer', response: message });
  }

  failAll(kind: 'unreachable' | 'timeout'): void {
    for (const id of [...this.pending.keys()]) this.finish(id, { kind });
  }

  close(): void {
    this.closed = true;
    this.failAll('unreachable');
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }

  get endpointKey(): string {
    return `${this.endpoint.host}|${this.endpoint.port}`;
  }
}

/**
 * Sends requests to the first server that answers, trying the next one after the retries of
 * one run out; an endpoint is one or more sockets, one more opened when all are full.
 */
export class RadiusTransport {
  private readonly sockets = new Map<string, EndpointSocket[]>();
  /** Requests in flight and waiting, per endpoint. */
  private readonly windows = new Map<string, { inFlight: number; waiting: Array<() => void> }>();

  constructor(private readonly options: RadiusTransportOptions) {}

  /**
   * Waits for a place among the requests in flight to one endpoint. A burst (a thousand
   * sign-ins at once) then reaches the server as a stream it can take: sent all at once, it
   * overflows the server's socket buffer, and what the kernel drops waits a whole timeout.
   */
  private async enter(key: string): Promise<() => void> {
    const window = this.windows.get(key) ?? { inFlight: 0, waiting: [] };
    this.windows.set(key, window);
    if (window.inFlight >= (this.options.window ?? DEFAULT_WINDOW)) await new Promise<void>((resolve) => window.waiting.push(resolve));
    window.inFlight += 1;
    return () => {
      window.inFlight -= 1;
      window.waiting.shift()?.();
    };
  }

  private socketFor(endpoint: RadiusEndpoint): EndpointSocket {
    const key = `${endpoint.host}|${endpoint.port}`;
    const list = this.sockets.get(key) ?? [];
    this.sockets.set(key, list);
    const free = list.find((s) => !s.full && !s.closed);
    if (free) return free;
    const socket = new EndpointSocket(endpoint, this.options);
    list.push(socket);
    return socket;
  }

  /** Sends one request to each server in turn until one answers with a verified packet. */
  async send(servers: readonly RadiusEndpoint[], code: string, attributes: RadiusAttribute[], messageAuthenticator = false): Promise<RadiusOutcome> {
    const result = await this.exchange(servers, (identifier) => encodeRequest(code, this.options.secret, identifier, attributes, messageAuthenticator), false);
    if (!result.ok) return result;
    const { response, server, rttMs } = result;
    if (code === 'Accounting-Request') return accountingOutcome(response, server, rttMs);
    let decoded: radius.RadiusPacket;
    try {
      decoded = radius.decode({ packet: response, secret: this.options.secret });
    } catch {
      return { ok: false, error: 'badResponse' };
    }
    const raw = (decoded as unknown as { raw_attributes: Array<[number, Buffer]> }).raw_attributes;
    return { ok: true, code: decoded.code, raw, server, rttMs };
  }

  /**
   * An Accounting-Request built by the caller (radius-accounting.ts) for an identifier; each
   * retransmission is built again under a new one, so its Acct-Delay-Time is current.
   */
  async sendAccounting(servers: readonly RadiusEndpoint[], build: (identifier: number) => Buffer): Promise<RadiusOutcome> {
    const result = await this.exchange(servers, build, true);
    return result.ok ? accountingOutcome(result.response, result.server, result.rttMs) : result;
  }

  private async exchange(
    servers: readonly RadiusEndpoint[],
    build: (identifier: number) => Buffer,
    rebuild: boolean,
  ): Promise<{ ok: true; response: Buffer; server: RadiusEndpoint; rttMs: number } | { ok: false; error: 'timeout' | 'unreachable' }> {
    // Replaced (new secret or timing) while this request waited: it opens no socket any more.
    if (this.closed) return { ok: false, error: 'unreachable' };
    let worst: 'timeout' | 'unreachable' = 'unreachable';
    for (const server of servers) {
      const started = performance.now();
      const leave = await this.enter(`${server.host}|${server.port}`);
      if (this.closed) {
        leave();
        return { ok: false, error: 'unreachable' };
      }
      const socket = this.socketFor(server);
      const result = await socket.request(build, rebuild).finally(leave);
      if (result.kind === 'answer') return { ok: true, response: result.response, server, rttMs: performance.now() - started };
      if (result.kind === 'timeout') worst = 'timeout';
      // An unreachable server leaves the socket failed: a fresh one next time.
      if (result.kind === 'unreachable') this.drop(socket);
    }
    return { ok: false, error: worst };
  }

  private drop(socket: EndpointSocket): void {
    const list = this.sockets.get(socket.endpointKey);
    if (list) this.sockets.set(socket.endpointKey, list.filter((s) => s !== socket));
    socket.close();
  }

  /** Requests in flight over every socket (for tests and the benchmark). */
  inFlight(): number {
    let n = 0;
    for (const list of this.sockets.values()) for (const s of list) n += s.pending.size;
    return n;
  }

  private closed = false;

  close(): void {
    this.closed = true;
    for (const list of this.sockets.values()) for (const s of list) s.close();
    this.sockets.clear();
    for (const window of this.windows.values()) for (const wake of window.waiting.splice(0)) wake();
  }
}

/** An Accounting-Response carries nothing the NAS reads: its verified code is enough. */
function accountingOutcome(response: Buffer, server: RadiusEndpoint, rttMs: number): RadiusOutcome {
  return { ok: true, code: response[0] === 5 ? 'Accounting-Response' : `code ${response[0]}`, raw: [], server, rttMs };
}

/** One request packet (node-radius): Access-, Accounting-, Disconnect- or CoA-Request. */
export function encodeRequest(code: string, secret: string, identifier: number, attributes: readonly RadiusAttribute[], messageAuthenticator = false): Buffer {
  return radius.encode({ code, secret, identifier, attributes: attributes.map((a) => [...a]), add_message_authenticator: messageAuthenticator });
}

/** CHAP-Password (RFC 1994, RFC 2865 §5.3): the CHAP id, then MD5(id ‖ password ‖ challenge). */
export function chapPassword(password: string, challenge: Buffer, chapId = randomBytes(1)[0]!): Buffer {
  const digest = createHash('md5').update(Buffer.from([chapId])).update(password, 'utf8').update(challenge).digest();
  return Buffer.concat([Buffer.from([chapId]), digest]);
}
