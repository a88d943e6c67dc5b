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
/** Mean time between drops of the second WAN link, and how long a drop lasts. */
const WAN2_MEAN_UP_S = 10 * 3600;
const WAN2_DOWN_MIN_S = 20;
const WAN2_DOWN_MAX_S = 120;
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
  const ports: SimPort[] = [
    {
      ifname: 'wan1', role: 'wan', proto: 'pppoe', ipaddr: `203.0.113.${byte()}`, netmask: '255.255.255.255',
      gateway: '203.0.113.1', mac: macWithOffset(identity.mac, 1), mtu: 1492, weight: 0.62,
      up: true, upSince: startedAt, downUntil: 0, rxBytes: 0, txBytes: 0, rxRate: 0, txRate: 0,
    },
    {
      ifname: 'wan2', role: 'wan', proto: 'dhcp', ipaddr: `198.51.100.${byte()}`, netmask: '255.255.255.0',
      gateway: '198.51.100.1', mac: macWithOffset(identity.mac, 2), mtu: 1500, weight: 0.38,
      up: true, upSince: startedAt, downUntil: 0, rxBytes: 0, txBytes: 0, rxRate: 0, txRate: 0,
    },
    {
      ifname: 'lan', role: 'lan', proto: 'static', ipaddr: `${lan.prefix}1`, netmask: lan.netmask,
      gateway: '', mac: identity.mac, mtu: 1500, weight: 0,
      up: true, upSince: startedAt, downUntil: 0, rxBytes: 0, txBytes: 0, rxRate: 0, txRate: 0,
    },
  ];
  const [wan1, wan2, lanPort] = ports as [SimPort, SimPort, SimPort];

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

    if (wan2.up && rng() < dtSec / WAN2_MEAN_UP_S) {
      wan2.up = false;
      wan2.downUntil = at + (WAN2_DOWN_MIN_S + rng() * (WAN2_DOWN_MAX_S - WAN2_DOWN_MIN_S)) * 1000;
    } else if (!wan2.up && at >= wan2.downUntil) {
      wan2.up = true;
      wan2.upSince = at;
    }
    const wanWeight = [wan1, wan2].reduce((sum, p) => sum + (p.up ? p.weight : 0), 0);
    for (const port of [wan1, wan2]) {
      const share = port.up && wanWeight > 0 ? port.weight / wanWeight : 0;
      port.rxRate = share > 0 ? Math.round(wanRx(down) * share) : 0;
      port.txRate = share > 0 ? Math.round(wanTx(up) * share) : 0;
    }
    // The LAN side carries client traffic plus the console, DHCP and DNS of the router itself.
    lanPort.rxRate = Math.round(up + 200 + rng() * 300);
    lanPort.txRate = Math.round(down + 300 + rng() * 500);
    for (const port of ports) {
      port.rxBytes += port.rxRate * dtSec;
      port.txBytes += port.txRate * dtSec;
    }

    const wanDown = wan1.rxRate + wan2.rxRate;
    const wanUp = wan1.txRate + wan2.txRate;
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

    stop(): void {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
