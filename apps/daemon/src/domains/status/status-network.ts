import {
  CHART_RANGE_STEPS,
  intToIpv4,
  ipv4ToInt,
  isIpv4,
  LINE_MONITOR_REFRESH_MS,
  netmaskToPrefix,
  type ArpInfo,
  type ArpInfoQuery,
  type ChartRange,
  type DhcpLease,
  type DhcpLeaseList,
  type DhcpLeaseQuery,
  type LineDetails,
  type LineMonitoring,
  type LineStatus,
  type Monitoring,
  type Neighbour,
  type NeighbourState,
  type Netif,
  type ProbeResult,
  type SystemRoute,
  type SystemRouteList,
  type SystemRouteQuery,
  NEIGHBOUR_STATES,
} from '@portico/schema';
import type { LeaseRecord, LiveStatusSource, NetworkFacts, ProbeRecord, WanLine } from '../../drivers/live-source.js';
import type { NetworkConfig } from '../network/network-public.js';
import { planNetwork, type NetworkPlan } from '../network/network-public.js';
import { TrafficHistory } from './status-traffic-history.js';

/*
 * The network status pages (spec §2 /sysstatus): DHCP leases, neighbours, system routes,
 * per-interface traffic and WAN line monitoring. The driver's facts (lease file, neighbour
 * table, routing tables, probes) are combined here with the configuration: the DHCP pools,
 * the ARP bindings and the WANs with their policy tables.
 */

export interface NetworkStatusOptions {
  facts: NetworkFacts;
  live: LiveStatusSource;
  /** The current network configuration. */
  config: () => NetworkConfig;
  now: () => number;
}

interface Pool {
  interface: string;
  first: number;
  last: number;
  /** Network holding the pool (static hosts get addresses outside the pool but inside it). */
  netFirst: number;
  netLast: number;
  leaseMinutes: number;
}

/** Neighbour states in which an address is known to be in use by a host. */
const IN_USE_STATES: ReadonlySet<string> = new Set(['reachable', 'stale', 'delay', 'probe', 'permanent']);
/** Probe rounds are kept this long, so one refresh of every open page shares one round. */
const PROBE_REUSE_MS = LINE_MONITOR_REFRESH_MS - 500;
/** The kernel's own table of local and broadcast addresses is not a route anyone configures. */
const HIDDEN_TABLES: ReadonlySet<string> = new Set(['local']);

function networkRange(address: string, netmask: string): { first: number; last: number } | null {
  if (!isIpv4(address)) return null;
  const prefix = /^\d{1,2}$/.test(netmask) ? Number(netmask) : netmaskToPrefix(netmask);
  if (prefix === null || prefix < 0 || prefix > 32) return null;
  const size = 2 ** (32 - prefix);
  const first = Math.floor(ipv4ToInt(address) / size) * size;
  return { first, last: first + size - 1 };
}

/** The address pools of the enabled DHCP servers, on the networks of their interfaces. */
export function dhcpPools(config: NetworkConfig, plan: NetworkPlan | null): Pool[] {
  const pools: Pool[] = [];
  for (const server of config.dhcpServers) {
    if (!server.enabled || !isIpv4(server.start)) continue;
    const side = plan?.lanSides.find((s) => s.name === server.interface);
    const net = side ? { first: side.address.first, last: side.address.last } : networkRange(server.start, server.netmask);
    if (!net) continue;
    const first = ipv4ToInt(server.start);
    // The broadcast address is never handed out; pool_size 0 runs to the end of the network.
    const end = net.last - 1;
    const last = server.pool_size > 0 ? Math.min(first + server.pool_size - 1, end) : end;
    if (last < first) continue;
    pools.push({ interface: server.interface, first, last, netFirst: net.first, netLast: net.last, leaseMinutes: server.lease_minutes });
  }
  return pools;
}

function page<T>(items: readonly T[], pageNo: number, size: number): T[] {
  return items.slice((pageNo - 1) * size, pageNo * size);
}

const matches = (q: string, ...texts: string[]) => q === '' || texts.some((t) => t.toLowerCase().includes(q));

function ipOrder(a: string, b: string): number {
  if (isIpv4(a) && isIpv4(b)) return ipv4ToInt(a) - ipv4ToInt(b);
  return a.localeCompare(b);
}

function tableOrder(a: string, b: string): number {
  const rank = (t: string) => (t === 'main' ? 0 : /^\d+$/.test(t) ? 1 : 2);
  return rank(a) - rank(b) || (rank(a) === 1 ? Number(a) - Number(b) : a.localeCompare(b));
}

export class NetworkStatus {
  private readonly traffic = new TrafficHistory();
  private probes: { at: number; results: Map<string, ProbeRecord[]> } | null = null;
  private probing: Promise<Map<string, ProbeRecord[]>> | null = null;

  constructor(private readonly options: NetworkStatusOptions) {}

  private plan(config: NetworkConfig): NetworkPlan | null {
    try {
      return planNetwork(config);
    } catch {
      // A configuration the planner cannot follow has no pools or tables to show.
      return null;
    }
  }

  /** Records every interface's current rates; the monitoring charts are made of these. */
  sampleTraffic(): void {
    const at = this.options.now();
    for (const netif of this.options.live.netif().items) this.traffic.record(netif.ifname, at, netif.rx_rate, netif.tx_rate);
  }

  async dhcpLeases(query: DhcpLeaseQuery): Promise<DhcpLeaseList> {
    const now = this.options.now();
    const config = this.options.config();
    const pools = dhcpPools(config, this.plan(config));
    const [leases, neighbours] = await Promise.all([this.options.facts.leases(), this.options.facts.neighbours()]);
    const poolOf = (n: number) => pools.find((p) => n >= p.first && n <= p.last);
    const networkOf = (n: number) => poolOf(n) ?? pools.find((p) => n >= p.netFirst && n <= p.netLast);

    // One record per address: the one that ends last (an active one over an expired one).
    const byIp = new Map<number, LeaseRecord>();
    const isActive = (l: LeaseRecord) => l.expires === 0 || l.expires > now;
    for (const lease of leases) {
      if (!isIpv4(lease.ip)) continue;
      const n = ipv4ToInt(lease.ip);
      const held = byIp.get(n);
      const later = (l: LeaseRecord) => (l.expires === 0 ? Infinity : l.expires);
      if (!held || later(lease) > later(held)) byIp.set(n, lease);
    }

    const entries = new Map<number, DhcpLease>();
    for (const [n, lease] of byIp) {
      const pool = networkOf(n);
      const active = isActive(lease);
      entries.set(n, {
        ip: lease.ip,
        mac: lease.mac,
        hostname: lease.hostname,
        interface: pool?.interface ?? '',
        start: lease.expires > 0 && pool ? Math.max(0, lease.expires - pool.leaseMinutes * 60_000) : null,
        end: lease.expires > 0 ? lease.expires : null,
        status: active ? 'active' : 'abandoned',
        reason: active ? null : 'expired',
      });
    }
    // A pool address a host answers on without holding a lease: the server must not hand it out.
    const ownAddresses = new Set(pools.flatMap((p) => [p.netFirst, p.netLast]));
    for (const neighbour of neighbours) {
      if (neighbour.family !== '4' || !neighbour.mac || !IN_USE_STATES.has(neighbour.state) || !isIpv4(neighbour.ip)) continue;
      const n = ipv4ToInt(neighbour.ip);
      const pool = poolOf(n);
      if (!pool || entries.has(n) || ownAddresses.has(n)) continue;
      entries.set(n, {
        ip: neighbour.ip,
        mac: neighbour.mac,
        hostname: '',
        interface: pool.interface,
        start: null,
        end: null,
        status: 'abandoned',
        reason: 'conflict',
      });
    }

    const counts = { active: 0, abandoned: 0, free: 0 };
    for (const entry of entries.values()) counts[entry.status] += 1;
    const addresses = new Set<number>(entries.keys());
    for (const pool of pools) {
      for (let n = pool.first; n <= pool.last; n += 1) {
        if (!addresses.has(n)) {
          addresses.add(n);
          counts.free += 1;
        }
      }
    }

    const q = query.q.trim().toLowerCase();
    const selected = [...addresses]
      .sort((a, b) => a - b)
      .filter((n) => {
        const entry = entries.get(n);
        const status = entry?.status ?? 'free';
        if (query.status !== 'all' && status !== query.status) return false;
        return entry ? matches(q, entry.ip, entry.mac, entry.hostname) : matches(q, intToIpv4(n));
      });
    const items = page(selected, query.page, query.page_size).map(
      (n): DhcpLease =>
        entries.get(n) ?? {
          ip: intToIpv4(n),
          mac: '',
          hostname: '',
          interface: poolOf(n)?.interface ?? '',
          start: null,
          end: null,
          status: 'free',
          reason: null,
        },
    );
    return {
      items,
      total: selected.length,
      page: query.page,
      page_size: query.page_size,
      counts,
      pools: pools.map((p) => ({
        interface: p.interface,
        first: intToIpv4(p.first),
        last: intToIpv4(p.last),
        size: p.last - p.first + 1,
        lease_minutes: p.leaseMinutes,
      })),
    };
  }

  /** The neighbour table with host names and ARP binding matches. */
  private async neighbourRows(): Promise<Neighbour[]> {
    const config = this.options.config();
    const [neighbours, leases] = await Promise.all([this.options.facts.neighbours(), this.options.facts.leases()]);
    const bindings = new Map(config.arpBinds.map((b) => [b.ip, b.mac.toLowerCase()]));
    const names = new Map(leases.filter((l) => l.hostname).map((l) => [l.mac, l.hostname]));
    return neighbours.map((n) => {
      const bound = n.family === '4' ? bindings.get(n.ip) : undefined;
      return {
        ip: n.ip,
        family: n.family,
        interface: n.device,
        mac: n.mac,
        state: (NEIGHBOUR_STATES as readonly string[]).includes(n.state) ? (n.state as NeighbourState) : 'none',
        router: n.router,
        binding: bound === undefined ? 'none' : bound === n.mac ? 'bound' : 'mismatch',
        hostname: n.mac ? (names.get(n.mac) ?? '') : '',
      };
    });
  }

  /** The ARP list (spec §7 `arplist`): every resolved IPv4 neighbour, what an ARP binding is made from. */
  async arpList(): Promise<{ items: Neighbour[]; total: number }> {
    const items = (await this.neighbourRows())
      .filter((n) => n.family === '4' && n.mac !== '')
      .sort((a, b) => a.interface.localeCompare(b.interface) || ipOrder(a.ip, b.ip));
    return { items, total: items.length };
  }

  async arpInfo(query: ArpInfoQuery): Promise<ArpInfo> {
    const all = await this.neighbourRows();
    const q = query.q.trim().toLowerCase();
    const selected = all
      .filter((n) => (query.family === 'all' || n.family === query.family) && (query.interface === '' || n.interface === query.interface))
      .filter((n) => matches(q, n.ip, n.mac, n.hostname))
      .sort((a, b) => a.family.localeCompare(b.family) || a.interface.localeCompare(b.interface) || ipOrder(a.ip, b.ip));
    return {
      items: page(selected, query.page, query.page_size),
      total: selected.length,
      page: query.page,
      page_size: query.page_size,
      interfaces: [...new Set(all.map((n) => n.interface))].sort(),
    };
  }

  async systemRoutes(query: SystemRouteQuery): Promise<SystemRouteList> {
    const config = this.options.config();
    const plan = this.plan(config);
    const simulated = this.options.facts.lines?.();
    const wanOfTable = new Map<string, string>(
      (simulated ?? plan?.wans.map((w) => ({ name: w.name, table: w.table })) ?? []).map((w) => [String(w.table), w.name]),
    );
    const records = await this.options.facts.routes();
    if (simulated) {
      // A simulated device carries the static routes of its configuration as a real one would.
      for (const r of config.staticRoutes) {
        if (!r.enabled) continue;
        records.push({
          family: '4',
          table: 'main',
          type: 'unicast',
          destination: r.target === '0.0.0.0/0' ? 'default' : r.target,
          gateway: r.gateway,
          device: plan?.deviceOf.get(r.interface) ?? r.interface,
          protocol: 'static',
          scope: r.gateway ? 'global' : 'link',
          metric: r.metric,
          source: '',
          nexthops: [],
        });
      }
    }
    const all: SystemRoute[] = records
      .filter((r) => !HIDDEN_TABLES.has(r.table))
      .map((r) => ({
        family: r.family,
        table: r.table,
        wan: wanOfTable.get(r.table) ?? '',
        type: r.type,
        destination: r.destination,
        gateway: r.gateway,
        interface: r.device,
        protocol: r.protocol,
        scope: r.scope,
        metric: r.metric,
        source: r.source,
        nexthops: r.nexthops.map((h) => ({ gateway: h.gateway, interface: h.device, weight: h.weight })),
      }));
    const items = all
      .filter((r) => (query.family === 'all' || r.family === query.family) && (query.table === '' || r.table === query.table))
      .sort(
        (a, b) =>
          tableOrder(a.table, b.table) ||
          a.family.localeCompare(b.family) ||
          Number(b.destination === 'default') - Number(a.destination === 'default') ||
          a.metric - b.metric ||
          ipOrder(a.destination, b.destination),
      );
    return { items, total: items.length, tables: [...new Set(all.map((r) => r.table))].sort(tableOrder) };
  }

  monitoring(range: ChartRange): Monitoring {
    const now = this.options.now();
    const interfaces = this.options.live.netif().items.map((n) => ({
      ifname: n.ifname,
      role: n.role,
      status: n.status,
      rx_bytes: n.rx_bytes,
      tx_bytes: n.tx_bytes,
      rx_rate: n.rx_rate,
      tx_rate: n.tx_rate,
      points: this.traffic.series(n.ifname, range, now),
    }));
    return { range, step: CHART_RANGE_STEPS[range], interfaces };
  }

  /** The WAN lines: a simulated device's own, else the configured WANs, else the links holding a default route. */
  private lines(netifs: readonly Netif[]): WanLine[] {
    const simulated = this.options.facts.lines?.();
    if (simulated) return simulated;
    const plan = this.plan(this.options.config());
    if (plan && plan.wans.length > 0) {
      return plan.wans.map((w) => ({
        name: w.name,
        device: w.l3,
        table: plan.multiWan ? w.table : 0,
        gateway: w.gateway ?? '',
        trackIps: w.trackIps,
      }));
    }
    return netifs.filter((n) => n.role === 'wan').map((n) => ({ name: n.ifname, device: n.ifname, table: 0, gateway: n.gateway, trackIps: [] }));
  }

  private targetsOf(line: WanLine, netif: Netif | undefined): string[] {
    if (line.trackIps.length > 0) return line.trackIps;
    const gateway = line.gateway || netif?.gateway || '';
    return gateway ? [gateway] : [];
  }

  /** One probe round for every line whose link is up; concurrent callers share the round. */
  private async probeRound(lines: readonly WanLine[], netifs: readonly Netif[]): Promise<Map<string, ProbeRecord[]>> {
    const now = this.options.now();
    if (this.probes && now - this.probes.at < PROBE_REUSE_MS && now >= this.probes.at) return this.probes.results;
    if (this.probing) return this.probing;
    const round = (async () => {
      const results = new Map<string, ProbeRecord[]>();
      await Promise.all(
        lines.map(async (line) => {
          const netif = netifs.find((n) => n.ifname === line.device);
          if (netif?.status !== 'up') return;
          const targets = this.targetsOf(line, netif);
          results.set(line.name, await Promise.all(targets.map((t) => this.options.facts.probe(line.device, t))));
        }),
      );
      this.probes = { at: this.options.now(), results };
      return results;
    })();
    this.probing = round;
    try {
      return await round;
    } finally {
      this.probing = null;
    }
  }

  private lineStatus(line: WanLine, netif: Netif | undefined, probes: readonly ProbeRecord[] | undefined): LineStatus {
    const up = netif?.status === 'up';
    const targets = this.targetsOf(line, netif);
    const results: ProbeResult[] = up
      ? (probes ?? []).map((p) => ({
          target: p.target,
          sent: p.sent,
          received: p.received,
          loss: p.sent > 0 ? Math.round(((p.sent - p.received) / p.sent) * 1000) / 10 : 100,
          latency: p.latency,
        }))
      : [];
    const sent = results.reduce((s, p) => s + p.sent, 0);
    const received = results.reduce((s, p) => s + p.received, 0);
    const answered = results.filter((p) => p.latency !== null);
    const online = up && (targets.length === 0 ? Boolean(netif?.ipaddr) : received > 0);
    return {
      name: line.name,
      interface: line.device,
      link: up ? 'up' : 'down',
      online,
      ipaddr: netif?.ipaddr ?? '',
      gateway: line.gateway || netif?.gateway || '',
      table: line.table,
      rx_rate: netif?.rx_rate ?? 0,
      tx_rate: netif?.tx_rate ?? 0,
      rx_bytes: netif?.rx_bytes ?? 0,
      tx_bytes: netif?.tx_bytes ?? 0,
      latency: answered.length > 0 ? Math.round((answered.reduce((s, p) => s + p.latency!, 0) / answered.length) * 100) / 100 : null,
      loss: !up ? 100 : sent > 0 ? Math.round(((sent - received) / sent) * 1000) / 10 : 0,
      probes: results,
      checked_at: up && targets.length > 0 ? (this.probes?.at ?? null) : null,
    };
  }

  async lineMonitoring(): Promise<LineMonitoring> {
    const netifs = this.options.live.netif().items;
    const lines = this.lines(netifs);
    const probes = await this.probeRound(lines, netifs);
    const statuses = lines.map((line) => this.lineStatus(line, netifs.find((n) => n.ifname === line.device), probes.get(line.name)));
    return { lines: statuses, wanconnect: statuses.filter((s) => s.online).length, refresh_ms: LINE_MONITOR_REFRESH_MS };
  }

  /** One line with its rates over a range; null when no WAN has that name. */
  async lineDetails(name: string, range: ChartRange): Promise<LineDetails | null> {
    const monitoring = await this.lineMonitoring();
    const line = monitoring.lines.find((l) => l.name === name);
    if (!line) return null;
    return { line, range, step: CHART_RANGE_STEPS[range], points: this.traffic.series(line.interface, range, this.options.now()) };
  }
}
