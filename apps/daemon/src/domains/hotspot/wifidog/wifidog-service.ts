import { freemem, loadavg, uptime } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hotspotWifidog, type HotspotWifidog } from '@portico/schema';
import type { Scheduler } from '../../../config/config-types.js';
import type { HotspotEngine } from '../hotspot-engine.js';
import type { NeighbourLookup } from '../hotspot-neighbours.js';
import type { PortalZone } from '../hotspot-portal.js';
import { portalErrorLocation, LOGIN_ERRORS, type LoginFailure } from '../hotspot-types.js';
import { WifidogAuthClient } from './wifidog-client.js';
import { WifidogGateway, type WifidogDataPlane } from './wifidog-gateway.js';
import { parseWifidogSection, wifidogLoginUrl, WifidogConfigError, type WifidogConfig } from './wifidog-redirect.js';
import { clientIp } from '../hotspot-request.js';

/**
 * WiFiDog in the daemon: the one gateway of the saved `auth/wifidog` section, serving every
 * zone of auth model wifidog. Captive clients of those zones are sent to the auth server's
 * login; `/wifidog/auth?token=` on the portal listener (gw_address:gw_port) is where the server
 * sends them back. Admission and removal go through the hotspot engine, so a WiFiDog client is
 * an ordinary session (online list, kick, idle and time limits); the counters the server is
 * told are the engine's.
 */

export interface WifidogServiceDeps {
  engine: HotspotEngine;
  /** The saved section (schema defaults when never saved). */
  settings(): HotspotWifidog;
  zoneFor(ip: string): PortalZone | null;
  neighbours: NeighbourLookup;
  portalPort: number;
  schedule: Scheduler;
  now: () => number;
  report: (error: unknown, what: string) => void;
}

interface Running {
  key: string;
  config: WifidogConfig;
  gatewayId: string;
  gateway: WifidogGateway;
}


export class WifidogService {
  private running: Running | null = null;
  /** Whether any enabled zone signs in by WiFiDog; the gateway runs (heartbeats) only then. */
  private wanted = false;

  constructor(private readonly deps: WifidogServiceDeps) {}

  /** The running gateway, started, restarted or stopped to match the saved section and zones. */
  sync(inUse: boolean): Running | null {
    this.wanted = inUse;
    const section = this.deps.settings();
    let config: WifidogConfig | null = null;
    if (inUse && section.server !== '') {
      try {
        config = parseWifidogSection(section);
      } catch (error) {
        if (!(error instanceof WifidogConfigError)) throw error;
        this.deps.report(error, 'wifidog section unusable');
      }
    }
    const key = config ? JSON.stringify([config, section.gw_id, section.checkinterval, section.clienttimeout]) : '';
    if (this.running?.key === key) return this.running;
    this.running?.gateway.stop();
    this.running = config ? this.start(key, config, section) : null;
    return this.running;
  }

  stop(): void {
    this.running?.gateway.stop();
    this.running = null;
  }

  /** Admitted clients and the server's state, for tests and the status of the service. */
  state() {
    return { serverState: this.running?.gateway.serverState ?? 'unknown', clients: this.running?.gateway.admittedClients() ?? [], wanted: this.wanted };
  }

  /** One counters round now (the loop runs it every check interval). */
  async reportCounters(): Promise<void> {
    await this.running?.gateway.reportCounters();
  }

  private start(key: string, config: WifidogConfig, section: HotspotWifidog): Running {
    const { engine } = this.deps;
    const dataPlane: WifidogDataPlane = {
      allow: async (client) => {
        const zone = this.deps.zoneFor(client.ip);
        if (!zone || zone.zone.externalPortal !== 'wifidog') throw new Error('wifidog: the client is not in a wifidog zone');
        const outcome = await engine.admitExternal(client, zone.zone, 'wifidog');
        if (!outcome.ok) throw new Error(`wifidog: admission refused (${outcome.error})`);
      },
      revoke: async (client) => {
        const session = engine.session(client.ip);
        if (session?.mac === client.mac && session.kind === 'wifidog') await engine.kick(client.ip, 'logout');
      },
      counters: async (client) => {
        const session = engine.session(client.ip);
        // Ended by the engine (time, idle, an administrator): the gateway forgets the client.
        if (!session || session.mac !== client.mac || session.kind !== 'wifidog') return null;
        // WiFiDog's incoming is what reached the client, outgoing what it sent.
        return { incoming: session.bytesDown, outgoing: session.bytesUp };
      },
      systemStats: () => ({ sysUptime: Math.floor(uptime()), sysMemfree: Math.floor(freemem() / 1024), sysLoad: loadavg()[0] ?? 0 }),
    };
    const gateway = new WifidogGateway({
      config,
      gatewayId: section.gw_id,
      client: new WifidogAuthClient({ config, gatewayId: section.gw_id }),
      dataPlane,
      schedule: this.deps.schedule,
      now: this.deps.now,
      checkIntervalMs: section.checkinterval * 1000,
      keepaliveIntervalMs: section.checkinterval * 1000,
      admitWhileServerDown: false,
      idleRoundsLimit: section.clienttimeout,
      report: this.deps.report,
    });
    gateway.start();
    return { key, config, gatewayId: section.gw_id, gateway };
  }

  /** Where a captive client of a wifidog zone signs in; null when WiFiDog is not set up. */
  loginUrl(zone: PortalZone, client: { ip: string; mac: string }, original: string): string | null {
    const running = this.sync(true);
    if (!running) return null;
    return wifidogLoginUrl(running.config, { id: running.gatewayId, address: zone.gateway, port: this.deps.portalPort }, { ...client, url: original });
  }

  /** GET /wifidog/auth?token= on the portal listener: the client back from the auth server. */
  register(portal: FastifyInstance): void {
    portal.get('/wifidog/auth', async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('cache-control', 'no-store');
      // A return that admits nothing sends the browser to the portal page with the reason.
      const refuse = (msg: LoginFailure) => reply.redirect(portalErrorLocation(msg), 302);
      const ip = clientIp(request);
      const zone = this.deps.zoneFor(ip);
      const running = zone?.zone.externalPortal === 'wifidog' ? this.sync(true) : null;
      if (!zone || !running) return refuse(LOGIN_ERRORS.notConfigured);
      const mac = await this.deps.neighbours(ip);
      if (!mac) return refuse(LOGIN_ERRORS.authFailed);
      if (this.deps.engine.isBlocked(mac)) return refuse(LOGIN_ERRORS.blocked);
      const token = (request.query as Record<string, unknown>).token;
      let arrival;
      try {
        arrival = await running.gateway.arrive({ ip, mac, token: typeof token === 'string' ? token : '' });
      } catch (error) {
        // The engine refused the admission (a data-plane failure): the client stays out.
        this.deps.report(error, 'wifidog admission failed');
        return refuse(LOGIN_ERRORS.system);
      }
      if (arrival.outcome === 'admitted' || arrival.outcome === 'refused') return reply.redirect(arrival.redirect, 302);
      return refuse(LOGIN_ERRORS.authFailed);
    });
  }
}

/** The saved section, read through the schema so an old row gets today's defaults. */
export function wifidogSettings(read: (entity: string) => unknown): HotspotWifidog {
  return hotspotWifidog.schema.parse(read(hotspotWifidog.name) ?? {});
}
