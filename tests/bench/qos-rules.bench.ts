// Smart QoS at scale on the linux driver, in the lab's gateway namespace:
// - 5,000 per-user bandwidth rules rendered (nft maps, tc classes), checked, installed and made
//   live (nft -f, tc -batch) from a 10-rule configuration: budget 2 s, median over several
//   applies; and the same 5,000 rules all edited at once on the live tree (a delta);
// - iperf3 throughput of an unlimited client through the gateway with those 5,000 rules loaded
//   against the same test with 10 rules: budget >= 90 %, medians over several runs.
// Download is shaped where the device would shape it (`auto`: on IFB devices where the kernel
// allows); the figures say which side that was.
import { loadavg } from 'node:os';
import { networkInterface, qosLoadBalance } from '@portico/schema';
import { createLabGateway, row } from '../lab/lab-gateway.js';
import { labPrerequisites } from '../lab/lab-packages.js';
import { inNs, SERVER_ADDRESS } from '../lab/lab-topology.js';
import { iperfKbit, startIperfServers, waitForIperf } from '../lab/qos-iperf.js';
import { systemRegistry } from '../../apps/daemon/src/domain-list.js';
import { qosDownloadShaping } from '../../apps/daemon/src/domains/qos/qos-kernel.js';
import { buildQosIngressObject } from '../../apps/daemon/bpf-build.mjs';
import { median, report } from './bench-util.mjs';

const RULES = Number(process.env.BENCH_QOS_RULES ?? 5000);
const APPLIES = Number(process.env.BENCH_APPLIES ?? 5);
const RUNS = Math.min(APPLIES, Number(process.env.BENCH_IPERF_RUNS ?? 5));
const PORT = 5201;

function rules(count: number, rate: number) {
  const rows = [];
  for (let i = 0; i < count; i++) {
    // 10.0.0.2 onwards: users of the LAN's second network.
    const n = i + 2;
    const id = `u${i}`;
    rows.push({
      id,
      data: {
        id,
        enabled: true,
        name: `user${i}`,
        usernet: `10.0.${n >> 8}.${n & 255}`,
        upspeed1: rate,
        downspeed1: rate,
        upspeed2: 0,
        downspeed2: 0,
        weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        timestart: '00:00',
        timestop: '24:00',
      },
    });
  }
  return rows;
}

function snapshot(count: number, rate = 2000) {
  return {
    networkInterface: [
      row(networkInterface, 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
      row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }),
    ],
    qosBase: [{ id: '', data: { qos: true, qosmode: 'smart', p2pblock: false, balance: false } }],
    // Line speeds above what the namespaces carry: the figure is the gateway's own cost.
    qosLoadBalance: [row(qosLoadBalance, 'lb1', { interface: 'wan1', upbandwidth: 10_000_000, downbandwidth: 10_000_000 })],
    qosIpRule: rules(count, rate),
  };
}

const blocker = labPrerequisites();
if (blocker) {
  console.log(JSON.stringify({ bench: 'qos-rules', skipped: blocker }));
  process.exit(process.env.BENCH_STRICT ? 1 : 0);
}

await buildQosIngressObject();
const gateway = createLabGateway({ clients: 1, httpServer: false, qosDownload: 'auto' });
const client = gateway.lab.clients[0]!.ns;
inNs(client, ['ip', 'addr', 'add', '192.168.11.10/24', 'dev', 'eth0']);
inNs(client, ['ip', 'route', 'replace', 'default', 'via', '192.168.11.1']);
const iperf = startIperfServers(gateway.lab.inet, SERVER_ADDRESS, [PORT]);
const domains = systemRegistry({ port: 8080, systemRoot: '/', driver: 'linux', qosDownload: 'auto' });

/** One upload and one download run, in Mbit/s. */
const throughput = () => [iperfKbit(client, SERVER_ADDRESS, PORT, { seconds: 3 }) / 1000, iperfKbit(client, SERVER_ADDRESS, PORT, { seconds: 3, reverse: true }) / 1000];

const renderTimes: number[] = [];
const applyTimes: number[] = [];
const changeTimes: number[] = [];
// Throughput with 10 and with 5,000 rules is measured turn about, so drift in the load of a
// shared machine falls on both alike.
const few: number[] = [];
const many: number[] = [];
try {
  await gateway.apply(snapshot(10));
  await waitForIperf(client, SERVER_ADDRESS, PORT);
  for (let i = 0; i < APPLIES; i++) {
    // Alternate rates so every apply changes the map elements and every class.
    const next = snapshot(RULES, 2000 + (i % 2) * 100);
    let started = process.hrtime.bigint();
    domains.render(domains.renderable(), next);
    renderTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
    await gateway.apply(snapshot(10));
    if (i < RUNS) few.push(...throughput());
    started = process.hrtime.bigint();
    await gateway.apply(next);
    applyTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (i < RUNS) many.push(...throughput());
    // Every rule's rate edited at once, on the live 5,000-rule tree.
    started = process.hrtime.bigint();
    await gateway.apply(snapshot(RULES, 2050 + (i % 2) * 100));
    changeTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
} finally {
  iperf.stop();
  await gateway.down();
}

const pass = report(
  'qos-rules',
  {
    rules: RULES,
    download_side: qosDownloadShaping('auto', 'linux'),
    render_ms: Math.round(median(renderTimes)),
    apply_ms: Math.round(median(applyTimes)),
    apply_max_ms: Math.round(Math.max(...applyTimes)),
    change_all_ms: Math.round(median(changeTimes)),
    load_average: Number(loadavg()[0]!.toFixed(1)),
    throughput_10_rules_mbit: Math.round(median(few)),
    throughput_rules_mbit: Math.round(median(many)),
    throughput_ratio: Number((median(many) / median(few)).toFixed(3)),
    // Reported as a shortfall so every budget reads "at most".
    throughput_loss: Number((1 - median(many) / median(few)).toFixed(3)),
  },
  { apply_ms: 2000, throughput_loss: 0.1 },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
