// The wireless controller holding 10,000 APs, each reporting its state with 10-30 stations
// every 10 s, over the in-memory link (the TLS WebSocket transport's figures come with it):
// - command round trip p99: pings to random APs while one round of reports arrives at its real
//   pace, spread over 10 s (budget 50 ms);
// - RSS growth from before the first connection to all 10,000 held with their stations after
//   that round (budget 300 MB), with the heap's figures, and RSS once more after the bursts below;
// - CPU: rounds of 10,000 state reports (10 s of reports each) driven as fast as they are
//   processed; CPU seconds per round / 10 s = share of one core in steady state (budget 0.30);
// - a configuration change pushed to all 10,000 until each has applied it (30 s), and the same
//   with one configuration object per AP (no shared serialisation) for comparison;
// - AP list paging p99 from the store with 10,000 rows, random sort, order, filter, offset (50 ms).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { linkPair, rpcNotification, rpcResult, type UcentralLink } from '@portico/schema';
import { migrateModule, openDatabase } from '../../apps/daemon/src/plugins/db-open.js';
import { WIRELESS_DEVICE_MIGRATIONS, WirelessDeviceStore, WIRELESS_SORT_KEYS } from '../../apps/daemon/src/domains/wireless/controller/wireless-device-store.js';
import { WirelessController } from '../../apps/daemon/src/domains/wireless/controller/wireless-controller.js';
import type { WirelessConfigBody } from '../../apps/daemon/src/domains/wireless/controller/wireless-controller-config.js';
import { median, report, reportError } from './bench-util.mjs';

const APS = Number(process.env.BENCH_WIRELESS_APS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_WIRELESS_ROUNDS ?? 5);
const GROUPS = 20;
const PINGS = 1000;
const PAGES = 300;
const REPORT_INTERVAL_S = 10;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function serialOf(i: number): string {
  return (0x04aa00000000 + i).toString(16).padStart(12, '0');
}

function hex2(n: number): string {
  return (n & 255).toString(16).padStart(2, '0');
}

function stateText(serial: string, i: number, uuid: number): string {
  const stations = 10 + (i % 21);
  const associations = Array.from({ length: stations }, (_, s) => ({
    station: `02:${hex2(i >> 16)}:${hex2(i >> 8)}:${hex2(i)}:00:${hex2(s)}`,
    rssi: -40 - (s % 40),
    rx_rate: { bitrate: 866_700 },
    tx_rate: { bitrate: 433_300 },
    rx_bytes: 123_456_789 + s,
    tx_bytes: 987_654_321 + s,
    connected: 3600 + s,
    inactive: s,
    hostname: `client-${s}`,
  }));
  const half = Math.ceil(stations / 2);
  const ssid = (name: string, band: '2G' | '5G', list: typeof associations, last: number) => ({
    ssid: name,
    bssid: `02:${hex2(i >> 16)}:${hex2(i >> 8)}:${hex2(i)}:01:${hex2(last)}`,
    band,
    associations: list,
  });
  return rpcNotification('state', {
    serial,
    uuid,
    state: {
      unit: { load: [0.12, 0.2, 0.25], memory: { total: 262_144_000, free: 131_072_000 }, uptime: 86_400 + i, localtime: 1_700_000_000 },
      radios: [
        { band: '2G', channel: 1 + (i % 11), channel_width: 20, tx_power: 20, noise: -95 },
        { band: '5G', channel: 36, channel_width: 80, tx_power: 23, noise: -100 },
      ],
      interfaces: [{ name: 'lan', ssids: [ssid('Office', '2G', associations.slice(0, half), 1), ssid('Office', '5G', associations.slice(half), 2)] }],
    },
  });
}

/**
 * A simulated AP: answers configure (applied) and ping. Its state report is built once per
 * configuration; the first (uuid 1, what the controller gives at connect) before the memory
 * baseline, so the simulator's strings do not count as the controller's growth.
 */
class SimulatedAp {
  uuid: number;
  report: string;
  readonly link: UcentralLink;
  readonly controllerEnd: UcentralLink;
  constructor(
    readonly serial: string,
    readonly index: number,
    private readonly applied: (ap: SimulatedAp) => void,
  ) {
    const pair = linkPair(serial, `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}:40000`);
    this.link = pair.device;
    this.link.onMessage((text) => this.receive(text));
    this.controllerEnd = pair.controller;
    this.uuid = 1;
    this.report = stateText(serial, index, 1);
  }

  connect(): void {
    this.link.send(rpcNotification('connect', { serial: this.serial, uuid: 0, firmware: 'portico-ap 1.0', capabilities: { platform: 'ap', model: 'PX-1' } }));
  }

  sendState(): void {
    this.link.send(this.report);
  }

  private receive(text: string): void {
    const message = JSON.parse(text) as { id: number; method: string; params: { uuid: number } };
    if (message.method === 'configure') {
      if (message.params.uuid !== this.uuid) this.report = stateText(this.serial, this.index, message.params.uuid);
      this.uuid = message.params.uuid;
      this.link.send(rpcResult(message.id, { serial: this.serial, uuid: this.uuid, status: { error: 0, text: '', rejected: [] } }));
      this.applied(this);
    } else if (message.method === 'ping') {
      this.link.send(rpcResult(message.id, { serial: this.serial, uuid: this.uuid, deviceUTCTime: Date.now() }));
    }
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
};
const round1 = (v: number) => Math.round(v * 10) / 10;
const rssMb = () => process.memoryUsage().rss / 1e6;
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

function groupConfig(channel: number): WirelessConfigBody {
  return {
    radios: [
      { band: '2G', country: 'CN', channel },
      { band: '5G', country: 'CN', channel: 36, 'channel-width': 80 },
    ],
    interfaces: [
      {
        name: 'lan',
        role: 'downstream',
        ssids: [
          { name: 'Office', 'wifi-bands': ['2G', '5G'], encryption: { proto: 'psk2', key: 'correct horse battery' }, rrm: { 'neighbor-reporting': true } },
          { name: 'Guest', 'wifi-bands': ['2G', '5G'], encryption: { proto: 'none' }, 'isolate-clients': true },
        ],
      },
    ],
    metrics: { statistics: { interval: REPORT_INTERVAL_S } },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'wireless-bench-'));
try {
  const db = openDatabase(join(dir, 'portico.db'));
  migrateModule(db, 'wireless', WIRELESS_DEVICE_MIGRATIONS);
  const store = new WirelessDeviceStore(db);
  const serials = Array.from({ length: APS }, (_, i) => serialOf(i));
  store.batch(() => serials.forEach((serial, i) => store.adopt(serial, `g${i % GROUPS}`, `AP ${String((i * 7919) % APS).padStart(5, '0')}`)));
  const groupOf = new Map(serials.map((serial, i) => [serial, `g${i % GROUPS}`]));
  let configs = new Map(Array.from({ length: GROUPS }, (_, g) => [`g${g}`, groupConfig(1 + (g % 11))]));
  let configFor = (serial: string): WirelessConfigBody | null => configs.get(groupOf.get(serial)!) ?? null;

  // Simulated time: each round of reports is 10 s later.
  let simulatedNow = Date.now();
  const controller = new WirelessController({ store, now: () => simulatedNow, configFor: (serial) => configFor(serial) });

  let appliedCount = 0;
  const aps = serials.map((serial, i) => new SimulatedAp(serial, i, () => appliedCount++));
  const untilApplied = async (count: number) => {
    while (appliedCount < count) await tick();
  };

  gc();
  await sleep(200);
  const rssBefore = rssMb();
  const heapBefore = process.memoryUsage().heapUsed / 1e6;
  const heapTotalBefore = process.memoryUsage().heapTotal / 1e6;

  // Connect all; each is configured at connect.
  let started = performance.now();
  for (const ap of aps) {
    controller.attach(ap.controllerEnd);
    ap.connect();
  }
  await untilApplied(APS);
  const connectAllMs = performance.now() - started;

  // One round at its real pace (10,000 reports over 10 s) with pings to random APs meanwhile.
  simulatedNow += REPORT_INTERVAL_S * 1000;
  // Reports arrive spread over the interval, as from 10,000 independent APs: a slice every 10 ms.
  const perSlice = Math.ceil(APS / PINGS);
  const roundTrips: number[] = [];
  const pings: Array<Promise<void>> = [];
  for (let slice = 0; slice < PINGS; slice++) {
    for (const ap of aps.slice(slice * perSlice, (slice + 1) * perSlice)) ap.sendState();
    const serial = serials[Math.floor(Math.random() * APS)]!;
    const sent = performance.now();
    pings.push(controller.ping(serial).then(() => void roundTrips.push(performance.now() - sent)));
    await sleep((REPORT_INTERVAL_S * 1000) / PINGS);
  }
  await Promise.all(pings);

  // All 10,000 held with their stations, reports having arrived as APs send them.
  const stationsTotal = controller.stations().length;
  gc();
  await sleep(500);
  const rssAfter = rssMb();
  const heapAfter = process.memoryUsage().heapUsed / 1e6;
  const heapTotalAfter = process.memoryUsage().heapTotal / 1e6;

  // Rounds of reports as fast as they are processed.
  const perRound: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    simulatedNow += REPORT_INTERVAL_S * 1000;
    const cpu = process.cpuUsage();
    for (const ap of aps) ap.sendState();
    await tick();
    await tick();
    // The first round is a warm-up (the controller's first burst): not steady state.
    if (round > 0) perRound.push(cpuSeconds(cpu));
  }
  gc();
  await sleep(500);
  const rssAfterBursts = rssMb();

  // A change to every group pushed to all APs, until all have applied it.
  const pushAll = async (): Promise<{ ms: number; maxBlockMs: number }> => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const target = appliedCount + APS;
    const begin = performance.now();
    const outcome = await controller.pushConfig(serials);
    if (outcome.sent !== APS) throw new Error(`pushConfig sent ${outcome.sent} of ${APS}`);
    await untilApplied(target);
    delay.disable();
    return { ms: performance.now() - begin, maxBlockMs: delay.max / 1e6 };
  };
  configs = new Map(Array.from({ length: GROUPS }, (_, g) => [`g${g}`, groupConfig(1 + ((g + 5) % 11))]));
  const shared = await pushAll();
  // The same with a configuration object per AP: every one validated and serialised.
  configs = new Map(Array.from({ length: GROUPS }, (_, g) => [`g${g}`, groupConfig(1 + ((g + 7) % 11))]));
  configFor = (serial) => structuredClone(configs.get(groupOf.get(serial)!)!);
  const unshared = await pushAll();

  // AP list pages.
  const pageTimes: number[] = [];
  const searches = ['', '', 'ap 01', '04aa', 'px'];
  for (let i = 0; i < PAGES; i++) {
    const begin = performance.now();
    store.page({
      offset: Math.floor(Math.random() * (APS - 50)),
      limit: 50,
      sort: WIRELESS_SORT_KEYS[i % WIRELESS_SORT_KEYS.length],
      order: i % 2 ? 'desc' : 'asc',
      search: searches[i % searches.length],
      ...(i % 3 === 0 ? { status: 'adopted' as const } : {}),
      ...(i % 4 === 0 ? { kind: 'ap' as const } : {}),
    });
    pageTimes.push(performance.now() - begin);
  }

  controller.stop();
  db.close();

  const cpuPerRound = median(perRound);
  const pass = report(
    'wireless-controller',
    {
      transport: 'in-memory link',
      aps: APS,
      stations_total: stationsTotal,
      connect_all_ms: Math.round(connectAllMs),
      cpu_seconds_per_round: Math.round(cpuPerRound * 100) / 100,
      cpu_core_fraction: Math.round((cpuPerRound / REPORT_INTERVAL_S) * 1000) / 1000,
      rss_before_mb: Math.round(rssBefore),
      rss_growth_mb: Math.round(rssAfter - rssBefore),
      heap_growth_mb: Math.round(heapAfter - heapBefore),
      heap_total_growth_mb: Math.round(heapTotalAfter - heapTotalBefore),
      rss_growth_after_bursts_mb: Math.round(rssAfterBursts - rssBefore),
      round_trip_p50_ms: round1(median(roundTrips)),
      round_trip_p99_ms: round1(p99(roundTrips)),
      push_all_ms: Math.round(shared.ms),
      push_all_max_block_ms: round1(shared.maxBlockMs),
      push_all_unshared_ms: Math.round(unshared.ms),
      push_all_unshared_max_block_ms: round1(unshared.maxBlockMs),
      page_p50_ms: round1(median(pageTimes)),
      page_p99_ms: round1(p99(pageTimes)),
    },
    { cpu_core_fraction: 0.3, rss_growth_mb: 300, round_trip_p99_ms: 50, push_all_ms: 30_000, page_p99_ms: 50 },
  );
  process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
} catch (error) {
  reportError('wireless-controller', error);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
