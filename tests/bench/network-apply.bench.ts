// Apply of a network + DHCP change on the linux driver, in the lab's gateway namespace: render,
// check with nft -c and dnsmasq --test, install atomically, make live (ip batches, sysctl,
// nft -f, dnsmasq restarted until it serves). Budget: p99 <= 300 ms over 50 applies.
import { dhcpServer, networkInterface } from '@portico/schema';
import { createLabGateway, row } from '../lab/lab-gateway.js';
import { labPrerequisites } from '../lab/lab-packages.js';
import { median, report } from './bench-util.mjs';

const APPLIES = Number(process.env.BENCH_APPLIES ?? 50);

function snapshot(i: number) {
  return {
    networkInterface: [
      row(networkInterface, 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
      // The network change: the LAN's MTU moves; the DHCP change: the pool size moves.
      row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0', mtu: 1400 + (i % 2) * 50 }),
    ],
    dhcpServer: [row(dhcpServer, 'dh', { interface: 'lan', start: '192.168.11.100', pool_size: 50 + (i % 7), netmask: '255.255.255.0' })],
  };
}

const blocker = labPrerequisites();
if (blocker) {
  console.log(JSON.stringify({ bench: 'network-apply', skipped: blocker }));
  process.exit(process.env.BENCH_STRICT ? 1 : 0);
}

const gateway = createLabGateway({ clients: 1, httpServer: false });
const times: number[] = [];
try {
  await gateway.apply(snapshot(0));
  for (let i = 1; i <= APPLIES; i++) {
    const started = process.hrtime.bigint();
    await gateway.apply(snapshot(i));
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
} finally {
  await gateway.down();
}
const sorted = [...times].sort((a, b) => a - b);
const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
const pass = report(
  'network-apply',
  { applies: APPLIES, p50_ms: Math.round(median(times)), p99_ms: Math.round(p99), max_ms: Math.round(sorted.at(-1)!) },
  { p99_ms: 300 },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
