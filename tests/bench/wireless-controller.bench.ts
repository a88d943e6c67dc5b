// The wireless controller holding 10,000 APs, each reporting its state with 10-30 stations
// every 10 s. BENCH_WIRELESS_TRANSPORT picks what carries them: `tls` (the default) gives each
// simulated AP its own TLS WebSocket to the controller's device listener, with its own device
// certificate, from child processes (wireless-ap-simulator.ts), so the figures are the
// controller's process alone; `memory` holds them on in-memory links in this process.
// - command round trip p99: pings to random APs while one round of reports arrives at its real
//   pace, spread over 10 s (budget 50 ms);
// - RSS growth from before the first connection to all APs held with their stations after that
//   round (budget 300 MB; this process's and the TLS terminator's), with the heap's figures, and
//   RSS once more after the bursts below;
// - CPU: rounds of one state report per AP (10 s of reports each) sent as fast as they go;
//   CPU seconds of this process (and of the TLS terminator, when it runs) per round / 10 s =
//   share of one core in steady state (budget 0.30);
// - a configuration change pushed to all APs until each has applied it (30 s), and the same
//   with one configuration object per AP (no shared serialisation) for comparison;
// - AP list paging p99 from the store with 10,000 rows, random sort, order, filter, offset (50 ms).
// The controller's process runs with the daemon's launch flags (launch-flags.mjs).
// If not every TLS connection opens (file descriptors, memory), the figures are for those that
// did: `aps_connected` and `note` say so.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { UcentralLink } from '@portico/schema';
import { migrateModule, openDatabase } from '../../apps/daemon/src/plugins/db-open.js';
import { WIRELESS_DEVICE_MIGRATIONS, WirelessDeviceStore, WIRELESS_SORT_KEYS } from '../../apps/daemon/src/domains/wireless/controller/wireless-device-store.js';
import { WirelessController } from '../../apps/daemon/src/domains/wireless/controller/wireless-controller.js';
import type { WirelessConfigBody } from '../../apps/daemon/src/domains/wireless/controller/wireless-controller-config.js';
import { WirelessDevicePki } from '../../apps/daemon/src/domains/wireless/controller/wireless-device-pki.js';
import { startDeviceListener, type DeviceListener } from '../../apps/daemon/src/domains/wireless/wireless-device-listener.js';
import { runCommand } from '../../apps/daemon/src/engine/command-runner.js';
import { InMemoryFleet, loopDelayOf, REPORT_INTERVAL_S, runSimulatorChild, serialOf, TlsFleet, type Fleet } from './wireless-ap-simulator.js';
import { median, report, reportError } from './bench-util.mjs';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';

const APS = Number(process.env.BENCH_WIRELESS_APS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_WIRELESS_ROUNDS ?? 5);
const TRANSPORT = process.env.BENCH_WIRELESS_TRANSPORT ?? 'tls';
/** Who terminates TLS: `tlsterm` (the built portico-tlsterm, when there is one) or `node`. */
const TERMINATOR = process.env.BENCH_WIRELESS_TLS ?? 'tlsterm';
/** Child processes holding the TLS fleet. */
const SIMULATOR_PROCESSES = 2;
const GROUPS = 20;
const PINGS = 1000;
const PAGES = 300;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
};
const round1 = (v: number) => Math.round(v * 10) / 10;
const rssMb = () => process.memoryUsage().rss / 1e6;
/** Another process's resident memory (the TLS terminator's), MB. */
const processRssMb = (pid: number | undefined): number => {
  if (pid === undefined) return 0;
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1e3;
};
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

/** CPU seconds another process (the TLS terminator) has used; Linux counts them in 1/100 s. */
const processCpuSeconds = (pid: number | undefined): number => {
  if (pid === undefined) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
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

const STATE_PREFIX = '{"jsonrpc":"2.0","method":"state"';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'wireless-bench-'));
  let fleet: Fleet | undefined;
  let listener: DeviceListener | undefined;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
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

    // State reports received, counted as they reach the controller.
    let reports = 0;
    const attach = (link: UcentralLink) =>
      controller.attach({
        peerSerial: link.peerSerial,
        remoteAddress: link.remoteAddress,
        send: (text) => link.send(text),
        close: (code, reason) => link.close(code, reason),
        onClose: (handler) => link.onClose(handler),
        onMessage: (handler) =>
          link.onMessage((text) => {
            if (text.startsWith(STATE_PREFIX)) reports++;
            handler(text);
          }),
      });
    const untilReports = async (count: number) => {
      while (reports < count) await (TRANSPORT === 'tls' ? sleep(2) : tick());
      await tick();
    };

    if (TRANSPORT === 'tls') {
      const pki = new WirelessDevicePki(join(dir, 'pki'), runCommand);
      const authority = await pki.ensureAuthority();
      const server = await pki.issueServer(['127.0.0.1']);
      listener = await startDeviceListener({
        port: 0,
        host: '127.0.0.1',
        key: readFileSync(server.keyFile),
        cert: readFileSync(server.certFile),
        ca: authority.toString(),
        isRevoked: (serial) => store.get(serial)?.status === 'revoked',
        onLink: attach,
        ...(TERMINATOR === 'node' ? { tlsTerminator: null } : {}),
      });
      // Each simulated AP gets its certificate in the child holding it (not timed).
      fleet = await TlsFleet.start({
        script: fileURLToPath(import.meta.url),
        port: listener.port,
        caCert: authority.toString(),
        caKey: readFileSync(pki.caKeyFile, 'utf8'),
        count: APS,
        processes: SIMULATOR_PROCESSES,
      });
    } else if (TRANSPORT === 'memory') {
      fleet = new InMemoryFleet(serials, attach);
    } else {
      throw new Error(`BENCH_WIRELESS_TRANSPORT is tls or memory, not ${TRANSPORT}`);
    }

    gc();
    await sleep(200);
    const rssBefore = rssMb();
    const terminatorBefore = processRssMb(listener?.terminatorPid);
    const memoryBefore = process.memoryUsage();
    const heapBefore = memoryBefore.heapUsed / 1e6;
    const heapTotalBefore = memoryBefore.heapTotal / 1e6;

    // Connect all; each is configured at connect.
    const connectAllStarted = performance.now();
    const connected = await fleet.connectAll();
    const connectAllMs = performance.now() - connectAllStarted;
    if (connected === 0) throw new Error(`no AP connected${fleet instanceof TlsFleet ? `: ${fleet.firstError}` : ''}`);
    const onlineList = controller.onlineSerials();

    // Pings to random APs over 10 s, each timed, and its two legs on the wall clock the processes
    // share (1 ms resolution: the AP stamps its answer with Date.now()): to the AP (this process,
    // the terminator, the AP's process) and back.
    const pingRound = async (rounds: number[], legs?: { out: number[]; back: number[] }) => {
      const pings: Array<Promise<void>> = [];
      for (let i = 0; i < PINGS; i++) {
        const serial = onlineList[Math.floor(Math.random() * onlineList.length)]!;
        const sent = performance.now();
        const sentAt = performance.timeOrigin + sent;
        pings.push(
          controller.ping(serial).then((result) => {
            const now = performance.now();
            rounds.push(now - sent);
            const answeredAt = (result as { deviceUTCTime?: number }).deviceUTCTime;
            if (legs && answeredAt !== undefined) {
              legs.out.push(Math.max(0, answeredAt - sentAt));
              legs.back.push(Math.max(0, performance.timeOrigin + now - answeredAt));
            }
          }),
        );
        await sleep((REPORT_INTERVAL_S * 1000) / PINGS);
      }
      await Promise.all(pings);
    };
    // The same pings with no reports arriving: what the round trip is on this machine without them.
    const quietRoundTrips: number[] = [];
    await pingRound(quietRoundTrips);

    // One round at its real pace (a report from each AP over 10 s) with pings to random APs meanwhile,
    // and how late this process's event loop and the simulators' ran meanwhile.
    simulatedNow += REPORT_INTERVAL_S * 1000;
    const roundTrips: number[] = [];
    const legs = { out: [] as number[], back: [] as number[] };
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const pacedCpu = process.cpuUsage();
    const pacedTerminatorCpu = processCpuSeconds(listener?.terminatorPid);
    const paced = fleet.pacedRound(REPORT_INTERVAL_S * 1000);
    await pingRound(roundTrips, legs);
    const simulatorDelay = await paced;
    loopDelay.disable();
    // Who used the 2 cores meanwhile: this process, the terminator, the simulators.
    const pacedCpuSeconds = cpuSeconds(pacedCpu);
    const pacedTerminatorCpuSeconds = processCpuSeconds(listener?.terminatorPid) - pacedTerminatorCpu;
    const controllerDelay = loopDelayOf(loopDelay);
    await untilReports(connected);

    // All held with their stations, reports having arrived as APs send them.
    const stationsTotal = controller.stationCount();
    gc();
    await sleep(500);
    const rssAfter = rssMb();
    const terminatorAfter = processRssMb(listener?.terminatorPid);
    const memoryAfter = process.memoryUsage();
    const heapAfter = memoryAfter.heapUsed / 1e6;
    const heapTotalAfter = memoryAfter.heapTotal / 1e6;
    // Where RSS growth went: V8's heap, memory outside it that V8 knows of (Buffers), and the
    // rest (native: OpenSSL's per-connection state and buffers, libuv, malloc's slack).
    const externalGrowth = (memoryAfter.external - memoryBefore.external) / 1e6;
    const arrayBuffersGrowth = (memoryAfter.arrayBuffers - memoryBefore.arrayBuffers) / 1e6;
    const nativeGrowth = rssAfter - rssBefore - (heapTotalAfter - heapTotalBefore) - externalGrowth;
    // BENCH_WIRELESS_HEAP_SNAPSHOT=<file>: the heap at this point, to see what holds it.
    if (process.env.BENCH_WIRELESS_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.BENCH_WIRELESS_HEAP_SNAPSHOT);

    // Rounds of reports as fast as they are sent and processed.
    const perRound: number[] = [];
    const terminatorPerRound: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      simulatedNow += REPORT_INTERVAL_S * 1000;
      const target = reports + connected;
      const cpu = process.cpuUsage();
      const terminatorCpu = processCpuSeconds(listener?.terminatorPid);
      await fleet.burst();
      await untilReports(target);
      // The first round is a warm-up (the controller's first burst): not steady state.
      if (round > 0) {
        const terminatorUsed = processCpuSeconds(listener?.terminatorPid) - terminatorCpu;
        terminatorPerRound.push(terminatorUsed);
        // The controller's process and the TLS terminator's together.
        perRound.push(cpuSeconds(cpu) + terminatorUsed);
      }
    }
    gc();
    await sleep(500);
    const rssAfterBursts = rssMb();
    const terminatorAfterBursts = processRssMb(listener?.terminatorPid);

    // A change to every group pushed to all APs, until all have applied it.
    const pushAll = async (): Promise<{ ms: number; maxBlockMs: number }> => {
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const target = (await fleet!.applied()) + connected;
      const begin = performance.now();
      const outcome = await controller.pushConfig(serials);
      if (outcome.sent !== connected) throw new Error(`pushConfig sent ${outcome.sent} of ${connected}`);
      while ((await fleet!.applied()) < target) await (TRANSPORT === 'tls' ? sleep(20) : tick());
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

    await fleet.close();
    await listener?.close();
    controller.stop();
    db.close();

    const cpuPerRound = median(perRound);
    const failures = fleet instanceof TlsFleet ? fleet.connectFailures : 0;
    const pass = report(
      'wireless-controller',
      {
        transport: fleet.transport,
        ...(TRANSPORT === 'tls' ? { simulator_processes: SIMULATOR_PROCESSES } : {}),
        aps: APS,
        aps_connected: connected,
        ...(connected < APS
          ? { connect_failures: failures, first_connect_error: fleet instanceof TlsFleet ? fleet.firstError : '', note: `only ${connected} of ${APS} APs connected: the figures are for those` }
          : {}),
        stations_total: stationsTotal,
        connect_all_ms: Math.round(connectAllMs),
        cpu_seconds_per_round: Math.round(cpuPerRound * 100) / 100,
        cpu_core_fraction: Math.round((cpuPerRound / REPORT_INTERVAL_S) * 1000) / 1000,
        terminator_cpu_seconds_per_round: Math.round(median(terminatorPerRound) * 100) / 100,
        ...(TRANSPORT === 'tls' ? { tls_terminated_by: listener?.terminatorPid === undefined ? 'node' : 'portico-tlsterm' } : {}),
        rss_before_mb: Math.round(rssBefore + terminatorBefore),
        // The controller's process and, when it terminates TLS, portico-tlsterm's together.
        rss_growth_mb: Math.round(rssAfter - rssBefore + terminatorAfter - terminatorBefore),
        daemon_rss_growth_mb: Math.round(rssAfter - rssBefore),
        terminator_rss_growth_mb: Math.round(terminatorAfter - terminatorBefore),
        heap_growth_mb: Math.round(heapAfter - heapBefore),
        heap_total_growth_mb: Math.round(heapTotalAfter - heapTotalBefore),
        external_growth_mb: Math.round(externalGrowth),
        array_buffers_growth_mb: Math.round(arrayBuffersGrowth),
        native_growth_mb: Math.round(nativeGrowth),
        rss_growth_after_bursts_mb: Math.round(rssAfterBursts - rssBefore + terminatorAfterBursts - terminatorBefore),
        round_trip_p50_ms: round1(median(roundTrips)),
        round_trip_p99_ms: round1(p99(roundTrips)),
        round_trip_out_p99_ms: legs.out.length ? round1(p99(legs.out)) : null,
        round_trip_back_p99_ms: legs.back.length ? round1(p99(legs.back)) : null,
        round_trip_quiet_p99_ms: round1(p99(quietRoundTrips)),
        loop_delay_p99_ms: controllerDelay.p99Ms,
        loop_delay_max_ms: controllerDelay.maxMs,
        paced_cpu_seconds: Math.round(pacedCpuSeconds * 100) / 100,
        paced_terminator_cpu_seconds: Math.round(pacedTerminatorCpuSeconds * 100) / 100,
        ...(simulatorDelay
          ? {
              simulator_loop_delay_p99_ms: simulatorDelay.p99Ms,
              simulator_loop_delay_max_ms: simulatorDelay.maxMs,
              paced_simulator_cpu_seconds: Math.round((simulatorDelay.cpuSeconds ?? 0) * 100) / 100,
            }
          : {}),
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
    await fleet?.close().catch(() => undefined);
    await listener?.close().catch(() => undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The controller's process runs as the daemon's does (launch-flags.mjs: V8's young generation
 * and glibc's malloc as the service unit sets them), so its memory is the daemon's.
 */
async function asDaemonProcess(): Promise<void> {
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, ...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, ...DAEMON_ENV, WIRELESS_BENCH_AS_DAEMON: '1' },
    stdio: 'inherit',
  });
  process.exitCode = await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

if (process.env.WIRELESS_BENCH_SIMULATOR) await runSimulatorChild();
else if (process.env.WIRELESS_BENCH_AS_DAEMON) await main();
else await asDaemonProcess();
