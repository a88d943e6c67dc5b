import {
  CONNECTION_LIMITS,
  FACTORY_NETWORK,
  TOPFLOW_COUNT,
  type ChartRange,
  type Dashboard,
  type InterfaceProto,
  type InterfaceRole,
  type LoadSeries,
  type NetifList,
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
  localIsoTime,
  round1,
  type ConfiguredLink,
  type LiveStatusSource,
  type LoadValues,
} from '../live-source.js';
import { MAX_ONLINE, MIN_ONLINE, SimPopulation } from './sim-clients.js';
import { loadSimIdentity, macWithOffset } from './sim-identity.js';
import { createSimNetwork } from './sim-network.js';
import { activity, gaussian, seededRandom, valueNoise, type Random } from './sim-rhythm.js';

/*
 * A simulated gateway: two WAN links and one LAN with 20 to 60 clients, load that follows the
 * time of day, counters that only grow. Nothing on the host is touched; the only file is the
 * device identity in the state folder. State advances on a fixed 5-second grid, by a small
 * unref'd timer and on demand, so readings are consistent and cost nothing between ticks.
 */

export interface SimLiveOptions {
  stateDir: string;
  now?: () => number;
  /** Source of live randomness (the identity seed fixes the rest). */
  random?: Random;
  version?: string;
}

const SIM_MODEL = 'Portico G1800';
const SIM_CPU_MODEL = 'Intel(R) Celeron(R) J4125 CPU @ 2.00GHz';
const SIM_CORES = 4;
const SIM_MEMORY_TOTAL = 4 * 1024 ** 3;
const SIM_KERNEL = '6.6.58';
const SIM_ARCH = 'x86_64';
/** Connections the router itself holds (DNS, NTP, cloud link). */
const OWN_CONNS = 12;
/** After a longer pause (host asleep), time beyond the last hour is bridged from the model. */
const MAX_CATCHUP_MS = 3600_000;
/** Mean time between drops of every WAN link but the first, and how long a drop lasts. */
const SPARE_WAN_MEAN_UP_S = 10 * 3600;
const WAN_DOWN_MIN_S = 20;
const WAN_DOWN_MAX_S = 120;
/** Share of WAN traffic each line carries, in line order, when all are up. */
const WAN_WEIGHTS = [0.62, 0.38, 0.3] as const;
/** Upstream networks of the simulated lines, one per WAN in order (documentation ranges). */
const UPSTREAMS = ['203.0.113', '198.51.100', '192.0.2'] as const;
const DAY_MS = 86_400_000;

/*
 * Averages of the client population at full use (see sim-clients.ts), measured from long runs;
 * the model of the past uses them so the backfilled history meets the live one without a step.
 */
const AVG_CLIENT_DOWN = 170_000;
const AVG_UP_RATIO = 0.15;
const RESIDENT_UP = 30_000;
const AVG_CLIENT_CONNS = 9.5;

interface SimPort {
  ifname: string;
  /** What the link was brought up from: a change of it brings the link up anew. */
  key: string;
  enabled: boolean;
  role: InterfaceRole;
  proto: InterfaceProto;
  ipaddr: string;
  netmask: string;
  gateway: string;
  mac: string;
  mtu: number;
  up: boolean;
  upSince: number;
  downUntil: number;
  /** Share of WAN traffic this link carries when all links are up. */
  weight: number;
  rxBytes: number;
  txBytes: number;
  rxRate: number;
  txRate: number;
}

function prefixNetmask(bits: number): string {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (mask >>> shift) & 0xff).join('.');
}

/** The factory LAN (spec §9: 192.168.11.x): its first three octets and its mask. */
function factoryLan(): { prefix: string; netmask: string } {
  const [address = '192.168.11.0', bits = '24'] = FACTORY_NETWORK.split('/');
  return { prefix: `${address.split('.').slice(0, 3).join('.')}.`, netmask: prefixNetmask(Number(bits)) };
}

/** The position of a port in its name (`eth2` is 2): its MAC is the device's plus it. */
function portIndex(name: string): number {
  const digits = /(\d+)$/.exec(name)?.[1];
  return digits ? Number(digits) % 256 : [...name].reduce((n, ch) => (n + ch.charCodeAt(0)) % 256, 0);
}

/**
 * The address a configured link holds: its own when static; a DHCP lease (a /24) or a PPPoE
 * point-to-point address from the upstream network of its line otherwise, fixed by the seed.
 */
function simAddress(link: ConfiguredLink, wanIndex: number, seed: number): Pick<SimPort, 'ipaddr' | 'netmask' | 'gateway'> {
  if (link.proto === 'static') return { ipaddr: link.ipaddr, netmask: link.netmask, gateway: link.gateway };
  const net = UPSTREAMS[Math.max(0, wanIndex) % UPSTREAMS.length]!;
  const host = 2 + Math.floor(seededRandom(seed ^ Math.imul(wanIndex + 2, 0x9e3779b1))() * 250);
  return { ipaddr: `${net}.${host}`, netmask: link.proto === 'pppoe' ? '255.255.255.255' : '255.255.255.0', gateway: `${net}.1` };
}

const cpuBase = (level: number) => 4 + 18 * level;
const memoryBase = (level: number) => 34 + 8 * level;
const cpuForTraffic = (bytesPerSecond: number) => (bytesPerSecond * 8) / 1e6 * 0.12;
const wanRx = (down: number) => down * 1.03 + 600;
const wanTx = (up: number) => up * 1.04 + 400;

export function createSimLive(options: SimLiveOptions): LiveStatusSource {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const version = options.version ?? DAEMON_VERSION;
  const startedAt = now();
  const identity = loadSimIdentity(options.stateDir, random, startedAt);
  const seed = identity.seed;
  const seeded = seededRandom(seed ^ 0x5eed5eed);
  const lan = factoryLan();

  /** The load a device like this one shows at a given time: the past before start. */
  const model = (time: number): LoadValues => {
    const level = activity(time);
    const slow = valueNoise(seed, 1, time, 3 * 3600_000);
    const mid = valueNoise(seed, 2, time, 20 * 60_000);
    const fast = valueNoise(seed, 3, time, 2 * 60_000);
    const online = clamp(MIN_ONLINE + (MAX_ONLINE - MIN_ONLINE) * level + 4 * slow, MIN_ONLINE, MAX_ONLINE);
    const down = online * AVG_CLIENT_DOWN * (0.35 + 0.9 * level) * Math.max(0.2, 1 + 0.35 * mid + 0.2 * fast);
    const up = down * AVG_UP_RATIO * (1 + 0.2 * slow) + RESIDENT_UP;
    const conns = Math.min(CONNECTION_LIMITS.systemMaxShown, online * AVG_CLIENT_CONNS * (0.5 + level) * (1 + 0.1 * mid) + OWN_CONNS);
    const cpu = clamp(cpuBase(level) + cpuForTraffic(down + up) + 2.5 * mid + 1.5 * fast, 1, 99);
    return {
      cpu,
      memory: clamp(memoryBase(level) + 1.5 * slow + conns * 0.002, 5, 95),
      load1: Math.max(0, ((SIM_CORES * cpu) / 100) * 1.1 * (1 + 0.1 * fast)),
      rx_rate: wanRx(down),
      tx_rate: wanTx(up),
      conn_count: conns,
    };
  };

  const byte = () => 2 + Math.floor(seeded() * 250);
  const simPort = (link: Omit<SimPort, 'up' | 'enabled' | 'upSince' | 'downUntil' | 'rxBytes' | 'txBytes' | 'rxRate' | 'txRate' | 'key'>): SimPort => ({
    ...link, key: '', up: true, enabled: true, upSince: startedAt, downUntil: 0, rxBytes: 0, txBytes: 0, rxRate: 0, txRate: 0,
  });
  // Until the daemon hands it its configuration, the simulator shows a device of two WANs and a LAN.
  let ports: SimPort[] = [
    simPort({ ifname: 'wan1', role: 'wan', proto: 'pppoe', ipaddr: `203.0.113.${byte()}`, netmask: '255.255.255.255', gateway: '203.0.113.1', mac: macWithOffset(identity.mac, 1), mtu: 1492, weight: WAN_WEIGHTS[0] }),
    simPort({ ifname: 'wan2', role: 'wan', proto: 'dhcp', ipaddr: `198.51.100.${byte()}`, netmask: '255.255.255.0', gateway: '198.51.100.1', mac: macWithOffset(identity.mac, 2), mtu: 1500, weight: WAN_WEIGHTS[1] }),
    simPort({ ifname: 'lan', role: 'lan', proto: 'static', ipaddr: `${lan.prefix}1`, netmask: lan.netmask, gateway: '', mac: identity.mac, mtu: 1500, weight: 0 }),
  ];
  const wanPorts = () => ports.filter((p) => p.role === 'wan');
  /** The link the clients are on: the first LAN-side one. */
  const clientPort = () => ports.find((p) => p.role !== 'wan');

  let readConfigured: (() => readonly ConfiguredLink[]) | null = null;
  /** Brings the links in line with the configuration: new ones come up now, removed ones go. */
  const followLinks = (at: number) => {
    if (!readConfigured) return;
    let wans = 0;
    ports = readConfigured().map((link) => {
      const index = link.role === 'wan' ? wans++ : -1;
      const address = simAddress(link, index, seed);
      const key = JSON.stringify([link.role, link.proto, link.hwport, address]);
      const kept = ports.find((p) => p.ifname === link.ifname && p.key === key);
      const next: SimPort = kept ?? {
        ...simPort({ ifname: link.ifname, role: link.role, proto: link.proto, ...address, mac: macWithOffset(identity.mac, portIndex(link.hwport[0] ?? '')), mtu: link.mtu, weight: 0 }),
        key,
        upSince: at,
      };
      next.mtu = link.mtu;
      next.weight = index >= 0 ? (WAN_WEIGHTS[index] ?? WAN_WEIGHTS[WAN_WEIGHTS.length - 1]!) : 0;
      if (next.enabled !== link.enabled) {
        next.enabled = link.enabled;
        next.up = link.enabled;
        next.upSince = at;
      }
      return next;
    });
  };

  /** Time of the latest state, on the sample grid. */
  let t = Math.floor(startedAt / LOAD_SAMPLE_MS) * LOAD_SAMPLE_MS;
  const population = new SimPopulation(lan.prefix, seeded, t, activity(t));
  const first = model(t);
  const gauges = {
    cpu: first.cpu,
    memory: first.memory,
    load1: first.load1,
    cpuNoise: 0,
    memoryNoise: 0,
    connCount: 0,
    disk: 12 + seeded() * 20,
    flash: 24 + seeded() * 16,
  };

  const history = new LoadHistory(LOAD_SAMPLE_MS);
  history.fill(model, t - 31 * DAY_MS, t);

  /** Moves links and gauges to grid time `at`, `dtSec` after the previous state, and samples. */
  const derive = (at: number, dtSec: number, rng: Random) => {
    const level = activity(at);
    let down = 0;
    let up = 0;
    let conns = 0;
    for (const c of population.clients) {
      if (!c.online) continue;
      down += c.downRate;
      up += c.upRate;
      conns += c.conns;
    }

    const wans = wanPorts();
    // Every line but the first drops now and then, for a minute or two.
    for (const line of wans.slice(1)) {
      if (!line.enabled) continue;
      if (line.up && rng() < dtSec / SPARE_WAN_MEAN_UP_S) {
        line.up = false;
        line.downUntil = at + (WAN_DOWN_MIN_S + rng() * (WAN_DOWN_MAX_S - WAN_DOWN_MIN_S)) * 1000;
      } else if (!line.up && at >= line.downUntil) {
        line.up = true;
        line.upSince = at;
      }
    }
    const wanWeight = wans.reduce((sum, p) => sum + (p.up ? p.weight : 0), 0);
    for (const port of wans) {
      const share = port.up && wanWeight > 0 ? port.weight / wanWeight : 0;
      port.rxRate = share > 0 ? Math.round(wanRx(down) * share) : 0;
      port.txRate = share > 0 ? Math.round(wanTx(up) * share) : 0;
    }
    // The clients' link carries their traffic plus the console, DHCP and DNS of the router itself.
    for (const port of ports) {
      if (port.role === 'wan') continue;
      const clients = port === clientPort();
      port.rxRate = port.up ? Math.round((clients ? up : 0) + 200 + rng() * 300) : 0;
      port.txRate = port.up ? Math.round((clients ? down : 0) + 300 + rng() * 500) : 0;
    }
    for (const port of ports) {
      port.rxBytes += port.rxRate * dtSec;
      port.txBytes += port.txRate * dtSec;
    }

    const wanDown = wans.reduce((sum, p) => sum + p.rxRate, 0);
    const wanUp = wans.reduce((sum, p) => sum + p.txRate, 0);
    gauges.cpuNoise = 0.9 * gauges.cpuNoise + gaussian(rng) * 1.2;
    gauges.cpu = clamp(cpuBase(level) + cpuForTraffic(wanDown + wanUp) + gauges.cpuNoise, 1, 99);
    gauges.memoryNoise = clamp(0.995 * gauges.memoryNoise + gaussian(rng) * 0.08, -4, 4);
    gauges.connCount = Math.min(CONNECTION_LIMITS.systemMaxShown, conns + OWN_CONNS);
    gauges.memory = clamp(memoryBase(level) + gauges.memoryNoise + gauges.connCount * 0.002, 5, 95);
    // load1 is the kernel's one-minute moving average of the run queue.
    const runQueue = ((SIM_CORES * gauges.cpu) / 100) * 1.1 * (1 + 0.05 * gaussian(rng));
    gauges.load1 = Math.max(0, gauges.load1 + (runQueue - gauges.load1) * (1 - Math.exp(-dtSec / 60)));
    gauges.disk = clamp(gauges.disk + gaussian(rng) * 0.002, 5, 60);
    history.record(at, {
      cpu: gauges.cpu,
      memory: gauges.memory,
      load1: gauges.load1,
      rx_rate: wanDown,
      tx_rate: wanUp,
      conn_count: gauges.connCount,
    });
  };

  // The first state is seeded too: settled client traffic, nothing counted yet.
  population.settle(activity(t), seeded);
  derive(t, 0, seeded);

  const advance = (nowMs: number) => {
    followLinks(nowMs);
    const target = Math.floor(nowMs / LOAD_SAMPLE_MS) * LOAD_SAMPLE_MS;
    if (target <= t) return;
    if (target - t > MAX_CATCHUP_MS) {
      // Bridge a long pause: counters move at the last rates, the charts follow the model.
      const resume = target - MAX_CATCHUP_MS;
      const seconds = (resume - LOAD_SAMPLE_MS - t) / 1000;
      for (const port of ports) {
        port.rxBytes += port.rxRate * seconds;
        port.txBytes += port.txRate * seconds;
      }
      for (const c of population.clients) {
        if (!c.online) continue;
        c.downBytes += c.downRate * seconds;
        c.upBytes += c.upRate * seconds;
      }
      history.fill(model, t, resume);
      t = resume - LOAD_SAMPLE_MS;
    }
    while (t < target) {
      t += LOAD_SAMPLE_MS;
      population.step(t, LOAD_SAMPLE_MS / 1000, activity(t), random);
      derive(t, LOAD_SAMPLE_MS / 1000, random);
    }
  };

  let timer: NodeJS.Timeout | null = setInterval(() => advance(now()), LOAD_SAMPLE_MS);
  timer.unref();

  const secondsSince = (from: number, to: number) => Math.max(0, Math.floor((to - from) / 1000));
  const ipNumber = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);

  const network = createSimNetwork({
    clients: () => {
      advance(now());
      return population.clients;
    },
    links: () => {
      advance(now());
      return ports;
    },
    now,
    seed,
  });

  return {
    network,

    dashboard(): Dashboard {
      const at = now();
      advance(at);
      const online = population.online();
      const topflows = online
        .map((c) => ({ ip: c.ip, flow: c.upBytes + c.downBytes }))
        .filter((f) => f.flow > 0)
        .sort((a, b) => b.flow - a.flow)
        .slice(0, TOPFLOW_COUNT);
      const memory = round1(gauges.memory);
      return {
        board: { sn: identity.sn, model: SIM_MODEL, version },
        system: {
          localtime: localIsoTime(at),
          uptime: secondsSince(startedAt, at),
          cpu: round1(gauges.cpu),
          memory,
          memory_total: SIM_MEMORY_TOTAL,
          memory_used: Math.round((SIM_MEMORY_TOTAL * memory) / 100),
          conn_max: CONNECTION_LIMITS.systemMaxShown,
          conn_count: gauges.connCount,
          disk: round1(gauges.disk),
          flash: round1(gauges.flash),
          wanconnect: ports.filter((p) => p.role === 'wan' && p.up).length,
        },
        user: {
          online: online.length,
          preauth: online.filter((c) => c.auth === 'preauth').length,
          auth: online.filter((c) => c.auth === 'auth').length,
          total: population.seenCount(t),
          topflows,
        },
      };
    },

    loadSeries(range: ChartRange): LoadSeries {
      advance(now());
      return history.series(range, t);
    },

    netif(): NetifList {
      const at = now();
      advance(at);
      const items = ports.map((p) => ({
        ifname: p.ifname,
        role: p.role,
        status: p.up ? ('up' as const) : ('down' as const),
        proto: p.proto,
        ipaddr: p.up ? p.ipaddr : '',
        netmask: p.up ? p.netmask : '',
        gateway: p.up ? p.gateway : '',
        mac: p.mac,
        mtu: p.mtu,
        rx_bytes: p.rxBytes,
        tx_bytes: p.txBytes,
        rx_rate: p.rxRate,
        tx_rate: p.txRate,
        uptime: p.up ? secondsSince(p.upSince, at) : 0,
      }));
      return { items, total: items.length };
    },

    onlineUsers(): OnlineUserList {
      const at = now();
      advance(at);
      const items = population
        .online()
        .sort((a, b) => ipNumber(a.ip) - ipNumber(b.ip))
        .map((c) => ({
          ip: c.ip,
          mac: c.mac,
          hostname: c.hostname,
          username: c.auth === 'auth' ? c.username : '',
          auth: c.auth,
          up_rate: c.upRate,
          down_rate: c.downRate,
          up_bytes: c.upBytes,
          down_bytes: c.downBytes,
          online_time: secondsSince(c.since, at),
          conn_count: c.conns,
        }));
      return { items, total: items.length };
    },

    registration(): Registration {
      // A new device is not activated; activation belongs to the licence flow, not to live data.
      return { isRegister: false, locked: false, sn: identity.sn, mac: identity.mac, is_x86: true };
    },

    system(): SystemInfo {
      const at = now();
      return {
        hostname: `Portico-${identity.mac.split(':').slice(4).join('').toUpperCase()}`,
        model: SIM_MODEL,
        version,
        sn: identity.sn,
        mac: identity.mac,
        kernel: SIM_KERNEL,
        cpu_model: SIM_CPU_MODEL,
        cpu_cores: SIM_CORES,
        memory_total: SIM_MEMORY_TOTAL,
        uptime: secondsSince(startedAt, at),
        localtime: localIsoTime(at),
        timezone: deviceTimezone(),
        arch: SIM_ARCH,
      };
    },

    followConfiguration(read) {
      readConfigured = read;
      followLinks(now());
    },

    stop(): void {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
