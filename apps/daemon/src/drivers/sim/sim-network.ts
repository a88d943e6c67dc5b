import { LEASE_MINUTES_DEFAULT } from '@portico/schema';
import type { LeaseRecord, NeighbourRecord, NetworkFacts, ProbeRecord, RouteRecord, WanLine } from '../live-source.js';
import type { SimClient } from './sim-clients.js';
import { valueNoise } from './sim-rhythm.js';

/*
 * The network state of the simulated gateway, derived from the same clients and links its live
 * status shows: every client that came has a DHCP lease, renewed at half its time while it is
 * online and left to run out once it has gone (expired leases stay in the file until the client
 * is forgotten, a day later); online clients are in the neighbour table; routes follow the links.
 */

/** What the simulator's links look like from here. */
export interface SimLinkView {
  ifname: string;
  role: string;
  up: boolean;
  ipaddr: string;
  netmask: string;
  gateway: string;
  mac: string;
}

export interface SimNetworkState {
  /** Brings the simulation to `now()` first. */
  clients(): readonly SimClient[];
  links(): readonly SimLinkView[];
  now(): number;
  seed: number;
}

const LEASE_MS = LEASE_MINUTES_DEFAULT * 60_000;
/** A client gone for less than this still answers as `stale`; a minute after, `failed`. */
const STALE_AFTER_MS = 60_000;
const FAILED_FOR_MS = 5 * 60_000;
/** Base round trips of the two simulated lines, ms. */
const LINE_LATENCY: Record<string, number> = { wan1: 6, wan2: 14 };
const WAN_TABLE_BASE = 100;

/** End of the lease of a client last renewed on its half-lease grid before `at`. */
export function simLeaseExpiry(since: number, at: number): number {
  const half = LEASE_MS / 2;
  const renewed = since + Math.floor(Math.max(0, at - since) / half) * half;
  return renewed + LEASE_MS;
}

/** EUI-64 link-local address of a MAC. */
export function linkLocalOf(mac: string): string {
  const b = mac.split(':').map((h) => Number.parseInt(h, 16));
  const word = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
  return `fe80::${word(b[0]! ^ 0x02, b[1]!)}:${word(b[2]!, 0xff)}:${word(0xfe, b[3]!)}:${word(b[4]!, b[5]!)}`;
}

function prefixOf(netmask: string): number {
  return netmask.split('.').reduce((n, o) => n + (Number(o) >>> 0).toString(2).replace(/0/g, '').length, 0);
}

function networkOf(ip: string, netmask: string): string {
  const octets = ip.split('.').map(Number);
  const mask = netmask.split('.').map(Number);
  return `${octets.map((o, i) => o & (mask[i] ?? 0)).join('.')}/${prefixOf(netmask)}`;
}

/** Upstream routers: a fixed MAC per link, as a real ISP box would keep. */
function gatewayMac(index: number, seed: number): string {
  const tail = ((seed >>> 0) ^ (index * 0x9e3779b1)) >>> 0;
  return ['00', '1e', '73', (tail >>> 16) & 0xff, (tail >>> 8) & 0xff, tail & 0xff]
    .map((v) => (typeof v === 'string' ? v : v.toString(16).padStart(2, '0')))
    .join(':');
}

export function createSimNetwork(state: SimNetworkState): NetworkFacts {
  const wans = () => state.links().filter((l) => l.role === 'wan');
  const lan = () => state.links().find((l) => l.role === 'lan');

  return {
    async leases(): Promise<LeaseRecord[]> {
      const clients = state.clients();
      return clients.map((c) => ({
        // A client that has gone renewed for the last time before it left.
        expires: c.online ? simLeaseExpiry(c.since, state.now()) : simLeaseExpiry(Math.min(c.since, c.lastSeen), c.lastSeen),
        mac: c.mac,
        ip: c.ip,
        hostname: c.hostname,
        clientId: `01:${c.mac}`,
      }));
    },

    async neighbours(): Promise<NeighbourRecord[]> {
      const clients = state.clients();
      const at = state.now();
      const lanDevice = lan()?.ifname ?? 'lan';
      const out: NeighbourRecord[] = [];
      for (const c of clients) {
        const gone = c.online ? 0 : at - c.lastSeen;
        if (!c.online && gone > FAILED_FOR_MS) continue;
        const state4 = c.online ? (c.downRate + c.upRate > 2000 ? 'reachable' : 'stale') : gone < STALE_AFTER_MS ? 'stale' : 'failed';
        out.push({ ip: c.ip, family: '4', device: lanDevice, mac: state4 === 'failed' ? '' : c.mac, state: state4, router: false });
        // Most phones and laptops speak IPv6 as well; gadgets and printers mostly do not.
        if (c.online && ['phone', 'laptop', 'tv', 'console'].includes(c.kind)) {
          out.push({ ip: linkLocalOf(c.mac), family: '6', device: lanDevice, mac: c.mac, state: state4, router: false });
        }
      }
      wans().forEach((link, i) => {
        if (!link.gateway) return;
        const mac = gatewayMac(i + 1, state.seed);
        out.push({ ip: link.gateway, family: '4', device: link.ifname, mac: link.up ? mac : '', state: link.up ? 'reachable' : 'failed', router: false });
        if (link.up) out.push({ ip: linkLocalOf(mac), family: '6', device: link.ifname, mac, state: 'stale', router: true });
      });
      return out;
    },

    async routes(): Promise<RouteRecord[]> {
      const route = (r: Partial<RouteRecord> & Pick<RouteRecord, 'family' | 'destination'>): RouteRecord => ({
        table: 'main',
        type: 'unicast',
        gateway: '',
        device: '',
        protocol: 'static',
        scope: 'global',
        metric: 0,
        source: '',
        nexthops: [],
        ...r,
      });
      const out: RouteRecord[] = [];
      const up = wans().filter((w) => w.up && w.ipaddr);
      if (up.length > 1) {
        out.push(route({ family: '4', destination: 'default', nexthops: up.map((w) => ({ gateway: w.gateway, device: w.ifname, weight: 1 })) }));
      } else if (up[0]) {
        out.push(route({ family: '4', destination: 'default', gateway: up[0].gateway, device: up[0].ifname }));
      }
      for (const link of state.links()) {
        if (!link.up || !link.ipaddr) continue;
        const destination = link.netmask === '255.255.255.255' ? link.gateway : networkOf(link.ipaddr, link.netmask);
        if (destination) {
          out.push(route({ family: '4', destination, device: link.ifname, protocol: 'kernel', scope: 'link', source: link.ipaddr }));
        }
        out.push(route({ family: '6', destination: 'fe80::/64', device: link.ifname, protocol: 'kernel', metric: 256 }));
      }
      wans().forEach((link, i) => {
        if (!link.up || !link.gateway) return;
        const table = String(WAN_TABLE_BASE + i + 1);
        out.push(route({ family: '4', table, destination: 'default', gateway: link.gateway, device: link.ifname }));
      });
      const dhcpWan = wans().find((w) => w.up && w.netmask !== '255.255.255.255');
      if (dhcpWan) {
        out.push(route({ family: '6', destination: 'default', gateway: linkLocalOf(gatewayMac(wans().indexOf(dhcpWan) + 1, state.seed)), device: dhcpWan.ifname, protocol: 'ra', metric: 1024 }));
      }
      return out;
    },

    async probe(device: string, target: string): Promise<ProbeRecord> {
      const link = state.links().find((l) => l.ifname === device);
      const sent = 3;
      if (!link?.up) return { target, sent, received: 0, latency: null };
      const at = state.now();
      const key = [...device].reduce((n, ch) => (n * 31 + ch.charCodeAt(0)) >>> 0, 7);
      const jitter = valueNoise(state.seed, key, at, 90_000);
      // Now and then a probe is lost on a busy line.
      const lost = valueNoise(state.seed, key + 1, at, 20_000) > 0.8 ? 1 : 0;
      const base = LINE_LATENCY[device] ?? 10;
      const latency = Math.round(Math.max(0.5, base * (1 + 0.4 * jitter)) * 100) / 100;
      return { target, sent, received: sent - lost, latency };
    },

    lines(): WanLine[] {
      return wans().map((link, i) => ({ name: link.ifname, device: link.ifname, table: WAN_TABLE_BASE + i + 1, gateway: link.gateway, trackIps: [] }));
    },
  };
}
