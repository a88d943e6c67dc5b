import dgram from 'node:dgram';
import radius from 'radius';
import type { HotspotRadius } from '@portico/schema';
import type { HotspotSession } from '../hotspot-types.js';
import type { DaeSession } from '../hotspot-public.js';
import { ATTR, readReply, type RadiusReply } from './radius-reply.js';

/**
 * The dynamic authorisation server (RFC 5176) on the "offline" port (3799): Disconnect-Request
 * ends sessions, CoA-Request changes their limits, each answered with ACK or NAK and an
 * Error-Cause. A request counts only when it comes from a configured server's address and its
 * Request Authenticator (and Message-Authenticator, when present) verifies with the shared
 * secret; anything else is dropped without an answer, as the RFC asks. The answer goes out
 * after the engine has acted, so an ACK means the client is already cut off or changed.
 */

export interface DaeDeps {
  settings: () => HotspotRadius;
  sessions: () => HotspotSession[];
  disconnect: (session: HotspotSession) => Promise<boolean>;
  adjust: (session: HotspotSession, reply: RadiusReply) => Promise<boolean>;
  /** Other domains' sessions RADIUS vouched for (PPP servers): a Disconnect-Request may end them. */
  others?: () => DaeSession[];
  report: (error: unknown, what: string) => void;
}

/** Error-Cause values (RFC 5176 §3.5). */
const ERROR_CAUSE = {
  unsupportedAttribute: 'Unsupported-Attribute',
  missingAttribute: 'Missing-Attribute',
  nasMismatch: 'NAS-Identification-Mismatch',
  invalidValue: 'Invalid-Attribute-Value',
  notFound: 'Session-Context-Not-Found',
  resourcesUnavailable: 'Resources-Unavailable',
  unsupportedService: 'Unsupported-Service',
} as const;

/** Attributes RFC 5176 §3 lets a request carry that this NAS does not act on: a NAK names them. */
const UNSUPPORTED = new Set([
  11, // Filter-Id
  64, // Tunnel-Type
  81, // Tunnel-Private-Group-Id
]);
/** Service-Type Authorize-Only (RFC 5176 §3.2) asks for a re-authentication the portal cannot make. */
const SERVICE_TYPE = 6;
const AUTHORIZE_ONLY = 17;

/** How long a port that could not be opened is left before the next try. */
const RETRY_BIND_MS = 30_000;

/** Answers to retransmitted requests are sent again, not acted on twice (RFC 5176 §2.3). */
const DUPLICATE_MS = 30_000;

export class DaeServer {
  private socket: dgram.Socket | undefined;
  private bound: { host: string; port: number } | null = null;
  private readonly answered = new Map<string, { at: number; packet: Buffer }>();
  private readonly inFlight = new Set<string>();
  /** Requests refused before any answer (wrong source, secret or code), for tests. */
  dropped = 0;

  constructor(private readonly deps: DaeDeps) {}

  port(): number {
    return this.socket ? this.socket.address().port : 0;
  }

  /** Opens, moves or closes the port to match `where` (null: closed). */
  async listen(where: { host: string; port: number } | null): Promise<void> {
    if (where && this.bound && where.host === this.bound.host && where.port === this.bound.port) return;
    // A port another program holds is tried again now and then, not on every call.
    const key = where ? `${where.host}|${where.port}` : '';
    if (this.failed && this.failed.key === key && Date.now() - this.failed.at < RETRY_BIND_MS) return;
    await this.close();
    if (!where) return;
    try {
      await this.bind(where);
      this.failed = undefined;
    } catch (error) {
      this.failed = { key, at: Date.now() };
      throw error;
    }
  }

  private failed: { key: string; at: number } | undefined;

  private async bind(where: { host: string; port: number }): Promise<void> {
    const socket = dgram.createSocket(where.host.includes(':') ? 'udp6' : 'udp4');
    socket.on('message', (message, peer) => {
      this.handle(message, peer).catch((error) => this.deps.report(error, 'RADIUS dynamic authorisation request failed'));
    });
    await new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        socket.close();
        reject(error);
      };
      socket.once('error', fail);
      socket.bind(where.port, where.host, () => {
        socket.off('error', fail);
        resolve();
      });
    });
    socket.on('error', (error) => this.deps.report(error, 'RADIUS disconnect port failed'));
    this.socket = socket;
    this.bound = where;
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    this.bound = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  private async handle(message: Buffer, peer: dgram.RemoteInfo): Promise<void> {
    const s = this.deps.settings();
    const servers = [s.radiusip, s.radiusip2].filter(Boolean);
    const from = peer.address.startsWith('::ffff:') ? peer.address.slice(7) : peer.address;
    if (!s.enabled || !s.dae || !servers.includes(from) || message.length < 20 || message.length > 4096) {
      this.dropped++;
      return;
    }
    const code = message[0];
    // 40 Disconnect-Request, 43 CoA-Request: anything else on this port is not for it.
    if (code !== 40 && code !== 43) {
      this.dropped++;
      return;
    }
    const key = `${from}:${peer.port}:${message[1]}:${message.subarray(4, 20).toString('hex')}`;
    const now = Date.now();
    for (const [k, v] of this.answered) if (now - v.at > DUPLICATE_MS) this.answered.delete(k);
    const again = this.answered.get(key);
    if (again) {
      this.send(again.packet, peer);
      return;
    }
    // A retransmission of a request still being acted on waits for that request's answer.
    if (this.inFlight.has(key)) return;
    this.inFlight.add(key);
    try {
      await this.act(message, peer, key, s);
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async act(message: Buffer, peer: dgram.RemoteInfo, key: string, s: HotspotRadius): Promise<void> {
    const code = message[0];
    let packet: radius.RadiusPacket;
    try {
      // Verifies the Request Authenticator and any Message-Authenticator with the secret.
      packet = radius.decode({ packet: message, secret: s.sharekey });
    } catch {
      this.dropped++;
      return;
    }
    const raw = (packet as unknown as { raw_attributes: Array<[number, Buffer]> }).raw_attributes;
    const disconnect = code === 40;
    const answer = (ok: boolean, cause?: string) => {
      const reply = radius.encode_response({
        packet,
        code: disconnect ? (ok ? 'Disconnect-ACK' : 'Disconnect-NAK') : ok ? 'CoA-ACK' : 'CoA-NAK',
        secret: s.sharekey,
        attributes: cause ? [['Error-Cause', cause]] : [],
      });
      this.answered.set(key, { at: Date.now(), packet: reply });
      this.send(reply, peer);
    };
    const first = (type: number) => raw.find(([t]) => t === type)?.[1];
    // The request names this NAS, or none: another NAS's request is refused.
    const nasIp = first(ATTR.nasIp);
    const nasId = first(ATTR.nasIdentifier);
    if ((nasIp && (nasIp.length !== 4 || [...nasIp].join('.') !== s.nasip)) || (nasId && nasId.toString('utf8') !== s.nasid)) return answer(false, ERROR_CAUSE.nasMismatch);
    const authorizeOnly = raw.some(([t, v]) => t === SERVICE_TYPE && v.length === 4 && v.readUInt32BE(0) === AUTHORIZE_ONLY);
    if (authorizeOnly || raw.some(([t]) => UNSUPPORTED.has(t))) return answer(false, ERROR_CAUSE.unsupportedAttribute);
    // Session identification attributes (RFC 5176 §3): every one given must match.
    const sid = first(ATTR.acctSessionId)?.toString('utf8');
    const user = first(ATTR.userName)?.toString('utf8');
    const ipRaw = first(ATTR.framedIp);
    const ip = ipRaw ? (ipRaw.length === 4 ? [...ipRaw].join('.') : null) : undefined;
    const station = first(ATTR.callingStationId)?.toString('utf8').toLowerCase().replace(/-/g, ':');
    if (ip === null) return answer(false, ERROR_CAUSE.invalidValue);
    if (sid === undefined && user === undefined && ip === undefined && station === undefined) return answer(false, ERROR_CAUSE.missingAttribute);
    const matches = this.deps.sessions().filter(
      (session) =>
        (sid === undefined || session.outside?.sid === sid) &&
        (user === undefined || session.outside?.user === user) &&
        (ip === undefined || session.ip === ip) &&
        (station === undefined || session.mac === station),
    );
    // Other domains' sessions carry no Acct-Session-Id of the hotspot's: one given never names them.
    const others =
      sid === undefined
        ? (this.deps.others?.() ?? []).filter(
            (session) => (user === undefined || session.user === user) && (ip === undefined || session.ip === ip) && (station === undefined || session.station === station),
          )
        : [];
    if (matches.length === 0 && others.length === 0) return answer(false, ERROR_CAUSE.notFound);
    if (disconnect) {
      const results = await Promise.all(matches.map((session) => this.deps.disconnect(session)));
      const ended = others.map((session) => session.end());
      return [...results, ...ended].every(Boolean) ? answer(true) : answer(false, ERROR_CAUSE.notFound);
    }
    // A CoA cannot change another domain's session (a PPP link's limits are pppd's): refused.
    if (others.length) return answer(false, ERROR_CAUSE.unsupportedService);
    const limits = readReply(raw);
    if (limits.ignored) return answer(false, ERROR_CAUSE.invalidValue);
    // A CoA that changes nothing the device can enforce is refused rather than silently acked.
    const any = ['sessionSeconds', 'idleSeconds', 'upKbps', 'downKbps', 'totalBytes'].some((f) => limits[f as keyof RadiusReply] !== undefined);
    if (!any) return answer(false, ERROR_CAUSE.missingAttribute);
    const results = await Promise.all(matches.map((session) => this.deps.adjust(session, limits)));
    return results.every(Boolean) ? answer(true) : answer(false, ERROR_CAUSE.resourcesUnavailable);
  }

  private send(packet: Buffer, peer: dgram.RemoteInfo): void {
    this.socket?.send(packet, peer.port, peer.address, (error) => {
      if (error) this.deps.report(error, 'RADIUS dynamic authorisation answer could not be sent');
    });
  }
}
