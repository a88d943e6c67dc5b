import type { FastifyReply, FastifyRequest } from 'fastify';
import { isIpv4 } from '@portico/schema';
import type { HotspotEngine } from './hotspot-engine.js';
import type { NeighbourLookup } from './hotspot-neighbours.js';
import type { PortalZone } from './hotspot-portal.js';
import { clientIp } from './hotspot-request.js';
import { portalErrorLocation, LOGIN_ERRORS, type ExternalPortal, type LoginFailure } from './hotspot-types.js';

/**
 * What every outside portal's return to the gateway (cloud portal, WeChat, social login) does
 * before its own checks: the client must be in a zone of that portal with the portal set up and
 * be a known neighbour; one already signed in is answered as such, a blocked device refused;
 * then one guess of the device is reserved with the portal's limiter, and released with the
 * outcome the check settles on (a failure unless it says otherwise).
 */

export interface OutsideReturnDeps {
  engine: HotspotEngine;
  zoneFor(ip: string): PortalZone | null;
  neighbours: NeighbourLookup;
}

export interface ReturningClient {
  ip: string;
  mac: string;
  zone: PortalZone;
}

/** How a return's check ends for the guessing limit: `uncounted` once the answer is genuine. */
export interface ReturnGuess {
  outcome: 'failure' | 'success' | 'uncounted';
}

export interface OutsideReturn {
  kind: ExternalPortal;
  /** The portal's settings are complete (and the request names it, where it names one). */
  ready: boolean;
  /** The answer to a client that is signed in already. */
  signedIn(client: ReturningClient): unknown;
  check(client: ReturningClient, guess: ReturnGuess, refuse: (msg: LoginFailure) => FastifyReply): Promise<unknown>;
}

/** The browser back on the portal with the reason, for the portal page to show. */
function refuseTo(reply: FastifyReply): (msg: LoginFailure) => FastifyReply {
  return (msg) => reply.redirect(portalErrorLocation(msg), 302);
}

export async function outsideReturn(deps: OutsideReturnDeps, request: FastifyRequest, reply: FastifyReply, how: OutsideReturn): Promise<unknown> {
  reply.header('cache-control', 'no-store');
  const refuse = refuseTo(reply);
  const ip = clientIp(request);
  const zone = deps.zoneFor(ip);
  if (!zone || zone.zone.externalPortal !== how.kind || !isIpv4(ip) || !how.ready) return refuse(LOGIN_ERRORS.notConfigured);
  const mac = await deps.neighbours(ip);
  if (!mac) return refuse(LOGIN_ERRORS.notConfigured);
  const client = { ip, mac, zone };
  if (deps.engine.session(ip)?.mac === mac) return how.signedIn(client);
  if (deps.engine.isBlocked(mac)) return refuse(LOGIN_ERRORS.blocked);
  const reservation = deps.engine.reserveGuess({ ip, mac });
  if (!reservation.ok) return refuse(LOGIN_ERRORS.tooMany);
  const guess: ReturnGuess = { outcome: 'failure' };
  try {
    return await how.check(client, guess, refuse);
  } finally {
    reservation.release(guess.outcome);
  }
}

/** The portal's success page, carrying the address the client first asked for. */
export function successLocation(zone: PortalZone, portalPort: number, url: string): string {
  return `http://${zone.gateway}:${portalPort}/auth/success${url ? `?url=${encodeURIComponent(url)}` : ''}`;
}
