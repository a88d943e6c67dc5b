import { isIpv4, isIpv6, normalizeMac } from '@portico/schema';
import type { Scheduler } from '../../../config/config-types.js';
import type { WifidogAuthAnswer, WifidogAuthClient, WifidogAuthCode } from './wifidog-client.js';
import { wifidogMessageUrl, wifidogPortalUrl, type WifidogConfig, type WifidogMessage } from './wifidog-redirect.js';

/**
 * The gateway side of WiFiDog as a state machine the hotspot engine drives. A client the auth
 * server has given a token comes back to `/wifidog/auth?token=`; the token is checked with
 * `stage=login` and the client admitted or refused. Then, every check interval, each admitted
 * client's byte counters are reported (`stage=counters`) and the server's answer may take the
 * client off; every keepalive interval a heartbeat tells whether the server is up.
 *
 * The engine owns the data plane: it gives `allow`/`revoke` (open and close a client's
 * access) and `counters` (bytes so far); this file only decides.
 */

export interface WifidogClientAddress {
  ip: string;
  mac: string;
}

export interface WifidogDataPlane {
  allow(client: WifidogClientAddress): Promise<void>;
  revoke(client: WifidogClientAddress): Promise<void>;
  /** Bytes the client received (incoming) and sent (outgoing) since admission; null when it is gone. */
  counters(client: WifidogClientAddress): Promise<{ incoming: number; outgoing: number } | null>;
  /** The gateway's uptime (s), free memory (KiB) and load average for the heartbeat. */
  systemStats(): { sysUptime: number; sysMemfree: number; sysLoad: number };
}

export type WifidogServerState = 'unknown' | 'online' | 'offline';

/** How an admitted client stands: fully, on validation probation, or let in while the server was down. */
export type WifidogAdmission = 'allowed' | 'validation' | 'offline';

export interface WifidogAdmittedClient extends WifidogClientAddress {
  token: string;
  admission: WifidogAdmission;
  admittedAt: number;
  incoming: number;
  outgoing: number;
  /** Counter rounds in a row without traffic. */
  idleRounds: number;
}

/**
 * What became of a client arriving with a token, and where to send its browser: the portal
 * (admitted), a server message page (refused by the server), or nowhere (`invalid`: the
 * request itself was malformed; `unavailable`: the server could not be asked).
 */
export type WifidogArrival =
  | { outcome: 'admitted'; admission: WifidogAdmission; redirect: string }
  | { outcome: 'refused'; code: WifidogAuthCode; redirect: string }
  | { outcome: 'invalid'; field: 'token' | 'ip' | 'mac' }
  | { outcome: 'unavailable'; problem: string };

export interface WifidogGatewayOptions {
  config: WifidogConfig;
  gatewayId: string;
  client: Pick<WifidogAuthClient, 'login' | 'counters' | 'logout' | 'ping'>;
  dataPlane: WifidogDataPlane;
  schedule: Scheduler;
  now: () => number;
  /** Counter reports (WiFiDog's CheckInterval). */
  checkIntervalMs: number;
  /** Heartbeats. */
  keepaliveIntervalMs: number;
  /** Let clients with a token in while the auth server does not answer (checked when it is back). */
  admitWhileServerDown: boolean;
  /** Counter rounds without traffic after which a client is logged out; 0: never. */
  idleRoundsLimit?: number;
  report?: (error: unknown, message: string) => void;
}

// Tokens are issued by the auth server and echoed back in its URLs: URL-safe text only.
const TOKEN = /^[A-Za-z0-9._~-]{1,256}$/;

const REFUSAL_MESSAGE: Partial<Record<WifidogAuthCode, WifidogMessage>> = {
  denied: 'denied',
  validationFailed: 'failed_validation',
  locked: 'locked',
};

/** Answers to counters that end a client's access; `error` keeps it (the server may just be slow). */
const ENDS_ACCESS: ReadonlySet<WifidogAuthCode> = new Set(['denied', 'validationFailed', 'locked']);

export class WifidogGateway {
  private readonly clients = new Map<string, WifidogAdmittedClient>();
  private state: WifidogServerState = 'unknown';
  private startedAt: number;
  private cancels: Array<() => void> = [];
  /** Bumped by start and stop, so a round that ends after a stop does not schedule another. */
  private generation = 0;
  private running = false;

  constructor(private readonly options: WifidogGatewayOptions) {
    this.startedAt = options.now();
  }

  get serverState(): WifidogServerState {
    return this.state;
  }

  admittedClients(): WifidogAdmittedClient[] {
    return [...this.clients.values()].map((c) => ({ ...c }));
  }

  /** Starts the counters loop and the heartbeat; the first heartbeat goes out at once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.generation++;
    this.startedAt = this.options.now();
    this.loop(0, this.options.keepaliveIntervalMs, () => this.heartbeat());
    this.loop(this.options.checkIntervalMs, this.options.checkIntervalMs, () => this.reportCounters());
  }

  stop(): void {
    this.running = false;
    this.generation++;
    for (const cancel of this.cancels.splice(0)) cancel();
  }

  /** A round is scheduled only once the previous one has ended, so two never overlap. */
  private loop(firstMs: number, everyMs: number, round: () => Promise<void>): void {
    const slot = this.cancels.length;
    const generation = this.generation;
    const next = (ms: number): void => {
      this.cancels[slot] = this.options.schedule(ms, () => {
        round()
          .catch((error) => this.options.report?.(error, 'wifidog round failed'))
          .finally(() => {
            if (this.generation === generation) next(everyMs);
          });
      });
    };
    next(firstMs);
  }

  /** A client back from the auth server at `/wifidog/auth?token=`. */
  async arrive(request: { ip: string; mac: string; token: string }): Promise<WifidogArrival> {
    if (!TOKEN.test(request.token)) return { outcome: 'invalid', field: 'token' };
    if (!isIpv4(request.ip) && !isIpv6(request.ip)) return { outcome: 'invalid', field: 'ip' };
    const mac = normalizeMac(request.mac);
    if (mac === null) return { outcome: 'invalid', field: 'mac' };
    const address = { ip: request.ip, mac };

    const answer = await this.options.client.login({ ...address, token: request.token, incoming: 0, outgoing: 0 });
    if (answer.code === 'error') {
      this.noteServerTrouble(answer);
      // Only a server that does not answer at all lets clients in on trust; one that answers
      // wrongly is a fault, and admitting on it would grant access on garbage.
      if (answer.unreachable && this.options.admitWhileServerDown) return this.admit(address, request.token, 'offline');
      return { outcome: 'unavailable', problem: answer.problem ?? 'Auth: -1' };
    }
    this.setState('online');
    if (answer.code === 'allowed') return this.admit(address, request.token, 'allowed');
    if (answer.code === 'validation') return this.admit(address, request.token, 'validation');
    await this.removeClient(mac);
    return { outcome: 'refused', code: answer.code, redirect: wifidogMessageUrl(this.options.config, REFUSAL_MESSAGE[answer.code]!) };
  }

  private async admit(address: WifidogClientAddress, token: string, admission: WifidogAdmission): Promise<WifidogArrival> {
    const previous = this.clients.get(address.mac);
    // The same device back on another address: its old address must not stay open.
    if (previous && previous.ip !== address.ip) await this.options.dataPlane.revoke(previous);
    await this.options.dataPlane.allow(address);
    this.clients.set(address.mac, {
      ...address,
      token,
      admission,
      admittedAt: this.options.now(),
      incoming: 0,
      outgoing: 0,
      idleRounds: 0,
    });
    const redirect =
      admission === 'validation'
        ? wifidogMessageUrl(this.options.config, 'activate')
        : wifidogPortalUrl(this.options.config, this.options.gatewayId);
    return { outcome: 'admitted', admission, redirect };
  }

  /** Signs a client out at the server and closes its access; false when it was not admitted. */
  async logout(mac: string): Promise<boolean> {
    const key = normalizeMac(mac);
    const client = key === null ? undefined : this.clients.get(key);
    if (!client) return false;
    const counters = await this.readCounters(client);
    await this.removeClient(client.mac);
    const answer = await this.options.client.logout({ ...client, ...(counters ?? {}) });
    if (answer.code === 'error') this.noteServerTrouble(answer);
    return true;
  }

  /** One counters round over every admitted client. */
  async reportCounters(): Promise<void> {
    const limit = this.options.idleRoundsLimit ?? 0;
    for (const client of [...this.clients.values()]) {
      const counters = await this.readCounters(client);
      // Logged out or replaced while this round awaited: that entry is no longer ours to judge.
      if (this.clients.get(client.mac) !== client) continue;
      if (counters === null) {
        await this.removeClient(client.mac);
        continue;
      }
      const moved = counters.incoming !== client.incoming || counters.outgoing !== client.outgoing;
      client.idleRounds = moved ? 0 : client.idleRounds + 1;
      client.incoming = counters.incoming;
      client.outgoing = counters.outgoing;
      if (limit > 0 && client.idleRounds >= limit) {
        await this.logout(client.mac);
        continue;
      }
      const answer = await this.options.client.counters(client);
      if (this.clients.get(client.mac) !== client) continue;
      if (answer.code === 'error') {
        this.noteServerTrouble(answer);
        continue;
      }
      this.setState('online');
      if (ENDS_ACCESS.has(answer.code)) await this.removeClient(client.mac);
      else if (answer.code === 'allowed') client.admission = 'allowed';
    }
  }

  /** One heartbeat: the server's state follows its answer. */
  async heartbeat(): Promise<void> {
    const stats = this.options.dataPlane.systemStats();
    const result = await this.options.client.ping({
      ...stats,
      wifidogUptime: Math.max(0, Math.floor((this.options.now() - this.startedAt) / 1000)),
    });
    this.setState(result.online ? 'online' : 'offline', result.problem);
  }

  private noteServerTrouble(answer: WifidogAuthAnswer): void {
    // An `Auth: -1` or a malformed answer still came from a running server; only silence means down.
    if (answer.unreachable) this.setState('offline', answer.problem);
  }

  private setState(state: WifidogServerState, problem?: string): void {
    if (state === 'offline' && this.state !== 'offline') {
      this.options.report?.(new Error(problem ?? 'no Pong'), 'wifidog auth server offline');
    }
    this.state = state;
  }

  private async readCounters(client: WifidogAdmittedClient): Promise<{ incoming: number; outgoing: number } | null> {
    try {
      return await this.options.dataPlane.counters(client);
    } catch (error) {
      this.options.report?.(error, 'wifidog counters unreadable');
      return { incoming: client.incoming, outgoing: client.outgoing };
    }
  }

  private async removeClient(mac: string): Promise<void> {
    const client = this.clients.get(mac);
    if (!client) return;
    this.clients.delete(mac);
    await this.options.dataPlane.revoke(client);
  }
}
