import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { timingSafeEqual, createHash } from 'node:crypto';
import { isIpv4, isMac } from '@portico/schema';
import type { ClientEntry, ClientKey, HotspotDataplane, LimitedKey } from './hotspot-dataplane.js';
import { LoginLimiter, PORTAL_GUESS_POLICY, type Reservation, type TryOutcome } from '../../plugins/login-limiter.js';
import { openDatabase } from '../../plugins/db-open.js';
import { REMINDER_HOLD_SECONDS, thresholdsFor, withinThresholds, type ReminderRedirect } from './hotspot-reminder.js';
import {
  LOGIN_ERRORS,
  OUTSIDE_AUTH_MODELS,
  type Grant,
  type HotspotConfig,
  type HotspotPlan,
  type HotspotSession,
  type HotspotZone,
  type LoginFailure,
  type ExternalPortal,
  type OutsideAuthModel,
} from './hotspot-types.js';

/**
 * The hotspot engine (DESIGN §6): who is authorised, what they used, and when they stop.
 * Sessions live in memory; every change reaches the data plane in batches (many logins in one
 * nftables transaction), counters are read on a timer and drive quotas, time limits and idle
 * time-outs; the state is written to disk on a timer and at stop and restored at start, when
 * the data plane is made to hold exactly the restored sessions.
 */

export type CredentialResult = { ok: true; grant: Omit<Grant, 'kind'> } | { ok: false; error: LoginFailure };

/** Where accounts and vouchers are checked (local users, voucher domain). */
export interface HotspotCredentials {
  verifyLocalUser(username: string, password: string): Promise<CredentialResult>;
  redeemVoucher(code: string, device: { mac: string }): Promise<CredentialResult>;
  /**
   * SMS-code sign-in (sms/): whether the code sent to the phone is right. Not an
   * OutsideAuthenticator: its request is a phone number and a one-time code the portal sent
   * before (not a username and password), and the code's own guard limits its tries per phone
   * and device, so the engine reserves no guess for it.
   */
  verifySmsCode?(phone: string, code: string, device: { mac: string }): Promise<OutsideResult>;
  /**
   * A local account's CHAP sign-in (the CMCC and RU portals): `matches` says whether the response
   * is the one a password gives. The caller reserves the guess before it calls this.
   */
  verifyLocalUserChap?(username: string, matches: (password: string) => boolean): Promise<CredentialResult>;
}

/** What an outside check proved: the account it names; the zone grants the access. */
export type OutsideResult = { ok: true; account: string } | { ok: false; error: LoginFailure };

/**
 * Extension point: an authenticator outside the device for a zone's auth model (RADIUS, LDAP).
 * A zone whose model has one takes the portal's username-and-password logins (method `local`,
 * or the model's own form, `ldap`) to it instead of the local users; the guessing limit (one
 * guess reserved before the check) and the admission stay the engine's.
 */
export interface OutsideAuthenticator {
  authenticate(request: OutsideAuthRequest): Promise<CredentialResult>;
}

export interface OutsideAuthRequest {
  username: string;
  password: string;
  client: ClientKey;
  zone: HotspotZone;
  /** The grant the zone gives by itself (its plan or session time), for a server that states no limits. */
  zoneGrant(): Omit<Grant, 'kind'>;
}

/**
 * Extension point: told of every session that starts and ends (outside accounting). Called
 * synchronously inside the engine's bookkeeping: an observer queues its work and returns.
 */
export interface SessionObserver {
  started?(session: HotspotSession): void;
  ended?(session: HotspotSession, reason: EndReason): void;
}

/** Limits an outside server changes on a live session (RFC 5176 CoA); absent: unchanged. */
export interface SessionAdjustment {
  /** Seconds from now; 0: no time limit. */
  sessionSeconds?: number;
  idleSeconds?: number;
  upKbps?: number;
  downKbps?: number;
  /** Bytes the session may use in all; 0: unlimited. */
  totalBytes?: number;
}

export type LoginRequest =
  | { method: 'voucher'; code: string }
  | { method: 'local'; username: string; password: string }
  | { method: 'password'; password: string }
  | { method: 'onekey' }
  | { method: 'ldap'; username: string; password: string }
  | { method: 'sms'; phone: string; code: string };

export type LoginOutcome = { ok: true; session: HotspotSession } | { ok: false; error: LoginFailure };

export interface HotspotEngineOptions {
  dataplane: HotspotDataplane;
  config: () => HotspotConfig;
  credentials: HotspotCredentials;
  now?: () => number;
  /** JSON file the state is kept in; none: memory only. */
  stateFile?: string;
  /** Milliseconds between writes of the state. */
  flushMs?: number;
  report?: (error: unknown, what: string) => void;
  /** Where clients to remind of their expiry take effect; none: nobody is reminded. */
  reminders?: ReminderRedirect;
  /**
   * The guessing limit of vouchers, passwords and accounts (PORTAL_GUESS_POLICY over the
   * daemon's database, so a restart keeps it); none: one over a private in-memory database.
   */
  guard?: LoginLimiter;
  /** Authenticators of the zone auth models whose accounts live outside the device. */
  outside?: Partial<Record<OutsideAuthModel, OutsideAuthenticator>>;
  /** Told of sessions starting and ending. */
  observers?: SessionObserver[];
  /** Told of a portal sign-in the credentials refused (the auth log). */
  refused?(client: ClientKey, zone: string, method: string, error: string): void;
}

/** A client reminded of its expiry (the reminder list): once per interval per device. */
export interface ReminderEntry {
  ip: string;
  mac: string;
  username: string;
  remindedAt: number;
  /**
   * `awaiting`: the client's next web request shows the reminder; `shown`: it was shown;
   * `withdrawn`: the client went offline before that.
   */
  state: 'awaiting' | 'shown' | 'withdrawn';
}

/** What an account used across its devices and logins: a returning device continues it. */
interface AccountUse {
  bytes: number;
  expiresAt: number | null;
  flowLimit: number | null;
}

interface PersistedState {
  version: 1;
  sessions: HotspotSession[];
  accounts: Record<string, AccountUse>;
  blocked: string[];
  reminded?: ReminderEntry[];
}

/** Why a client was cut off, so the portal sends it to the expiry notice. */
export type EndReason = 'expired' | 'quota' | 'idle' | 'kicked' | 'logout' | 'blocked';

export class HotspotEngine {
  private readonly sessions = new Map<string, HotspotSession>();
  /** Indexes over `sessions` (by IP), so a login costs the same with 10 or 10,000 online. */
  private readonly ipByMac = new Map<string, string>();
  private readonly ipsByAccount = new Map<string, Set<string>>();

  private putSession(session: HotspotSession): void {
    this.sessions.set(session.ip, session);
    this.ipByMac.set(session.mac, session.ip);
    if (session.account) {
      const ips = this.ipsByAccount.get(session.account) ?? new Set<string>();
      ips.add(session.ip);
      this.ipsByAccount.set(session.account, ips);
    }
  }

  private dropSession(session: HotspotSession): void {
    this.sessions.delete(session.ip);
    if (this.ipByMac.get(session.mac) === session.ip) this.ipByMac.delete(session.mac);
    if (session.account) {
      const ips = this.ipsByAccount.get(session.account);
      ips?.delete(session.ip);
      if (ips?.size === 0) this.ipsByAccount.delete(session.account);
    }
  }

  private sessionsOfAccount(account: string): HotspotSession[] {
    return [...(this.ipsByAccount.get(account) ?? [])].map((ip) => this.sessions.get(ip)).filter((s): s is HotspotSession => !!s);
  }
  private readonly accounts = new Map<string, AccountUse>();
  private readonly blocked = new Set<string>();
  /** Reminded clients by MAC, kept for the interval so nobody is reminded more often. */
  private readonly reminded = new Map<string, ReminderEntry>();
  /** Raw kernel counters at the last read, to turn them into increments. */
  private readonly lastRaw = new Map<string, { up: number; down: number }>();
  private readonly ended = new Map<string, { reason: EndReason; at: number }>();
  private readonly now: () => number;
  private readonly guard: LoginLimiter;
  private pendingAdd = new Map<string, ClientEntry>();
  private pendingRemove = new Map<string, LimitedKey>();
  private flushing: Promise<void> | null = null;
  /** The transaction the changes queued now will go in: one promise shared by all who wait for it. */
  private nextBatch: { done: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | null = null;
  private timers: NodeJS.Timeout[] = [];
  private dirty = false;

  constructor(private readonly options: HotspotEngineOptions) {
    this.now = options.now ?? Date.now;
    this.guard = options.guard ?? new LoginLimiter(openDatabase(':memory:'), this.now, PORTAL_GUESS_POLICY);
  }

  // ---- lifecycle ------------------------------------------------------------------------

  /** Restores the saved state and makes the data plane hold exactly those clients. */
  async start(): Promise<void> {
    const saved = this.readState();
    const now = this.now();
    for (const [account, use] of Object.entries(saved?.accounts ?? {})) this.accounts.set(account, use);
    for (const mac of saved?.blocked ?? []) this.blocked.add(mac);
    for (const entry of saved?.reminded ?? []) if (isMac(entry.mac) && isIpv4(entry.ip)) this.reminded.set(entry.mac, entry);
    for (const session of saved?.sessions ?? []) {
      if (!isIpv4(session.ip) || !isMac(session.mac)) continue;
      const reason = this.endReason(session, now);
      if (reason) {
        // Ended while the daemon was down: observers (outside accounting) still hear of it.
        this.notify((o) => o.ended?.(session, reason));
        continue;
      }
      this.putSession(session);
    }
    // Whatever the kernel holds that is not a restored session is taken out, so nobody who
    // was not authorised gets through across the restart.
    const held = await this.options.dataplane.counters();
    const stale = held.filter((c) => this.sessions.get(c.ip)?.mac !== c.mac);
    for (const c of held) if (this.sessions.get(c.ip)?.mac === c.mac) this.lastRaw.set(c.ip, { up: c.bytesUp, down: c.bytesDown });
    await this.options.dataplane.apply(
      [...this.sessions.values()].map((s) => this.entryOf(s)),
      stale.map((c) => ({ mac: c.mac, ip: c.ip, limits: { up: true, down: true } })),
    );
    await this.options.dataplane.forgetAddresses?.(new Set(this.sessions.keys()));
    if (this.blocked.size) await this.options.dataplane.block([...this.blocked]);
    // Reminders still awaiting their client go back into the (re-created) set.
    const awaiting = [...this.sessions.keys()].filter((ip) => this.reminderFor(ip));
    if (awaiting.length) await this.options.reminders?.remind(awaiting, []);
  }

  /** Starts the accounting and persistence timers. */
  startTimers(): void {
    const tick = () => this.tick().catch((error) => this.options.report?.(error, 'hotspot accounting failed'));
    const accounting = setInterval(tick, this.options.config().accountingSeconds * 1000);
    // Time limits end on time even between accounting reads.
    const expiry = setInterval(() => this.expireByTime().catch((e) => this.options.report?.(e, 'hotspot expiry failed')), 5000);
    const flush = setInterval(() => this.flushState(), this.options.flushMs ?? 30_000);
    for (const timer of [accounting, expiry, flush]) timer.unref();
    this.timers.push(accounting, expiry, flush);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.settle().catch(() => undefined);
    await this.readCounters().catch(() => undefined);
    this.dirty = true;
    this.flushState();
  }

  // ---- queries --------------------------------------------------------------------------

  session(ip: string): HotspotSession | undefined {
    return this.sessions.get(ip);
  }

  list(): HotspotSession[] {
    return [...this.sessions.values()];
  }

  /** Why the client at this address last lost its session, if it did recently. */
  endedFor(ip: string): EndReason | undefined {
    const entry = this.ended.get(ip);
    return entry && this.now() - entry.at < 3_600_000 ? entry.reason : undefined;
  }

  /**
   * What an account used over all its devices and logins (bytes, up + down), and its limits;
   * undefined when it never signed in. `kind` is the login method ('local', 'voucher').
   */
  accountUsage(kind: Grant['kind'], account: string): { bytes: number; expiresAt: number | null; flowLimit: number | null } | undefined {
    const use = this.accounts.get(`${kind}:${account}`);
    return use ? { ...use } : undefined;
  }

  /** Sessions of one account (e.g. a local user's devices online now). */
  sessionsOf(kind: Grant['kind'], account: string): HotspotSession[] {
    const key = `${kind}:${account}`;
    return this.sessionsOfAccount(key);
  }

  isBlocked(mac: string): boolean {
    return this.blocked.has(mac) || this.options.config().blackList.some((e) => e.type === 'mac' && e.value.toLowerCase() === mac);
  }

  secondsRemaining(session: HotspotSession): number | null {
    return session.expiresAt === null ? null : Math.max(0, Math.round((session.expiresAt - this.now()) / 1000));
  }

  bytesRemaining(session: HotspotSession): number | null {
    return session.flowLimit === null ? null : Math.max(0, session.flowLimit - session.bytesUp - session.bytesDown);
  }

  // ---- login ----------------------------------------------------------------------------

  /**
   * Reserves one guess of a secret (voucher, password, account) for a client, counted per MAC
   * and per address, before the secret is checked: parallel tries cannot pass the limit.
   * Release it with what the check told about the secret.
   */
  reserveGuess(client: ClientKey): Reservation {
    return this.guard.reserve([`mac:${client.mac}`, `ip:${client.ip}`]);
  }

  async login(client: ClientKey, zone: HotspotZone, request: LoginRequest): Promise<LoginOutcome> {
    if (this.isBlocked(client.mac)) return { ok: false, error: LOGIN_ERRORS.blocked };
    const guessed = request.method === 'voucher' || request.method === 'local' || request.method === 'password' || request.method === 'ldap';
    const reservation = guessed ? this.reserveGuess(client) : undefined;
    if (reservation && !reservation.ok) return { ok: false, error: LOGIN_ERRORS.tooMany };
    let outcome: TryOutcome = 'uncounted';
    try {
      if (!zone.methods.includes(request.method)) return { ok: false, error: LOGIN_ERRORS.system };
      let result: CredentialResult;
      try {
        result = await this.check(client, zone, request);
      } catch (error) {
        this.options.report?.(error, 'hotspot credential check failed');
        return { ok: false, error: LOGIN_ERRORS.system };
      }
      if (!result.ok) {
        this.options.refused?.(client, zone.name, request.method, result.error);
        // An expired account or a full one still had its secret right.
        if (result.error === LOGIN_ERRORS.code || result.error === LOGIN_ERRORS.password || result.error === LOGIN_ERRORS.userOrPassword) outcome = 'failure';
        return result;
      }
      outcome = 'success';
      const outside = this.outsideModel(zone, request);
      return await this.admit(client, zone, { ...result.grant, kind: outside ?? request.method });
    } finally {
      reservation?.release(outcome);
    }
  }

  /**
   * The outside auth model that checks this login: a username-and-password login (`local`, or
   * a model's own form such as `ldap`) on a zone whose auth model lives outside the device.
   */
  private outsideModel(zone: HotspotZone, request: LoginRequest): OutsideAuthModel | undefined {
    const model = zone.authModel;
    if (!model || !(OUTSIDE_AUTH_MODELS as readonly string[]).includes(model)) return undefined;
    return request.method === 'local' || request.method === model ? (model as OutsideAuthModel) : undefined;
  }

  private async check(client: ClientKey, zone: HotspotZone, request: LoginRequest): Promise<CredentialResult> {
    const outside = this.outsideModel(zone, request);
    if (outside && (request.method === 'local' || request.method === 'ldap')) {
      const authenticator = this.options.outside?.[outside];
      if (!authenticator) return { ok: false, error: LOGIN_ERRORS.notConfigured };
      const { username, password } = request;
      return authenticator.authenticate({ username, password, client, zone, zoneGrant: () => this.zoneGrant(zone) });
    }
    switch (request.method) {
      case 'voucher':
        return this.options.credentials.redeemVoucher(request.code.trim(), { mac: client.mac });
      case 'local':
        return this.options.credentials.verifyLocalUser(request.username, request.password);
      case 'password': {
        const digest = (s: string) => createHash('sha256').update(s).digest();
        if (!zone.password || !timingSafeEqual(digest(zone.password), digest(request.password))) return { ok: false, error: LOGIN_ERRORS.password };
        return { ok: true, grant: this.zoneGrant(zone) };
      }
      case 'onekey':
        return { ok: true, grant: this.zoneGrant(zone) };
      case 'ldap':
        // The LDAP form on a zone that is not an LDAP zone.
        return { ok: false, error: LOGIN_ERRORS.system };
      case 'sms': {
        const verified = await this.options.credentials.verifySmsCode?.(request.phone, request.code, { mac: client.mac });
        if (!verified) return { ok: false, error: LOGIN_ERRORS.system };
        return verified.ok ? { ok: true, grant: { ...this.zoneGrant(zone), account: verified.account } } : verified;
      }
    }
  }

  /**
   * Admits a client an outside portal server vouched for (wifidog/): no secret is guessed here,
   * the zone's plan and session length apply as for a one-key login.
   */
  async admitExternal(client: ClientKey, zone: HotspotZone, kind: ExternalPortal, account?: string): Promise<LoginOutcome> {
    if (this.isBlocked(client.mac)) return { ok: false, error: LOGIN_ERRORS.blocked };
    if (zone.externalPortal !== kind) return { ok: false, error: LOGIN_ERRORS.system };
    return this.admit(client, zone, { ...this.zoneGrant(zone), kind, ...(account ? { account } : {}) });
  }

  private planNamed(name: string | undefined): HotspotPlan | undefined {
    return name ? this.options.config().plans.find((p) => p.name === name) : undefined;
  }

  private zoneGrant(zone: HotspotZone): Omit<Grant, 'kind'> {
    const plan = this.planNamed(zone.plan);
    const seconds = plan?.seconds || zone.sessionSeconds;
    return {
      plan: plan?.name,
      expiresAt: seconds ? this.now() + seconds * 1000 : null,
      flowBytes: plan?.flowBytes ? plan.flowBytes : null,
      usernum: 0,
      upKbps: plan?.upKbps ?? 0,
      downKbps: plan?.downKbps ?? 0,
    };
  }

  /**
   * Authorises many clients at once: the admissions run together, so their data-plane changes
   * go into as few nftables transactions as the batching allows (usually one). Outcomes are
   * in the order of `admissions`.
   */
  async admitAll(admissions: ReadonlyArray<{ client: ClientKey; zone: HotspotZone; grant: Grant }>): Promise<LoginOutcome[]> {
    // Every session is in place before the one wait for the data plane: no promise per client.
    const outcomes = admissions.map(({ client, zone, grant }) => this.admitNow(client, zone, grant));
    if (outcomes.some((o) => o.ok)) await this.settle();
    return outcomes;
  }

  /**
   * Authorises a client for a grant: usage of the same account continues, usernum holds.
   * Resolves once the client is in the data plane; concurrent calls share transactions.
   */
  async admit(client: ClientKey, zone: HotspotZone, grant: Grant): Promise<LoginOutcome> {
    const outcome = this.admitNow(client, zone, grant);
    if (outcome.ok) await this.settle();
    return outcome;
  }

  /** The session of an admission, queued for the data plane (not yet in it). */
  private admitNow(client: ClientKey, zone: HotspotZone, grant: Grant): LoginOutcome {
    const now = this.now();
    const account = grant.account ? `${grant.kind}:${grant.account}` : undefined;
    if (account && grant.usernum > 0) {
      const others = this.sessionsOfAccount(account).filter((s) => s.mac !== client.mac);
      if (others.length >= grant.usernum) return { ok: false, error: LOGIN_ERRORS.onlineLimit };
    }
    // An outside server keeps its accounts' totals: its limits count for this session alone.
    const use = account && !grant.sessionLimits ? this.accounts.get(account) : undefined;
    const plan = this.planNamed(grant.plan);
    // Limits the credentials state (a due time, a voucher's end, an account's total) are the
    // current truth; a plan's relative limits count from the account's first login.
    const expiresAt = grant.expiresAt ?? use?.expiresAt ?? (plan?.seconds ? now + plan.seconds * 1000 : null);
    const flowLimit = grant.flowBytes ?? use?.flowLimit ?? (plan?.flowBytes ? plan.flowBytes : null);
    const usedBefore = use?.bytes ?? 0;
    if (expiresAt !== null && expiresAt <= now) return { ok: false, error: LOGIN_ERRORS.expired };
    if (flowLimit !== null && usedBefore >= flowLimit) return { ok: false, error: LOGIN_ERRORS.quota };
    // The same device logging in again, or its address changing, replaces its old session.
    const byMacIp = this.ipByMac.get(client.mac);
    for (const ip of byMacIp && byMacIp !== client.ip ? [client.ip, byMacIp] : [client.ip]) {
      const old = this.sessions.get(ip);
      if (old) this.endNow(old, 'logout');
    }
    const session: HotspotSession = {
      mac: client.mac,
      ip: client.ip,
      zone: zone.name,
      kind: grant.kind,
      account,
      plan: grant.plan,
      startedAt: now,
      expiresAt,
      // Bytes this session may use: what the account has left.
      flowLimit: flowLimit === null ? null : flowLimit - usedBefore,
      bytesUp: 0,
      bytesDown: 0,
      activeAt: now,
      upKbps: grant.upKbps || plan?.upKbps || 0,
      downKbps: grant.downKbps || plan?.downKbps || 0,
      idleSeconds: grant.idleSeconds ?? zone.idleSeconds,
      ...(grant.outside ? { outside: { ...grant.outside } } : {}),
    };
    if (account && !grant.sessionLimits) this.accounts.set(account, { bytes: usedBefore, expiresAt, flowLimit });
    this.putSession(session);
    this.notify((o) => o.started?.(session));
    this.ended.delete(client.ip);
    this.lastRaw.delete(client.ip);
    this.dirty = true;
    this.queueAdd(session);
    return { ok: true, session };
  }

  // ---- administrator actions --------------------------------------------------------------

  async kick(ip: string, reason: EndReason = 'kicked'): Promise<boolean> {
    const session = this.sessions.get(ip);
    if (!session) return false;
    await this.end(session, reason, true);
    return true;
  }

  /**
   * Changes the limits of a live session at once (an outside server's change of
   * authorisation): a new time limit counts from now, speeds reach the data plane before this
   * resolves. False when the client has no session.
   */
  async adjust(ip: string, change: SessionAdjustment): Promise<boolean> {
    let session = this.sessions.get(ip);
    if (!session) return false;
    // The kernel keeps an element's time-out as it was added: a new one needs the element
    // re-created, whose counters then start again, so what they hold is counted first.
    const retime = change.sessionSeconds !== undefined;
    if (retime) {
      await this.readCounters();
      session = this.sessions.get(ip);
      if (!session) return false;
    }
    const now = this.now();
    if (change.sessionSeconds !== undefined) session.expiresAt = change.sessionSeconds > 0 ? now + change.sessionSeconds * 1000 : null;
    if (change.idleSeconds !== undefined) session.idleSeconds = change.idleSeconds;
    if (change.totalBytes !== undefined) session.flowLimit = change.totalBytes > 0 ? change.totalBytes : null;
    // Re-added with its new speeds (and time-out), as a rate limit is.
    this.pendingRemove.set(ip, { mac: session.mac, ip, ...(retime ? {} : { onlyLimits: true }), limits: { up: session.upKbps > 0, down: session.downKbps > 0 } });
    if (retime) this.lastRaw.delete(ip);
    if (change.upKbps !== undefined) session.upKbps = change.upKbps;
    if (change.downKbps !== undefined) session.downKbps = change.downKbps;
    this.queueAdd(session);
    this.dirty = true;
    await this.settle();
    const reason = this.endReason(session, now);
    if (reason) await this.end(session, reason, true);
    return true;
  }

  private notify(call: (observer: SessionObserver) => void): void {
    for (const observer of this.options.observers ?? []) {
      try {
        call(observer);
      } catch (error) {
        this.options.report?.(error, 'hotspot session observer failed');
      }
    }
  }

  /** Changes a client's speed limits at once (Kbit/s, 0 = unlimited). */
  async rateLimit(ip: string, upKbps: number, downKbps: number): Promise<boolean> {
    const session = this.sessions.get(ip);
    if (!session) return false;
    this.pendingRemove.set(ip, { mac: session.mac, ip, onlyLimits: true, limits: { up: session.upKbps > 0, down: session.downKbps > 0 } });
    session.upKbps = upKbps;
    session.downKbps = downKbps;
    this.queueAdd(session);
    this.dirty = true;
    await this.settle();
    return true;
  }

  /** Refuses a MAC at once and ends its session. */
  async block(mac: string): Promise<void> {
    this.blocked.add(mac);
    this.dirty = true;
    await this.options.dataplane.block([mac]);
    const ip = this.ipByMac.get(mac);
    const session = ip ? this.sessions.get(ip) : undefined;
    if (session) await this.end(session, 'blocked', true);
  }

  async unblock(mac: string): Promise<void> {
    if (!this.blocked.delete(mac)) return;
    this.dirty = true;
    await this.options.dataplane.block([], [mac]);
  }

  blockedMacs(): string[] {
    return [...this.blocked];
  }

  // ---- accounting -----------------------------------------------------------------------

  /**
   * One accounting round: reads every client's kernel counters (one `nft` call), adds the
   * increments to sessions and accounts, then ends sessions past their quota, time or idle
   * limit. Runs on the accounting timer; callable directly.
   */
  async tick(): Promise<void> {
    await this.readCounters();
    await this.expire();
    try {
      await this.remindDue();
    } catch (error) {
      this.options.report?.(error, 'hotspot reminders could not be set');
    }
  }

  // ---- expiry reminders -------------------------------------------------------------------

  /** The reminder awaiting the client at this address, if its next web request is to show one. */
  reminderFor(ip: string): ReminderEntry | undefined {
    const entry = this.pendingReminder(ip);
    return entry ? { ...entry } : undefined;
  }

  private pendingReminder(ip: string): ReminderEntry | undefined {
    const session = this.sessions.get(ip);
    const entry = session ? this.reminded.get(session.mac) : undefined;
    if (!entry || entry.ip !== ip || entry.state !== 'awaiting') return undefined;
    // The kernel drops the address from the set after the hold time; so does the engine.
    return this.now() - entry.remindedAt < REMINDER_HOLD_SECONDS * 1000 ? entry : undefined;
  }

  /** The client was shown its reminder: its web requests go where they were going again. */
  async reminderShown(ip: string): Promise<void> {
    const entry = this.pendingReminder(ip);
    if (!entry) return;
    entry.state = 'shown';
    this.dirty = true;
    await this.options.reminders?.remind([], [ip]);
  }

  /** Clients reminded within the current interval, newest first (the reminder list). */
  reminderList(): ReminderEntry[] {
    const intervalMs = (this.options.config().reminder?.intervalSeconds ?? 0) * 1000;
    const now = this.now();
    return [...this.reminded.values()]
      .filter((entry) => now - entry.remindedAt < intervalMs)
      .sort((a, b) => b.remindedAt - a.remindedAt)
      .map((entry) => ({ ...entry }));
  }

  /**
   * Puts the clients whose time or traffic is within their reminder thresholds into the
   * reminder set, each at most once per interval; runs after every accounting round.
   */
  async remindDue(): Promise<void> {
    const redirect = this.options.reminders;
    if (!redirect) return;
    const config = this.options.config();
    const settings = config.reminder;
    const now = this.now();
    const add: string[] = [];
    const remove: string[] = [];
    if (!settings?.enabled) {
      // Switched off: reminders still awaiting their client are withdrawn.
      for (const [mac, entry] of this.reminded) {
        if (this.pendingReminder(entry.ip) === entry) remove.push(entry.ip);
        this.reminded.delete(mac);
      }
    } else {
      const intervalMs = settings.intervalSeconds * 1000;
      for (const [mac, entry] of this.reminded) if (now - entry.remindedAt >= intervalMs) this.reminded.delete(mac);
      for (const session of this.sessions.values()) {
        if (this.reminded.has(session.mac)) continue;
        const thresholds = thresholdsFor(session, config.plans, settings);
        if (!thresholds || !withinThresholds(session, thresholds, now)) continue;
        const username = session.account?.replace(/^[a-z]+:/, '') ?? '';
        this.reminded.set(session.mac, { ip: session.ip, mac: session.mac, username, remindedAt: now, state: 'awaiting' });
        add.push(session.ip);
      }
    }
    if (add.length === 0 && remove.length === 0) return;
    this.dirty = true;
    await redirect.remind(add, remove);
  }

  async expireByTime(): Promise<void> {
    const now = this.now();
    for (const session of [...this.sessions.values()]) {
      if (session.expiresAt !== null && session.expiresAt <= now) await this.end(session, 'expired', false);
    }
    await this.settle();
  }

  private async readCounters(): Promise<void> {
    const now = this.now();
    for (const counter of await this.options.dataplane.counters()) {
      const session = this.sessions.get(counter.ip);
      if (!session || session.mac !== counter.mac) continue;
      const last = this.lastRaw.get(counter.ip) ?? { up: 0, down: 0 };
      // A counter below its last reading was reset (element re-created): count from zero.
      const up = counter.bytesUp >= last.up ? counter.bytesUp - last.up : counter.bytesUp;
      const down = counter.bytesDown >= last.down ? counter.bytesDown - last.down : counter.bytesDown;
      this.lastRaw.set(counter.ip, { up: counter.bytesUp, down: counter.bytesDown });
      if (up + down === 0) continue;
      session.bytesUp += up;
      session.bytesDown += down;
      session.activeAt = now;
      if (session.account) {
        const use = this.accounts.get(session.account);
        if (use) use.bytes += up + down;
      }
      this.dirty = true;
    }
  }

  private endReason(session: HotspotSession, now: number): EndReason | undefined {
    if (session.expiresAt !== null && session.expiresAt <= now) return 'expired';
    if (session.flowLimit !== null && session.bytesUp + session.bytesDown >= session.flowLimit) return 'quota';
    if (session.idleSeconds > 0 && now - session.activeAt >= session.idleSeconds * 1000) return 'idle';
    return undefined;
  }

  private async expire(): Promise<void> {
    const now = this.now();
    for (const session of [...this.sessions.values()]) {
      const reason = this.endReason(session, now);
      if (reason) await this.end(session, reason, false);
    }
    await this.settle();
  }

  private async end(session: HotspotSession, reason: EndReason, wait: boolean): Promise<void> {
    if (this.endNow(session, reason) && wait) await this.settle();
  }

  /** Ends a session and queues its removal from the data plane; false if it had ended already. */
  private endNow(session: HotspotSession, reason: EndReason): boolean {
    if (this.sessions.get(session.ip) !== session) return false;
    this.dropSession(session);
    this.lastRaw.delete(session.ip);
    this.ended.set(session.ip, { reason, at: this.now() });
    this.pendingAdd.delete(session.ip);
    const reminder = this.reminded.get(session.mac);
    if (reminder && reminder.ip === session.ip && reminder.state === 'awaiting') {
      // A client that went offline is not redirected to its reminder any more.
      reminder.state = 'withdrawn';
      this.options.reminders?.remind([], [session.ip]).catch((error) => this.options.report?.(error, 'hotspot reminder could not be withdrawn'));
    }
    this.pendingRemove.set(session.ip, { mac: session.mac, ip: session.ip, limits: { up: session.upKbps > 0, down: session.downKbps > 0 } });
    this.dirty = true;
    this.notify((o) => o.ended?.(session, reason));
    return true;
  }

  // ---- batching -------------------------------------------------------------------------

  private entryOf(session: HotspotSession): ClientEntry {
    const seconds = session.expiresAt === null ? null : Math.max(1, Math.ceil((session.expiresAt - this.now()) / 1000));
    return { mac: session.mac, ip: session.ip, timeoutSeconds: seconds, upKbps: session.upKbps, downKbps: session.downKbps };
  }

  private queueAdd(session: HotspotSession): void {
    this.pendingAdd.set(session.ip, this.entryOf(session));
  }

  /**
   * Resolves once every change queued so far is in the data plane. Changes queued while a
   * transaction runs go together into the next one, so a burst of logins costs few `nft` runs.
   */
  settle(): Promise<void> {
    if (this.pendingAdd.size === 0 && this.pendingRemove.size === 0 && !this.flushing) return Promise.resolve();
    if (!this.nextBatch) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.nextBatch = { done, resolve, reject };
    }
    const { done } = this.nextBatch;
    if (!this.flushing) this.flushing = this.drain();
    return done;
  }

  private async drain(): Promise<void> {
    // Let the logins of the same moment join this batch.
    await new Promise((r) => setImmediate(r));
    while (this.pendingAdd.size || this.pendingRemove.size) {
      const add = [...this.pendingAdd.values()];
      const remove = [...this.pendingRemove.values()];
      const batch = this.nextBatch;
      this.pendingAdd = new Map();
      this.pendingRemove = new Map();
      this.nextBatch = null;
      try {
        await this.options.dataplane.apply(add, remove);
        batch?.resolve();
      } catch (error) {
        this.options.report?.(error, 'hotspot data plane update failed');
        batch?.reject(error);
      }
    }
    const late = this.nextBatch;
    this.nextBatch = null;
    late?.resolve();
    this.flushing = null;
  }

  // ---- persistence ------------------------------------------------------------------------

  private readState(): PersistedState | undefined {
    if (!this.options.stateFile) return undefined;
    try {
      const state = JSON.parse(readFileSync(this.options.stateFile, 'utf8')) as PersistedState;
      return state.version === 1 ? state : undefined;
    } catch {
      return undefined;
    }
  }

  /** Writes the state atomically (temp file, fsync, rename) when it changed. */
  flushState(): void {
    const file = this.options.stateFile;
    if (!file || !this.dirty) return;
    const state: PersistedState = {
      version: 1,
      sessions: [...this.sessions.values()],
      accounts: Object.fromEntries(this.accounts),
      blocked: [...this.blocked],
      reminded: [...this.reminded.values()],
    };
    try {
      mkdirSync(dirname(file), { recursive: true });
      const temp = `${file}.tmp`;
      const fd = openSync(temp, 'w', 0o600);
      try {
        writeSync(fd, JSON.stringify(state));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, file);
      this.dirty = false;
    } catch (error) {
      this.options.report?.(error, 'hotspot state could not be saved');
    }
  }
}
