// Apply of a 2,000-rule firewall (1,000 port mappings, 1,000 filter rules) on the linux driver,
// in the lab's gateway namespace: render, check with nft -c, install, load as one atomic
// nft -f transaction. Each run moves one mapping and one filter rule, so every apply replaces
// the whole ruleset. Budget: p99 <= 250 ms over the runs (median reported beside it).
import { firewallAcl, firewallPortMapping, networkInterface } from '@portico/schema';
import { createLabGateway, row } from '../lab/lab-gateway.js';
import { labPrerequisites } from '../lab/lab-packages.js';
import { median, report } from './bench-util.mjs';

const APPLIES = Number(process.env.BENCH_APPLIES ?? 30);
const MAPPINGS = 1000;
const FILTERS = 1000;

function hostOf(i: number): string {
  return `192.168.${10 + Math.floor(i / 250)}.${(i % 250) + 2}`;
}

/** The rule set of run `variant`: only mapping 0's internal port and filter 0's port differ. */
function snapshot(variant: number) {
  const mappings = Array.from({ length: MAPPINGS }, (_, i) =>
    row(firewallPortMapping, `pm${i}`, {
      name: `map ${i}`,
      proto: i % 3 === 0 ? 'tcpudp' : 'tcp',
      wan: i % 2 ? 'wan1' : '',
      extport: 10_000 + i,
      intip: hostOf(i),
      intport: i === 0 ? 80 + variant : 80,
      // Every fifth mapping is restricted to a source network: a rule rather than a map element.
      src: i % 5 === 0 ? `203.0.${i % 250}.0/24` : '',
    }),
  );
  const filters = Array.from({ length: FILTERS }, (_, i) => {
    // Every 50th rule names a network and a port range: a rule of its own between map lookups.
    const broad = i % 50 === 49;
    return row(firewallAcl, `acl${i}`, {
      name: `rule ${i}`,
      direction: i % 10 === 0 ? 'input' : 'forward',
      target: ['accept', 'drop', 'drop', 'reject'][i % 4],
      proto: i % 2 ? 'tcp' : 'udp',
      src: broad ? `10.${i % 250}.0.0/16` : hostOf(i),
      dst: `198.18.${Math.floor(i / 250)}.${i % 250}`,
      dport: broad ? `${i}-${i + 100}` : i === 0 ? String(1000 + variant) : String(1 + (i % 60_000)),
    });
  });
  return {
    networkInterface: [
      row(networkInterface, 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
      row(networkInterface, 'wan2', { ifname: 'wan2', role: 'wan', hwport: ['wan2'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1' }),
      row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1'], proto: 'static', ipaddr: '192.168.10.1', netmask: '255.255.0.0' }),
    ],
    firewallPortMapping: mappings,
    firewallAcl: filters,
  };
}

const blocker = labPrerequisites();
if (blocker) {
  console.log(JSON.stringify({ bench: 'firewall-apply', skipped: blocker }));
  process.exit(process.env.BENCH_STRICT ? 1 : 0);
}

// Snapshots are built before timing: parsing 2,000 rows is the write path's work, not the apply's.
const variants = [snapshot(0), snapshot(1)];
const gateway = createLabGateway({ clients: 1, httpServer: false });
const times: number[] = [];
try {
  await gateway.apply(variants[0]!);
  for (let i = 1; i <= APPLIES; i++) {
    const started = process.hrtime.bigint();
    await gateway.apply(variants[i % 2]!);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
} finally {
  await gateway.down();
}
const sorted = [...times].sort((a, b) => a - b);
const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
const pass = report(
  'firewall-apply',
  { rules: MAPPINGS + FILTERS, applies: APPLIES, p50_ms: Math.round(median(times)), p99_ms: Math.round(p99), max_ms: Math.round(sorted.at(-1)!) },
  { p99_ms: 250 },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
