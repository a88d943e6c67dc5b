import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';

/** How a test reaches the portal listener: the gateway's LAN address and portal port. */
export const PORTAL_HOST = { host: '192.168.11.1:2050' };

export interface HotspotDaemon {
  h: Harness;
  admin: Client;
  dataplane: SimDataplane;
  portal: FastifyInstance;
}

/**
 * A daemon with the factory LAN as one web-portal zone offering the voucher, local-account and
 * access-password methods (shared password `Shared2025`), ready for portal requests.
 */
export async function startHotspotDaemon(options: Parameters<typeof startDaemon>[0] = {}): Promise<HotspotDaemon> {
  const dataplane = new SimDataplane();
  const h = await startDaemon({ ...options, env: { PORTICO_LAN_PORTS: 'eth1', ...options.env }, deps: { ...options.deps, hotspot: { dataplane } } });
  const admin = await adminClient(h);
  const zone = { action: 'add', name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' };
  expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
  const read = json(await get(h.app, admin, '/api/portal')).data;
  const saved = json(await post(h.app, admin, '/api/portal', { ...read, methods: ['voucher', 'local', 'password'], password: 'Shared2025', logintext: ['Line one', 'Line two'] }));
  expect(saved.success, JSON.stringify(saved)).toBe(true);
  return { h, admin, dataplane, portal: h.app.hotspot.portal };
}

/** A request to the portal listener from a client address. */
export const fromClient = (ip: string) => ({ remoteAddress: ip, headers: PORTAL_HOST });

/** POST /portal-api/login with the terms accepted. */
export async function portalLogin(portal: FastifyInstance, ip: string, body: Record<string, unknown>) {
  return json(await portal.inject({ method: 'POST', url: '/portal-api/login', payload: { ...body, acceptTerms: true }, ...fromClient(ip) }));
}

/**
 * The message key a failed return from an outside sign-in sends the browser to the portal page
 * with (`302 /auth/portal?error=<key>`); null when the reply is not that redirect.
 */
export function portalErrorOf(reply: { statusCode: number; headers: Record<string, unknown> }): string | null {
  const location = reply.headers.location;
  if (reply.statusCode !== 302 || typeof location !== 'string' || !location.startsWith('/auth/portal?')) return null;
  return new URL(location, 'http://portal.invalid').searchParams.get('error');
}

/** Where the portal listener sends a captive client's web request (`path` on another site). */
export async function captiveLocation(portal: FastifyInstance, ip: string, path = '/page'): Promise<string> {
  const reply = await portal.inject({ method: 'GET', url: path, remoteAddress: ip, headers: { host: 'example.com' } });
  expect(reply.statusCode).toBe(302);
  return reply.headers.location as string;
}

/** The browser at an outside portal or provider (a stand-in on loopback): where it is sent back. */
export async function followRedirect(location: string): Promise<string> {
  const res = await fetch(location, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  return res.headers.get('location')!;
}

/** The browser back at the gateway's portal listener with the outside answer. */
export function backAtGateway(portal: FastifyInstance, location: string, ip: string) {
  const url = new URL(location);
  return portal.inject({ method: 'GET', url: `${url.pathname}${url.search}`, ...fromClient(ip) });
}
