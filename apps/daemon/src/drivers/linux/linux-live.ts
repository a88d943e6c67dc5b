import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import {
  CHART_RANGE_KEYS,
  CONNECTION_LIMITS,
  TOPFLOW_COUNT,
  type ChartRange,
  type Dashboard,
  type InterfaceProto,
  type LoadSeries,
  type Netif,
  type NetifList,
  type OnlineUser,
  type OnlineUserList,
  type Registration,
  type SystemInfo,
} from '@portico/schema';
import {
  DAEMON_VERSION,
  LOAD_SAMPLE_MS,
  LoadHistory,
  clamp,
  deviceTimezone,
  formatSerial,
  localIsoTime,
  round1,
  writeFileAtomic,
  type LeaseRecord,
  type LiveStatusSource,
  type NeighbourRecord,
  type NetworkFacts,
  type ProbeRecord,
  type RouteRecord,
} from '../live-source.js';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import {
  ARP_COMPLETE,
  cpuPercentBetween,
  parseArp,
  parseConntrack,
  parseCpuTimes,
  parseCpuinfo,
  parseDefaultRoutes,
  parseDnsmasqLeases,
  parseIpNeigh,
  parseIpRoutes,
  parseLeaseFile,
  parseLoadavg,
  parsePing,
  parseMeminfo,
  parseNetDev,
  parseUptime,
  type ClientFlows,
  type CpuTimes,
  type DefaultRoute,
  type DevCounters,
} from './linux-proc.js';

/*
 * Live status of a Linux host, read from /proc and /sys with plain file reads (no commands).
 * Rates and CPU use come from the difference of two readings: a small unref'd timer takes one
 * every 5 s for the load history, and a read asks for a fresh one when the last is over a
 * second old. Until interface roles come from configuration, the interface holding the
 * default route is the WAN and every other one (except lo) the LAN.
 */

export interface LinuxLiveOptions {
  procRoot?: string;
  sysRoot?: string;
  /** Where machine-id lives (normally /etc). */
  etcRoot?: string;
  stateDir: string;
  now?: () => number;
  /** IPv4 addresses per interface (os.networkInterfaces); replaceable for tests. */
  networkInterfaces?: () => NodeJS.Dict<os.NetworkInterfaceInfo[]>;
  /** dnsmasq lease file, for client host names. */
  dhcpLeasesFile?: string;
  version?: string;
}

export const LINUX_HISTORY_FILE = 'linux-load-history.json';
export const LINUX_IDENTITY_FILE = 'linux-identity.json';

/** Readings closer together than this reuse the last one: rates over shorter spans are noise. */
const MIN_SAMPLE_MS = 1000;
const HISTORY_SAVE_MS = 10 * 60_000;
/** Shown when the kernel has no connection tracking (spec §9: system limit 1024). */
const DEFAULT_CONN_MAX = CONNECTION_LIMITS.systemMaxShown;
/** Above this many tracked connections the per-client table is not read: too costly per poll. */
const CONNTRACK_READ_LIMIT = 20_000;
const SEEN_MAX = 4096;
const DAY_MS = 86_400_000;
const ZERO_MAC = '00:00:00:00:00:00';

interface Sample {
  t: number;
  cpu: CpuTimes | null;
  dev: Map<string, DevCounters>;
}

interface SeenClient {
  ip: string;
  /** Start of the current presence in the neighbour table; null when gone. */
  presentSince: number | null;
  lastSeen: number;
}

/** Stored chart points hold running averages, so their figures need not be whole numbers. */
const storedBucketSchema = z.object({
  t: z.number().int().nonnegative(),
  cpu: z.number().min(0).max(100),
  memory: z.number().min(0).max(100),
  load1: z.number().nonnegative(),
  rx_rate: z.number().nonnegative(),
  tx_rate: z.number().nonnegative(),
  conn_count: z.number().nonnegative(),
  n: z.number().positive(),
});
const historyFileSchema = z.object({
  rings: z.partialRecord(z.enum(CHART_RANGE_KEYS as [ChartRange, ...ChartRange[]]), z.array(storedBucketSchema)),
});

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Percent of a file system in use, as df counts it (reserved blocks are not available). */
function diskPercent(path: string): number {
  let probe = path;
  // The folder may not exist yet; its nearest existing parent is on the same file system.
  while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
  try {
    const fs = statfsSync(probe);
    const used = fs.blocks - fs.bfree;
    const usable = used + fs.bavail;
    return usable > 0 ? round1(clamp((used / usable) * 100, 0, 100)) : 0;
  } catch {
    return 0;
  }
}

function ipNumber(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + (Number(o) || 0), 0);
}

export function createLinuxLive(options: LinuxLiveOptions): LiveStatusSource {
  const procRoot = options.procRoot ?? '/proc';
  const sysRoot = options.sysRoot ?? '/sys';
  const etcRoot = options.etcRoot ?? '/etc';
  const now = options.now ?? Date.now;
  const networkInterfaces = options.networkInterfaces ?? os.networkInterfaces;
  const leasesFile = options.dhcpLeasesFile ?? '/var/lib/misc/dnsmasq.leases';
  const version = options.version ?? DAEMON_VERSION;
  const stateDir = options.stateDir;
  const proc = (path: string) => readText(join(procRoot, path));
  const sysNet = (ifname: string, attr: string) => readText(join(sysRoot, 'class', 'net', ifname, attr))?.trim() ?? null;

  const serial = readSerial();
  const takeSample = (at: number): Sample => ({
    t: at,
    cpu: parseCpuTimes(proc('stat') ?? ''),
    dev: parseNetDev(proc('net/dev') ?? ''),
  });
  let previous: Sample | null = null;
  let current = takeSample(now());

  const fresh = () => {
    const at = now();
    if (at - current.t >= MIN_SAMPLE_MS) {
      previous = current;
      current = takeSample(at);
    }
  };

  const cpuPercent = (): number => {
    if (!current.cpu) return 0;
    const between = previous?.cpu ? cpuPercentBetween(previous.cpu, current.cpu) : null;
    // A single reading gives the average since boot: better than nothing on the first call.
    const value = between ?? (current.cpu.total > 0 ? (current.cpu.busy / current.cpu.total) * 100 : 0);
    return round1(value);
  };

  /** Bytes per second of an interface between the last two readings; 0 across a counter reset. */
  const rates = (ifname: string): { rx: number; tx: number } => {
    const after = current.dev.get(ifname);
    const before = previous?.dev.get(ifname);
    const seconds = previous ? (current.t - previous.t) / 1000 : 0;
    if (!after || !before || seconds <= 0) return { rx: 0, tx: 0 };
    return {
      rx: Math.max(0, Math.round((after.rxBytes - before.rxBytes) / seconds)),
      tx: Math.max(0, Math.round((after.txBytes - before.txBytes) / seconds)),
    };
  };

  const defaultRoutes = (): DefaultRoute[] => parseDefaultRoutes(proc('net/route') ?? '');
  const interfaceNames = () => [...current.dev.keys()].filter((name) => name !== 'lo');

  const linkUp = (ifname: string): boolean => {
    const state = sysNet(ifname, 'operstate');
    if (state === 'up') return true;
    // Tunnels and some virtual links never report a state; their carrier tells.
    return state === 'unknown' && sysNet(ifname, 'carrier') === '1';
  };

  const upSince = new Map<string, number>();
  const memory = () => parseMeminfo(proc('meminfo') ?? '');
  const connCount = () => Number(proc('sys/net/netfilter/nf_conntrack_count')?.trim() ?? '') || 0;
  const connMax = () => Number(proc('sys/net/netfilter/nf_conntrack_max')?.trim() ?? '') || DEFAULT_CONN_MAX;

  // Clients: the neighbour table, remembered for a day so `total` counts who came and went.
  const seen = new Map<string, SeenClient>();
  let flows: { t: number; byIp: Map<string, ClientFlows> } | null = null;
  let users: { t: number; items: OnlineUser[] } | null = null;

  /** Reads the neighbour table and updates who is present since when. */
  const observeNeighbours = (at: number): { ip: string; mac: string }[] => {
    const wans = new Set(defaultRoutes().map((r) => r.iface));
    const neighbours = new Map<string, { ip: string; mac: string }>();
    for (const entry of parseArp(proc('net/arp') ?? '')) {
      if ((entry.flags & ARP_COMPLETE) === 0 || entry.mac === ZERO_MAC || wans.has(entry.device)) continue;
      if (!neighbours.has(entry.ip)) neighbours.set(entry.ip, { ip: entry.ip, mac: entry.mac });
    }
    const present = new Set<string>();
    for (const { ip, mac } of neighbours.values()) {
      present.add(mac);
      const client = seen.get(mac);
      if (client) {
        client.ip = ip;
        client.lastSeen = at;
        client.presentSince ??= at;
      } else {
        seen.set(mac, { ip, presentSince: at, lastSeen: at });
      }
    }
    for (const [mac, client] of seen) {
      if (!present.has(mac)) client.presentSince = null;
      if (client.lastSeen <= at - DAY_MS) seen.delete(mac);
    }
    while (seen.size > SEEN_MAX) {
      const oldest = [...seen].reduce((a, b) => (b[1].lastSeen < a[1].lastSeen ? b : a));
      seen.delete(oldest[0]);
    }
    return [...neighbours.values()];
  };

  const readUsers = (): OnlineUser[] => {
    const at = now();
    if (users && at - users.t < MIN_SAMPLE_MS && at >= users.t) return users.items;
    const neighbours = observeNeighbours(at);
    const table = connCount() <= CONNTRACK_READ_LIMIT ? proc('net/nf_conntrack') : null;
    const byIp = table === null ? new Map<string, ClientFlows>() : parseConntrack(table);
    const before = flows;
    const seconds = before && at > before.t ? (at - before.t) / 1000 : 0;
    flows = { t: at, byIp };
    const names = parseDnsmasqLeases(readText(leasesFile) ?? '');

    const items = neighbours
      .sort((a, b) => ipNumber(a.ip) - ipNumber(b.ip))
      .map(({ ip, mac }): OnlineUser => {
        const flow = byIp.get(ip);
        const last = before?.byIp.get(ip);
        // Open connections only: bytes of closed ones are gone, so the rate can only be estimated.
        const rate = (nowBytes: number, thenBytes: number | undefined) =>
          seconds > 0 && thenBytes !== undefined ? Math.max(0, Math.round((nowBytes - thenBytes) / seconds)) : 0;
        return {
          ip,
          mac,
          hostname: names.get(mac) ?? '',
          username: '',
          auth: 'none',
          up_rate: flow ? rate(flow.upBytes, last?.upBytes) : 0,
          down_rate: flow ? rate(flow.downBytes, last?.downBytes) : 0,
          up_bytes: flow?.upBytes ?? 0,
          down_bytes: flow?.downBytes ?? 0,
          online_time: Math.max(0, Math.floor((at - (seen.get(mac)?.presentSince ?? at)) / 1000)),
          conn_count: flow?.conns ?? 0,
        };
      });
    users = { t: at, items };
    return items;
  };

  /** Notes when each link came up, as far as this reader has seen; returns the links that are up. */
  const observeLinks = (): Set<string> => {
    const up = new Set<string>();
    for (const ifname of interfaceNames()) {
      if (linkUp(ifname)) {
        up.add(ifname);
        if (!upSince.has(ifname)) upSince.set(ifname, current.t);
      } else {
        upSince.delete(ifname);
      }
    }
    for (const ifname of upSince.keys()) if (!current.dev.has(ifname)) upSince.delete(ifname);
    return up;
  };

  const readNetifs = (): Netif[] => {
    fresh();
    const routes = defaultRoutes();
    const addresses = networkInterfaces();
    const linksUp = observeLinks();
    const items: Netif[] = [];
    for (const ifname of interfaceNames()) {
      const up = linksUp.has(ifname);
      const route = routes.find((r) => r.iface === ifname);
      const ipv4 = (addresses[ifname] ?? []).find((a) => a.family === 'IPv4' || (a.family as unknown) === 4);
      const counters = current.dev.get(ifname) ?? { rxBytes: 0, txBytes: 0 };
      const rate = rates(ifname);
      const mac = sysNet(ifname, 'address') ?? '';
      const proto: InterfaceProto = ifname.startsWith('ppp') ? 'pppoe' : 'static';
      items.push({
        ifname,
        role: route ? 'wan' : 'lan',
        status: up ? 'up' : 'down',
        proto,
        ipaddr: ipv4?.address ?? '',
        netmask: ipv4?.netmask ?? '',
        gateway: route?.gateway ?? '',
        mac: mac === ZERO_MAC ? '' : mac,
        mtu: Number(sysNet(ifname, 'mtu')) || 0,
        rx_bytes: counters.rxBytes,
        tx_bytes: counters.txBytes,
        rx_rate: rate.rx,
        tx_rate: rate.tx,
        // Seen up by this reader: the kernel keeps no time of the last carrier change.
        uptime: up ? Math.max(0, Math.floor((now() - (upSince.get(ifname) ?? current.t)) / 1000)) : 0,
      });
    }
    return items;
  };

  /** The device's own address: the WAN port's, else the first real port's. */
  const deviceMac = (): string => {
    const candidates = [...defaultRoutes().map((r) => r.iface), ...interfaceNames().sort()];
    for (const ifname of candidates) {
      const mac = sysNet(ifname, 'address');
      if (mac && /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(mac) && mac !== ZERO_MAC) return mac.toLowerCase();
    }
    return '';
  };

  const deviceModel = (): string => {
    const model =
      readText(join(sysRoot, 'firmware', 'devicetree', 'base', 'model')) ??
      readText(join(sysRoot, 'class', 'dmi', 'id', 'product_name'));
    // Device-tree strings end with NUL.
    const clean = model?.replace(/\0/g, '').trim();
    return clean || `Linux ${os.machine()}`;
  };

  const uptimeSeconds = () => Math.floor(parseUptime(proc('uptime') ?? '') ?? os.uptime());

  // Load history survives restarts: what a chart of a week shows is the device's week.
  const history = new LoadHistory(LOAD_SAMPLE_MS);
  const historyPath = join(stateDir, LINUX_HISTORY_FILE);
  try {
    const parsed = historyFileSchema.safeParse(JSON.parse(readFileSync(historyPath, 'utf8')));
    if (parsed.success) history.restore(parsed.data.rings, now());
  } catch {
    // No history yet (or unreadable): the charts start from now.
  }
  let lastSave = now();
  let lastRecorded = -1;
  const saveHistory = () => {
    try {
      writeFileAtomic(historyPath, JSON.stringify({ rings: history.snapshot() }));
    } catch {
      // A full or read-only disk must not stop the readings; the next save tries again.
    }
  };

  const wanRates = (): { rx: number; tx: number } => {
    const wans = new Set(defaultRoutes().map((r) => r.iface));
    const names = interfaceNames().filter((n) => wans.size === 0 || wans.has(n));
    return names.reduce(
      (sum, n) => {
        const r = rates(n);
        return { rx: sum.rx + r.rx, tx: sum.tx + r.tx };
      },
      { rx: 0, tx: 0 },
    );
  };

  const tick = () => {
    fresh();
    if (current.t !== lastRecorded) {
      lastRecorded = current.t;
      const mem = memory();
      const wan = wanRates();
      history.record(current.t, {
        cpu: cpuPercent(),
        memory: mem ? ((mem.totalBytes - mem.availableBytes) / mem.totalBytes) * 100 : 0,
        load1: parseLoadavg(proc('loadavg') ?? '')?.load1 ?? 0,
        rx_rate: wan.rx,
        tx_rate: wan.tx,
        conn_count: connCount(),
      });
      observeNeighbours(current.t);
      observeLinks();
    }
    if (current.t - lastSave >= HISTORY_SAVE_MS) {
      lastSave = current.t;
      saveHistory();
    }
  };

  let timer: NodeJS.Timeout | null = null;
  const schedule = () => {
    // Aligned to the sample grid so each 5-second chart point gets exactly one reading.
    const delay = LOAD_SAMPLE_MS - (Date.now() % LOAD_SAMPLE_MS) + 50;
    timer = setTimeout(() => {
      tick();
      if (timer) schedule();
    }, delay);
    timer.unref();
  };
  observeNeighbours(current.t);
  observeLinks();
  schedule();

  function readSerial(): string {
    const machineId = (readText(join(etcRoot, 'machine-id')) ?? '').trim();
    // machine-id is confidential (machine-id(5)): derive the serial, never show the id itself.
    if (/^[0-9a-f]{32}$/i.test(machineId)) {
      return formatSerial(createHmac('sha256', machineId.toLowerCase()).update('portico-serial').digest('hex'));
    }
    const path = join(stateDir, LINUX_IDENTITY_FILE);
    try {
      const stored = z.object({ sn: z.string().regex(/^PT[0-9A-F]{14}$/) }).parse(JSON.parse(readFileSync(path, 'utf8')));
      return stored.sn;
    } catch {
      const sn = formatSerial(randomBytes(7).toString('hex'));
      writeFileAtomic(path, `${JSON.stringify({ sn }, null, 2)}\n`);
      return sn;
    }
  }

  return {
    dashboard(): Dashboard {
      const at = now();
      const netifs = readNetifs();
      const clients = readUsers();
      const mem = memory();
      const memoryTotal = mem?.totalBytes ?? os.totalmem();
      const memoryUsed = mem ? mem.totalBytes - mem.availableBytes : memoryTotal - os.freemem();
      const topflows = clients
        .map((c) => ({ ip: c.ip, flow: c.up_bytes + c.down_bytes }))
        .filter((f) => f.flow > 0)
        .sort((a, b) => b.flow - a.flow)
        .slice(0, TOPFLOW_COUNT);
      return {
        board: { sn: serial, model: deviceModel(), version },
        system: {
          localtime: localIsoTime(at),
          uptime: uptimeSeconds(),
          cpu: cpuPercent(),
          memory: memoryTotal > 0 ? round1(clamp((memoryUsed / memoryTotal) * 100, 0, 100)) : 0,
          memory_total: memoryTotal,
          memory_used: memoryUsed,
          conn_max: connMax(),
          conn_count: connCount(),
          disk: diskPercent(stateDir),
          flash: diskPercent('/'),
          wanconnect: netifs.filter((n) => n.role === 'wan' && n.status === 'up').length,
        },
        user: {
          online: clients.length,
          preauth: 0,
          auth: 0,
          total: Math.max(clients.length, seen.size),
          topflows,
        },
      };
    },

    loadSeries(range: ChartRange): LoadSeries {
      return history.series(range, now());
    },

    netif(): NetifList {
      const items = readNetifs();
      return { items, total: items.length };
    },

    onlineUsers(): OnlineUserList {
      const items = readUsers();
      return { items, total: items.length };
    },

    registration(): Registration {
      return { isRegister: false, locked: false, sn: serial, mac: deviceMac(), is_x86: ['x64', 'ia32'].includes(os.arch()) };
    },

    system(): SystemInfo {
      const cpu = parseCpuinfo(proc('cpuinfo') ?? '');
      const mem = memory();
      return {
        hostname: os.hostname(),
        model: deviceModel(),
        version,
        sn: serial,
        mac: deviceMac(),
        kernel: os.release(),
        cpu_model: cpu.model || os.cpus()[0]?.model || '',
        cpu_cores: Math.max(1, cpu.cores || os.cpus().length),
        memory_total: mem?.totalBytes ?? os.totalmem(),
        uptime: uptimeSeconds(),
        localtime: localIsoTime(now()),
        timezone: deviceTimezone(),
        arch: os.machine(),
      };
    },

    stop(): void {
      if (timer) clearTimeout(timer);
      const wasRunning = timer !== null;
      timer = null;
      if (wasRunning) saveHistory();
    },
  };
}

export interface LinuxNetworkFactsOptions {
  /** dnsmasq lease file (under the system root). */
  leasesFile: string;
  run?: CommandRunner;
}

/** Probes per round and how long a round may take: a 5-second refresh leaves room for both. */
const PROBE_COUNT = '3';
const PROBE_DEADLINE_S = '3';
const COMMAND_TIMEOUT_MS = 10_000;

/**
 * The network state of a Linux host: the lease file, and `ip -j` for neighbours and routes of
 * every table. ping comes from iputils when present, else from busybox.
 */
export function createLinuxNetworkFacts(options: LinuxNetworkFactsOptions): NetworkFacts {
  const run = options.run ?? runCommand;
  let pingCommand: readonly string[] = ['ping'];

  const ipJson = async (args: string[]): Promise<string> => {
    const result = await run(['ip', '-j', ...args], { timeoutMs: COMMAND_TIMEOUT_MS });
    return result.exitCode === 0 ? result.stdout : '[]';
  };

  return {
    async leases(): Promise<LeaseRecord[]> {
      return parseLeaseFile(readText(options.leasesFile) ?? '');
    },

    async neighbours(): Promise<NeighbourRecord[]> {
      return parseIpNeigh(await ipJson(['neigh', 'show']));
    },

    async routes(): Promise<RouteRecord[]> {
      const [v4, v6] = await Promise.all([ipJson(['-4', 'route', 'show', 'table', 'all']), ipJson(['-6', 'route', 'show', 'table', 'all'])]);
      return [...parseIpRoutes(v4, '4'), ...parseIpRoutes(v6, '6')];
    },

    async probe(device: string, target: string): Promise<ProbeRecord> {
      const args = ['-q', '-c', PROBE_COUNT, '-W', '1', '-w', PROBE_DEADLINE_S, '-I', device, target];
      let result = await run([...pingCommand, ...args], { timeoutMs: COMMAND_TIMEOUT_MS });
      if (/ENOENT/.test(result.stderr) && pingCommand[0] === 'ping') {
        pingCommand = ['busybox', 'ping'];
        result = await run([...pingCommand, ...args], { timeoutMs: COMMAND_TIMEOUT_MS });
      }
      const summary = parsePing(result.stdout) ?? { sent: Number(PROBE_COUNT), received: 0, latency: null };
      return { target, ...summary };
    },
  };
}
