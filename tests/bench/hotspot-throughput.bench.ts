// Throughput through the gateway with 10,000 authorised clients against the same test with 10:
// iperf3 (upload and download) between a client namespace and the upstream namespace, through
// the gateway namespace with the hotspot ruleset, the client being one of the authorised.
// Every packet of a hotspot interface is looked up in the runtime sets (hs_from_client and
// hs_to_client), so the figure is the cost of those lookups with a full set. Budget >= 95 %,
// medians over several runs taken turn about.
import { loadavg } from 'node:os';
import { labPrerequisites } from '../lab/lab-packages.js';
import { SERVER_ADDRESS } from '../lab/lab-topology.js';
import { iperfKbit, startIperfServers, waitForIperf } from '../lab/qos-iperf.js';
import { median, report } from './bench-util.mjs';
import { addressClient, createHotspotLab, round, syntheticClient } from './hotspot-bench-lab.js';

const MANY = Number(process.env.BENCH_HOTSPOT_CLIENTS ?? 10_000);
const FEW = 10;
const RUNS = Number(process.env.BENCH_IPERF_RUNS ?? 5);
const PORT = 5201;
const CLIENT_IP = '192.168.11.10';

const blocker = labPrerequisites();
if (blocker) {
  console.log(JSON.stringify({ bench: 'hotspot-throughput', skipped: blocker }));
  process.exit(process.env.BENCH_STRICT ? 1 : 0);
}

const lab = await createHotspotLab();
const client = lab.gateway.lab.clients[0]!;
addressClient(client.ns, client.ifname, CLIENT_IP);
const iperf = startIperfServers(lab.gateway.lab.inet, SERVER_ADDRESS, [PORT]);
const zone = lab.config.zones[0]!;

/** Exactly `count` authorised clients, the measuring client among them. */
async function authorise(count: number): Promise<number> {
  lab.flushClients();
  const engine = lab.engine();
  await engine.start();
  const outcomes = await Promise.all([
    engine.login({ mac: client.mac, ip: CLIENT_IP }, zone, { method: 'onekey' }),
    ...Array.from({ length: count - 1 }, (_, i) => engine.login(syntheticClient(i), zone, { method: 'onekey' })),
  ]);
  if (outcomes.some((o) => !o.ok)) throw new Error('a login was refused');
  // The engine's timers are not started: nothing changes the sets during the measurement.
  return (await lab.elementCounts()).auth;
}

const throughput = () => [iperfKbit(client.ns, SERVER_ADDRESS, PORT, { seconds: 3 }) / 1000, iperfKbit(client.ns, SERVER_ADDRESS, PORT, { seconds: 3, reverse: true }) / 1000];

const few: number[] = [];
const many: number[] = [];
let heldMany = 0;
try {
  await authorise(FEW);
  await waitForIperf(client.ns, SERVER_ADDRESS, PORT);
  for (let run = 0; run < RUNS; run++) {
    await authorise(FEW);
    few.push(...throughput());
    heldMany = await authorise(MANY);
    many.push(...throughput());
  }
} finally {
  iperf.stop();
  await lab.down();
}

const ratio = median(many) / median(few);
const pass = report(
  'hotspot-throughput',
  {
    clients: MANY,
    elements_held: heldMany,
    runs: RUNS,
    load_average: round(loadavg()[0]!),
    throughput_10_clients_mbit: Math.round(median(few)),
    throughput_clients_mbit: Math.round(median(many)),
    throughput_ratio: Number(ratio.toFixed(3)),
    // Reported as a shortfall so every budget reads "at most".
    throughput_loss: Number((1 - ratio).toFixed(3)),
  },
  { throughput_loss: 0.05 },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
