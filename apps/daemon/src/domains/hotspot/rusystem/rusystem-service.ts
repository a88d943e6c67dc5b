import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hotspotRusystem, isIpv4, type HotspotRusystem } from '@portico/schema';
import type { CredentialResult, HotspotEngine } from '../hotspot-engine.js';
import type { NeighbourLookup } from '../hotspot-neighbours.js';
import type { PortalZone } from '../hotspot-portal.js';
import { portalErrorLocation, LOGIN_ERRORS, type LoginFailure } from '../hotspot-types.js';
import { newUamChallenge, uamChapMatches, uamDecodePap, uamMac, uamNotYetUrl, uamServerUrl, type UamGateway } from './rusystem-uam.js';
import { clientIp, queryText } from '../hotspot-request.js';

/**
 * The RU system (UAM, CoovaChilli style) in the daemon, for zones of auth model `rusystem`:
 * captive clients are sent to authurl with a fresh challenge (rusystem-uam.ts); the UAM server
 * sends the browser back to `/logon` on the portal listener (the uamip:uamport it was given),
 * where the credentials are checked against the local users under the portal's guessing limit:
 * a PAP password (decoded with the challenge and uamsecret) against its hash, a CHAP response
 * against the password the account keeps sealed. The browser then goes back to authurl with
 * `res=success|failed|already`. `/logoff` signs the client out (`res=logoff`).
 *
 * A challenge answers one logon, for CHALLENGE_MS, from the address and MAC it was issued to.
 */

export const CHALLENGE_MS = 300_000;
/** Outstanding challenges kept at most; the oldest go first. */
const MAX_CHALLENGES = 10_000;

export interface RusystemDeps {
  engine: HotspotEngine;
  settings(): HotspotRusystem;
  zoneFor(ip: string): PortalZone | null;
  neighbours: NeighbourLookup;
  verifyLocalUser(username: string, password: string): Promise<CredentialResult>;
  /** A CHAP logon's check: `matches` tells whether a password gives the response. */
  verifyLocalUserChap(username: string, matches: (password: string) => boolean): Promise<CredentialResult>;
  portalPort: number;
  now: () => number;
  report: (error: unknown, what: string) => void;
}

interface Issued {
  challenge: Buffer;
  mac: string;
  expiresAt: number;
  sessionid: string;
}

/** Refusals counted as wrong guesses; an account CHAP cannot check counts too, so that answer is no free probe of names. */
const WRONG_SECRET: ReadonlySet<LoginFailure> = new Set([LOGIN_ERRORS.userOrPassword, LOGIN_ERRORS.password, LOGIN_ERRORS.needPassword]);

export class RusystemService {
  private readonly issued = new Map<string, Issued>();

  constructor(private readonly deps: RusystemDeps) {}

  private gateway(zone: PortalZone, settings: HotspotRusystem): UamGateway {
    return { uamip: zone.gateway, uamport: this.deps.portalPort, nasid: settings.nasid };
  }

  private issue(ip: string, mac: string): Issued {
    if (this.issued.size >= MAX_CHALLENGES) this.issued.delete(this.issued.keys().next().value!);
    const entry: Issued = { challenge: newUamChallenge(), mac, expiresAt: this.deps.now() + CHALLENGE_MS, sessionid: newUamChallenge().toString('hex').slice(0, 16) };
    this.issued.delete(ip);
    this.issued.set(ip, entry);
    return entry;
  }

  /** Where a captive client of a rusystem zone signs in; null when the section has no authurl. */
  loginUrl(zone: PortalZone, client: { ip: string; mac: string }, original: string): string | null {
    const settings = this.deps.settings();
    if (settings.authurl === '') return null;
    const issued = this.issue(client.ip, client.mac);
    return uamNotYetUrl(settings.authurl, settings.uamsecret, this.gateway(zone, settings), { ...client, sessionid: issued.sessionid }, issued.challenge, original.length <= 2048 ? original : '');
  }

  private result(zone: PortalZone, settings: HotspotRusystem, client: { ip: string; mac: string }, res: 'success' | 'failed' | 'already' | 'logoff', userurl: string, reply?: LoginFailure): string {
    const gateway = this.gateway(zone, settings);
    const pairs: Array<readonly [string, string | number]> = [
      ['res', res],
      ['uamip', gateway.uamip],
      ['uamport', gateway.uamport],
      ['mac', uamMac(client.mac)],
      ['ip', client.ip],
      ['nasid', gateway.nasid],
    ];
    if (res === 'failed') {
      // A fresh challenge for the next try, as CoovaChilli sends.
      const issued = this.issue(client.ip, client.mac);
      pairs.push(['challenge', issued.challenge.toString('hex')], ['sessionid', issued.sessionid]);
      // The reason as a stable message key the UAM server can translate.
      if (reply) pairs.push(['reply', reply]);
    }
    pairs.push(['userurl', userurl]);
    if (res === 'success' && settings.redirect_url !== '') pairs.push(['redirurl', settings.redirect_url]);
    return uamServerUrl(settings.authurl, pairs, settings.uamsecret);
  }

  register(portal: FastifyInstance): void {
    const who = async (request: FastifyRequest) => {
      const ip = clientIp(request);
      const zone = this.deps.zoneFor(ip);
      if (!zone || zone.zone.externalPortal !== 'rusystem' || !isIpv4(ip)) return null;
      const mac = await this.deps.neighbours(ip);
      return mac ? { ip, mac, zone } : null;
    };
    // Reached by the guest's browser: a client of no RU system zone is sent to the portal page.
    const notHere = (reply: FastifyReply) => reply.redirect(portalErrorLocation(LOGIN_ERRORS.notConfigured), 302);

    portal.get('/logon', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const client = await who(request);
      const settings = this.deps.settings();
      if (!client || settings.authurl === '') return notHere(reply);
      const { zone } = client;
      const userurl = queryText(request, 'userurl', 2048);
      const back = (res: 'success' | 'failed' | 'already', error?: LoginFailure) => reply.redirect(this.result(zone, settings, client, res, userurl, error), 302);
      if (this.deps.engine.session(client.ip)) return back('already');
      if (this.deps.engine.isBlocked(client.mac)) return back('failed', LOGIN_ERRORS.blocked);
      // The challenge is spent by this logon whatever its outcome.
      const issued = this.issued.get(client.ip);
      this.issued.delete(client.ip);
      if (!issued || issued.mac !== client.mac || issued.expiresAt <= this.deps.now()) return back('failed', LOGIN_ERRORS.authFailed);
      const username = queryText(request, 'username', 64);
      const encoded = queryText(request, 'password', 256);
      // CHAP when the UAM server sent `response=` instead of a password (hotspotlogin.cgi's choice).
      const response = encoded === '' ? queryText(request, 'response', 64) : '';
      if (username === '' || (encoded === '' && response === '')) return back('failed', LOGIN_ERRORS.userOrPassword);
      const reservation = this.deps.engine.reserveGuess(client);
      if (!reservation.ok) return back('failed', LOGIN_ERRORS.tooMany);
      let outcome: 'failure' | 'success' | 'uncounted' = 'uncounted';
      try {
        const password = response === '' ? uamDecodePap(encoded, issued.challenge, settings.uamsecret) : null;
        if (response === '' && password === null) {
          outcome = 'failure';
          return back('failed', LOGIN_ERRORS.userOrPassword);
        }
        let checked: CredentialResult;
        try {
          checked =
            password === null
              ? await this.deps.verifyLocalUserChap(username, (candidate) => uamChapMatches(response, candidate, issued.challenge, settings.uamsecret))
              : await this.deps.verifyLocalUser(username, password);
        } catch (error) {
          this.deps.report(error, 'rusystem credential check failed');
          return back('failed', LOGIN_ERRORS.system);
        }
        if (!checked.ok) {
          if (WRONG_SECRET.has(checked.error)) outcome = 'failure';
          return back('failed', checked.error);
        }
        outcome = 'success';
        const admitted = await this.deps.engine.admit({ ip: client.ip, mac: client.mac }, zone.zone, { ...checked.grant, kind: 'rusystem' });
        return admitted.ok ? back('success') : back('failed', admitted.error);
      } finally {
        reservation.release(outcome);
      }
    });

    portal.get('/logoff', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const client = await who(request);
      const settings = this.deps.settings();
      if (!client || settings.authurl === '') return notHere(reply);
      if (this.deps.engine.session(client.ip)?.kind === 'rusystem') await this.deps.engine.kick(client.ip, 'logout');
      return reply.redirect(this.result(client.zone, settings, client, 'logoff', ''), 302);
    });
  }
}

export function rusystemSettings(read: (entity: string) => unknown): HotspotRusystem {
  return hotspotRusystem.schema.parse(read(hotspotRusystem.name) ?? {});
}
