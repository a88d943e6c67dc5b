import { hotspotCmcc, type HotspotCmcc } from '@portico/schema';
import type { LoginLimiter } from '../../../plugins/login-limiter.js';
import type { CredentialResult, HotspotEngine } from '../hotspot-engine.js';
import type { NeighbourLookup } from '../hotspot-neighbours.js';
import type { PortalZone } from '../hotspot-portal.js';
import { LOGIN_ERRORS, type Grant, type LoginFailure } from '../hotspot-types.js';
import { CmccAccessController, type CmccAuthResult, type CmccCredentials } from './cmcc-ac.js';
import { chapMatches } from './cmcc-packet.js';
import { cmccRedirectUrl } from './cmcc-redirect.js';

/**
 * CMCC in the daemon: one access controller for the saved `auth/cmcc` section, serving every
 * zone of auth model cmcc. Captive clients of those zones are sent to cmccurl; the portal
 * server then asks over UDP (REQ_CHALLENGE/REQ_AUTH) and the controller admits the user through
 * the hotspot engine, or releases it on REQ_LOGOUT. A session the engine ends (time, quota,
 * idle, an administrator) is reported to the portal server with NTF_LOGOUT.
 *
 * Credentials: both are checked against the device's local users (their limits apply to the
 * session): PAP against the password's hash, CHAP (MD5 of the identifier, password and
 * challenge) against the password the account keeps sealed. An account without a sealed password
 * (made before) is refused with TextInfo `portal.error.needPassword`.
 */

/** Refusals counted as wrong guesses. */
const WRONG: ReadonlySet<LoginFailure> = new Set([LOGIN_ERRORS.userOrPassword, LOGIN_ERRORS.password, LOGIN_ERRORS.needPassword]);

/** How long settings whose socket could not be bound wait before the next try. */
const RETRY_MS = 60_000;

export interface CmccServiceDeps {
  engine: HotspotEngine;
  now: () => number;
  settings(): HotspotCmcc;
  zoneFor(ip: string): PortalZone | null;
  neighbours: NeighbourLookup;
  verifyLocalUser(username: string, password: string): Promise<CredentialResult>;
  /** A CHAP sign-in's check: `matches` tells whether a password gives the response. */
  verifyLocalUserChap(username: string, matches: (password: string) => boolean): Promise<CredentialResult>;
  limiter: Pick<LoginLimiter, 'reserve'>;
  report: (error: unknown, what: string) => void;
}

interface Running {
  key: string;
  settings: HotspotCmcc;
  ac: CmccAccessController;
  bound: Promise<{ address: string; port: number } | null>;
}

export class CmccService {
  private running: Running | null = null;
  /** Grants proven by REQ_AUTH, taken by the admission that follows it. */
  private readonly proven = new Map<string, Omit<Grant, 'kind'>>();

  constructor(private readonly deps: CmccServiceDeps) {}

  private queue: Promise<unknown> = Promise.resolve();
  /** The settings that last could not listen, and when: retried after RETRY_MS, not on every sync. */
  private failed: { key: string; at: number } | null = null;

  /** The controller, started, restarted or stopped to match the saved section and zones. */
  sync(inUse: boolean): Promise<Running | null> {
    // One at a time: two callers seeing a new section must not both open a socket.
    const run = this.queue.then(() => this.syncNow(inUse));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async syncNow(inUse: boolean): Promise<Running | null> {
    const settings = this.deps.settings();
    const usable = inUse && settings.cmccurl !== '' && settings.cmccip !== '' && settings.wlanacip !== '' && (settings.version === '1' || settings.secret !== '');
    const key = usable ? JSON.stringify(settings) : '';
    if (this.running?.key === key) {
      await this.running.bound;
      return this.running;
    }
    await this.stopNow();
    if (!usable) return null;
    if (this.failed?.key === key && this.deps.now() - this.failed.at < RETRY_MS) return null;
    const ac = new CmccAccessController(
      {
        portalServerIp: settings.cmccip,
        portalServerPort: settings.notifyport,
        version: settings.version === '1' ? 1 : 2,
        ...(settings.version === '2' ? { secret: settings.secret } : {}),
        bindAddress: settings.wlanacip,
        port: settings.acport,
        limiter: this.deps.limiter,
        ...(settings.flowcheck > 0 ? { flowCheckMs: settings.flowcheck * 60_000 } : {}),
      },
      {
        authenticate: (credentials) => this.authenticate(credentials),
        allow: (userIp, username) => this.allow(userIp, username),
        deauthorize: async (userIp) => {
          const session = this.deps.engine.session(userIp);
          if (session?.kind === 'cmcc') await this.deps.engine.kick(userIp, 'logout');
        },
        usage: (userIp) => {
          const session = this.deps.engine.session(userIp);
          return session?.kind === 'cmcc' ? { uplinkBytes: session.bytesUp, downlinkBytes: session.bytesDown } : null;
        },
      },
    );
    const bound = ac.start().catch((error: unknown) => {
      // wlanacip not an address of this device, or the port taken: logged, retried on the next sync.
      this.deps.report(error, 'cmcc access controller could not listen');
      return null;
    });
    const running: Running = { key, settings, ac, bound };
    this.running = running;
    if ((await bound) === null && this.running === running) {
      this.running = null;
      this.failed = { key, at: this.deps.now() };
    }
    return this.running;
  }

  stop(): Promise<void> {
    const run = this.queue.then(() => this.stopNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async stopNow(): Promise<void> {
    const running = this.running;
    this.running = null;
    await running?.ac.stop();
  }

  /** Users the engine no longer holds (time, quota, idle, kick) are reported with NTF_LOGOUT. */
  async releaseEnded(): Promise<void> {
    const ac = this.running?.ac;
    if (!ac) return;
    for (const user of ac.onlineUsers()) {
      if (this.deps.engine.session(user.userIp)?.kind !== 'cmcc') await ac.dropUser(user.userIp);
    }
  }

  state() {
    return { running: Boolean(this.running), online: this.running?.ac.onlineUsers() ?? [], stats: this.running?.ac.stats() };
  }

  /** Where a captive client of a cmcc zone signs in; null when CMCC is not set up. */
  async loginUrl(client: { ip: string; mac: string }, original: string): Promise<string | null> {
    const running = await this.sync(true);
    if (!running) return null;
    const { settings } = running;
    const first = /^https?:\/\//.test(original) && original.length <= 2048 ? original : undefined;
    const built = cmccRedirectUrl({ portalUrl: settings.cmccurl, userIp: client.ip, acName: settings.acname, acIp: settings.wlanacip, userMac: client.mac, ...(first ? { firstUrl: first } : {}) });
    if (built.ok) return built.url;
    // A first URL the redirect cannot carry is dropped rather than losing the sign-in.
    const plain = cmccRedirectUrl({ portalUrl: settings.cmccurl, userIp: client.ip, acName: settings.acname, acIp: settings.wlanacip, userMac: client.mac });
    return plain.ok ? plain.url : null;
  }

  private async authenticate(credentials: CmccCredentials): Promise<CmccAuthResult> {
    const zone = this.deps.zoneFor(credentials.userIp);
    // Only clients of a cmcc zone may be admitted through the portal server.
    if (zone?.zone.externalPortal !== 'cmcc') return { ok: false, reason: 'failed' };
    const result =
      credentials.method === 'chap'
        ? await this.deps.verifyLocalUserChap(credentials.username, (password) => chapMatches(credentials.chapId, password, credentials.challenge, credentials.chapPassword))
        : await this.deps.verifyLocalUser(credentials.username, credentials.password);
    if (!result.ok) {
      // The access controller already reserved this try; a rejection counts it as a guess. An
      // account that cannot be checked by CHAP counts too, so that answer names no account for free.
      const counted = WRONG.has(result.error);
      return { ok: false, reason: counted ? 'rejected' : 'failed', ...(result.error === LOGIN_ERRORS.needPassword ? { textInfo: result.error } : {}) };
    }
    this.proven.set(credentials.userIp, result.grant);
    return { ok: true };
  }

  private async allow(userIp: string, username: string): Promise<void> {
    const grant = this.proven.get(userIp);
    this.proven.delete(userIp);
    const zone = this.deps.zoneFor(userIp);
    const mac = await this.deps.neighbours(userIp);
    if (!grant || !zone || zone.zone.externalPortal !== 'cmcc' || !mac) throw new Error('cmcc: the user cannot be admitted');
    if (this.deps.engine.isBlocked(mac)) throw new Error('cmcc: the device is blocked');
    const outcome = await this.deps.engine.admit({ ip: userIp, mac }, zone.zone, { ...grant, account: grant.account ?? username, kind: 'cmcc' });
    if (!outcome.ok) throw new Error(`cmcc: admission refused (${outcome.error})`);
  }
}

/** The saved section, read through the schema so an old row gets today's defaults. */
export function cmccSettings(read: (entity: string) => unknown): HotspotCmcc {
  return hotspotCmcc.schema.parse(read(hotspotCmcc.name) ?? {});
}
