import { randomBytes } from 'node:crypto';
import { isSafeText, type HotspotRadius } from '@portico/schema';
import type { CredentialResult, EndReason, HotspotEngine, OutsideAuthenticator, SessionObserver } from '../hotspot-engine.js';
import type { HotspotSession, HotspotZone } from '../hotspot-types.js';
import { LOGIN_ERRORS } from '../hotspot-types.js';
import type { ClientKey } from '../hotspot-dataplane.js';
import { chapPassword, RadiusTransport, type RadiusAttribute, type RadiusEndpoint, type RadiusOutcome } from './radius-client.js';
import { InterimSchedule } from './radius-interim.js';
import { accountingPacket, accountingTemplate, type AccountingFields, type AcctStatus, type AcctTerminateCause } from './radius-accounting.js';
import { octetsAndGigawords, readReply, type RadiusReply } from './radius-reply.js';
import type { DaeSession } from '../hotspot-public.js';
import { DaeServer } from './radius-dae.js';

/**
 * The hotspot's RADIUS service: the outside authenticator of `radius` zones (PAP or CHAP), the
 * session observer that sends accounting Start / Interim-Update / Stop, and the dynamic
 * authorisation server (radius-dae.ts). Settings are read on each use, so a save applies to
 * the next login; the sockets are replaced when the secret or the timing changes.
 */

/** Acct-Terminate-Cause (RFC 2866 §5.10) of each way a session ends. */
export const TERMINATE_CAUSE: Record<EndReason, AcctTerminateCause> = {
  logout: 'User-Request',
  idle: 'Idle-Timeout',
  expired: 'Session-Timeout',
  // A used-up volume ends the session as its time would (CoovaChilli does the same).
  quota: 'Session-Timeout',
  kicked: 'Admin-Reset',
  blocked: 'Admin-Reset',
};

/**
 * Accounting requests in flight at once. A round of interim updates for thousands of sessions
 * (or their Starts after a mass sign-in) goes out as a steady stream instead of one burst that
 * would overflow the server's socket buffer, and leaves the server time for sign-ins, which
 * wait on their answer while accounting does not.
 */
const ACCOUNTING_WINDOW = 32;

/** The service's timer: the disconnect port checked, due interim updates sent. */
const TICK_MS = 1000;
/** Ticks between looks through the engine's sessions for ones restored after a restart. */
const ADOPTION_TICKS = 30;

/** NAS-Port-Type Wireless-802.11 (RFC 2865 §5.41): the hotspot's clients. */
const NAS_PORT_TYPE = 'Wireless-802.11';
const USERNAME_MAX = 64;
/** User-Password holds at most 128 bytes (RFC 2865 §5.2). */
const PASSWORD_MAX = 128;

export interface RadiusServiceDeps {
  settings: () => HotspotRadius;
  now: () => number;
  report: (error: unknown, what: string) => void;
  /** Address the disconnect port listens on. */
  daeHost: string;
  /** Other domains' sessions a Disconnect-Request may end (DAE_SESSION_SOURCES). */
  otherSessions?: () => DaeSession[];
}

/** What the service keeps with a RADIUS session (HotspotSession.outside). */
interface RadiusSessionData {
  user: string;
  sid: string;
  /** Class values, hex, comma-separated. */
  cls: string;
  /** Interim interval the server asked for, seconds; '' for the configured one. */
  interim: string;
}

function dataOf(session: HotspotSession): RadiusSessionData | undefined {
  if (session.kind !== 'radius' || !session.outside) return undefined;
  const { user, sid, cls, interim } = session.outside;
  return user !== undefined && sid !== undefined ? { user, sid, cls: cls ?? '', interim: interim ?? '' } : undefined;
}

/** Calling-Station-Id as IEEE 802 hyphenated upper case (RFC 3580 §3.21). */
export function stationId(mac: string): string {
  return mac.toUpperCase().replace(/:/g, '-');
}

export type RadiusTestResult = { ok: true; accepted: boolean; rttMs: number } | { ok: false; error: 'disabled' | 'timeout' | 'unreachable' | 'badResponse' };

export class RadiusService implements OutsideAuthenticator, SessionObserver {
  private transport: { key: string; transport: RadiusTransport } | undefined;
  private engine: HotspotEngine | undefined;
  /** Next interim update of each accounted session. */
  private readonly interims = new InterimSchedule();
  /** Ticks since the engine's sessions were last looked through for restored ones. */
  private sinceAdoption = Infinity;
  /** Each accounted session's constant attributes, encoded once (radius-accounting.ts), by Acct-Session-Id. */
  private readonly templates = new Map<string, { key: string; template: Buffer }>();
  private secret: { text: string; bytes: Buffer } = { text: '', bytes: Buffer.alloc(0) };
  private readonly dae: DaeServer;
  private timer: NodeJS.Timeout | undefined;
  /** Accounting requests sent and answered, for the status of the service and the tests. */
  readonly counters = { start: 0, interim: 0, stop: 0, answered: 0, failed: 0 };
  /** Accounting requests waiting for a place in the window, oldest first. */
  private readonly accountingQueue: Array<() => Promise<void>> = [];
  private accountingInFlight = 0;

  constructor(private readonly deps: RadiusServiceDeps) {
    this.dae = new DaeServer({
      settings: deps.settings,
      sessions: () => (this.engine ? this.engine.list().filter((s) => s.kind === 'radius') : []),
      disconnect: async (session) => (this.engine ? this.engine.kick(session.ip, 'kicked') : false),
      adjust: async (session, reply) => (this.engine ? this.engine.adjust(session.ip, limitsOf(reply)) : false),
      others: deps.otherSessions,
      report: deps.report,
    });
  }

  attach(engine: HotspotEngine): void {
    this.engine = engine;
  }

  /** Starts the interim timer and the disconnect port; both follow the saved settings. */
  async start(): Promise<void> {
    await this.reconcile();
    this.timer = setInterval(() => {
      this.reconcile().catch((error) => this.deps.report(error, 'RADIUS disconnect port could not be opened'));
      this.interimRound();
    }, TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.dae.close();
    this.transport?.transport.close();
    this.transport = undefined;
  }

  /** The port Disconnect and CoA requests reach now (0: closed). */
  daePort(): number {
    return this.dae.port();
  }

  /** Opens, moves or closes the disconnect port to match the saved settings. */
  async reconcile(): Promise<void> {
    const s = this.deps.settings();
    await this.dae.listen(s.enabled && s.dae ? { host: this.deps.daeHost, port: s.offlineport } : null);
  }

  private client(s: HotspotRadius): RadiusTransport {
    const key = `${s.sharekey}\u0000${s.timeout}\u0000${s.retries}`;
    if (this.transport?.key !== key) {
      this.transport?.transport.close();
      this.transport = { key, transport: new RadiusTransport({ secret: s.sharekey, timeoutMs: s.timeout * 1000, retries: s.retries }) };
    }
    return this.transport.transport;
  }

  private servers(s: HotspotRadius, port: number): RadiusEndpoint[] {
    return [s.radiusip, s.radiusip2].filter((host) => host !== '').map((host) => ({ host, port }));
  }

  private nasAttributes(s: HotspotRadius): RadiusAttribute[] {
    const list: RadiusAttribute[] = [['NAS-Port-Type', NAS_PORT_TYPE]];
    if (s.nasip) list.push(['NAS-IP-Address', s.nasip]);
    if (s.nasid) list.push(['NAS-Identifier', s.nasid], ['Called-Station-Id', s.nasid]);
    return list;
  }

  /** One Access-Request with the saved settings, PAP or CHAP. */
  private async accessRequest(s: HotspotRadius, username: string, password: string, client?: ClientKey): Promise<RadiusOutcome> {
    const attributes: RadiusAttribute[] = [['User-Name', username], ['Service-Type', 'Login-User'], ...this.nasAttributes(s)];
    if (s.authtype === 'chap') {
      const challenge = randomBytes(16);
      attributes.push(['CHAP-Password', chapPassword(password, challenge)], ['CHAP-Challenge', challenge]);
    } else {
      attributes.push(['User-Password', password]);
    }
    if (client) attributes.push(['Framed-IP-Address', client.ip], ['Calling-Station-Id', stationId(client.mac)]);
    // Message-Authenticator on every request (RFC 3579 §3.2), so a forged answer is refused.
    return this.client(s).send(this.servers(s, s.authport), 'Access-Request', attributes, true);
  }

  async authenticate(request: { username: string; password: string; client: ClientKey; zone: HotspotZone }): Promise<CredentialResult> {
    const s = this.deps.settings();
    if (!s.enabled || !s.radiusip || !s.sharekey) return { ok: false, error: LOGIN_ERRORS.notConfigured };
    const { username, password } = request;
    if (username.length > USERNAME_MAX || !isSafeText(username) || Buffer.byteLength(password) > PASSWORD_MAX) return { ok: false, error: LOGIN_ERRORS.userOrPassword };
    const outcome = await this.accessRequest(s, username, password, request.client);
    if (!outcome.ok) {
      if (outcome.error === 'timeout') return { ok: false, error: LOGIN_ERRORS.authServerTimeout };
      if (outcome.error === 'unreachable') return { ok: false, error: LOGIN_ERRORS.authServerUnreachable };
      return { ok: false, error: LOGIN_ERRORS.system };
    }
    // A challenge (a second factor) is not something the portal can ask: refused like a reject.
    if (outcome.code !== 'Access-Accept') return { ok: false, error: outcome.code === 'Access-Reject' || outcome.code === 'Access-Challenge' ? LOGIN_ERRORS.userOrPassword : LOGIN_ERRORS.system };
    const reply = readReply(outcome.raw);
    if (reply.ignored) this.deps.report(new Error(`${reply.ignored} malformed attribute(s) ignored`), 'RADIUS answer held attributes that were not valid');
    const now = this.deps.now();
    const seconds = reply.sessionSeconds ?? request.zone.sessionSeconds;
    return {
      ok: true,
      grant: {
        account: username,
        expiresAt: seconds ? now + seconds * 1000 : null,
        flowBytes: reply.totalBytes ?? null,
        usernum: 0,
        upKbps: reply.upKbps ?? 0,
        downKbps: reply.downKbps ?? 0,
        ...(reply.idleSeconds !== undefined ? { idleSeconds: reply.idleSeconds } : {}),
        sessionLimits: true,
        outside: { user: username, sid: randomBytes(8).toString('hex'), cls: reply.classes.join(','), interim: reply.interimSeconds ? String(reply.interimSeconds) : '' },
      },
    };
  }

  /** The connectivity test (spec §5: with the saved settings): one Access-Request. */
  async test(username: string, password: string): Promise<RadiusTestResult> {
    const s = this.deps.settings();
    if (!s.enabled || !s.radiusip || !s.sharekey) return { ok: false, error: 'disabled' };
    const outcome = await this.accessRequest(s, username, password);
    if (!outcome.ok) return outcome;
    return { ok: true, accepted: outcome.code === 'Access-Accept', rttMs: Math.round(outcome.rttMs) };
  }

  // ---- accounting ------------------------------------------------------------------------

  started(session: HotspotSession): void {
    const data = dataOf(session);
    const s = this.deps.settings();
    if (!data || !s.enabled || !s.accounting) return;
    const interval = this.interimSeconds(s, data) * 1000;
    this.interims.add(data.sid, session.ip, session.startedAt + interval, interval);
    this.account(s, session, data, 'Start');
  }

  ended(session: HotspotSession, reason: EndReason): void {
    const data = dataOf(session);
    const s = this.deps.settings();
    if (!data) return;
    this.interims.remove(data.sid);
    if (s.enabled && s.accounting) this.account(s, session, data, 'Stop', TERMINATE_CAUSE[reason]);
    this.templates.delete(data.sid);
  }

  private interimSeconds(s: HotspotRadius, data: RadiusSessionData): number {
    return Number(data.interim) || s.interval;
  }

  /**
   * Sends the interim updates that are due, at most one tick's share of the steady rate
   * (radius-interim.ts). Sessions the engine restored after a restart were never started
   * here: they are adopted by a look through the engine's sessions now and then.
   */
  interimRound(): void {
    const s = this.deps.settings();
    if (!this.engine || !s.enabled || !s.accounting) return;
    const now = this.deps.now();
    if (++this.sinceAdoption >= ADOPTION_TICKS) {
      this.sinceAdoption = 0;
      for (const session of this.engine.list()) {
        const data = session.kind === 'radius' && session.outside?.sid !== undefined && !this.interims.has(session.outside.sid) ? dataOf(session) : undefined;
        if (!data) continue;
        const interval = this.interimSeconds(s, data) * 1000;
        this.interims.add(data.sid, session.ip, now + interval, interval);
      }
    }
    for (const entry of this.interims.takeDue(now, TICK_MS)) {
      const session = this.engine.session(entry.ip);
      const data = session && dataOf(session);
      // The address now holds another session (or none): this one ended unheard.
      if (!session || !data || data.sid !== entry.sid) {
        this.interims.remove(entry.sid);
        this.templates.delete(entry.sid);
        continue;
      }
      const interval = this.interimSeconds(s, data) * 1000;
      this.interims.again(entry, now + interval, interval);
      this.account(s, session, data, 'Interim-Update');
    }
  }

  /** The session's constant attributes, encoded when first needed and again when the NAS settings change. */
  private templateOf(s: HotspotRadius, session: HotspotSession, data: RadiusSessionData): Buffer {
    const key = `${s.nasip}\u0000${s.nasid}`;
    const held = this.templates.get(data.sid);
    if (held?.key === key) return held.template;
    const template = accountingTemplate({
      user: data.user,
      sid: data.sid,
      ip: session.ip,
      station: stationId(session.mac),
      nasIp: s.nasip,
      nasId: s.nasid,
      classes: data.cls ? data.cls.split(',').map((c) => Buffer.from(c, 'hex')) : [],
    });
    this.templates.set(data.sid, { key, template });
    return template;
  }

  private secretBytes(s: HotspotRadius): Buffer {
    if (this.secret.text !== s.sharekey) this.secret = { text: s.sharekey, bytes: Buffer.from(s.sharekey, 'utf8') };
    return this.secret.bytes;
  }

  private account(s: HotspotRadius, session: HotspotSession, data: RadiusSessionData, type: AcctStatus, cause?: AcctTerminateCause): void {
    const at = this.deps.now();
    const fields: AccountingFields = { status: type, eventTime: Math.floor(at / 1000) };
    if (type !== 'Start') {
      // NAS input is what the client sent: its upload.
      const input = octetsAndGigawords(session.bytesUp);
      const output = octetsAndGigawords(session.bytesDown);
      fields.usage = {
        seconds: Math.max(0, Math.floor((at - session.startedAt) / 1000)),
        inOctets: input.octets,
        inGigawords: input.gigawords,
        outOctets: output.octets,
        outGigawords: output.gigawords,
      };
    }
    if (cause) fields.cause = cause;
    this.counters[type === 'Start' ? 'start' : type === 'Stop' ? 'stop' : 'interim'] += 1;
    let template: Buffer;
    try {
      template = this.templateOf(s, session, data);
    } catch (error) {
      this.counters.failed += 1;
      this.deps.report(error, `RADIUS accounting ${type} could not be sent`);
      return;
    }
    const secret = this.secretBytes(s);
    const client = this.client(s);
    const servers = this.servers(s, s.accoutport);
    // Acct-Delay-Time: how long this record has waited, queue and retransmissions included.
    const build = (identifier: number) => accountingPacket(template, secret, identifier, fields, (this.deps.now() - at) / 1000);
    this.accountingQueue.push(() =>
      client
        .sendAccounting(servers, build)
        .then((outcome) => {
          if (outcome.ok && outcome.code === 'Accounting-Response') this.counters.answered += 1;
          else {
            this.counters.failed += 1;
            this.deps.report(new Error(outcome.ok ? outcome.code : outcome.error), `RADIUS accounting ${type} was not answered`);
          }
        })
        .catch((error) => {
          this.counters.failed += 1;
          this.deps.report(error, `RADIUS accounting ${type} could not be sent`);
        }),
    );
    this.pumpAccounting();
  }

  private pumpAccounting(): void {
    while (this.accountingInFlight < ACCOUNTING_WINDOW && this.accountingQueue.length) {
      const next = this.accountingQueue.shift()!;
      this.accountingInFlight += 1;
      void next().finally(() => {
        this.accountingInFlight -= 1;
        this.pumpAccounting();
      });
    }
  }

  /** Accounting requests queued or in flight. */
  accountingPending(): number {
    return this.accountingQueue.length + this.accountingInFlight;
  }
}

/** The limits of a CoA-Request as the engine's adjustment. */
export function limitsOf(reply: RadiusReply) {
  return {
    ...(reply.sessionSeconds !== undefined ? { sessionSeconds: reply.sessionSeconds } : {}),
    ...(reply.idleSeconds !== undefined ? { idleSeconds: reply.idleSeconds } : {}),
    ...(reply.upKbps !== undefined ? { upKbps: reply.upKbps } : {}),
    ...(reply.downKbps !== undefined ? { downKbps: reply.downKbps } : {}),
    ...(reply.totalBytes !== undefined ? { totalBytes: reply.totalBytes } : {}),
  };
}
