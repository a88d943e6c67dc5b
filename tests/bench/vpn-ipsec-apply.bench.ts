// The IPsec server with 500 site-to-site peers: the apply as the linux driver does it (render,
// every file through its checker, atomic install, then ONE `swanctl --load-all` into the
// daemon's one charon, already running, which the IPsec clients share) in a network namespace of its own. The figure is the time
// of an apply that changes every peer's key (all 500 connections and keys reloaded), median of
// BENCH_RUNS. Budget: under 1 s, with exactly one swanctl load per apply and charon holding all
// 500 connections afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ipsecPeer, writeSchema, type AnyEntity } from '@portico/schema';
import { runCommand, type CommandRunner } from '../../apps/daemon/src/engine/command-runner.js';
import { createLinuxApplier } from '../../apps/daemon/src/config/apply-linux.js';
import type { ConfigSnapshot } from '../../apps/daemon/src/config/config-types.js';
import { registryOf } from '../../apps/daemon/src/config/config-domains.js';
import { DOMAIN_MODULES } from '../../apps/daemon/src/domain-list.js';
import { readSettings } from '../../apps/daemon/src/settings.js';
import { ipsecDomain, ipsecIkeUser } from '../../apps/daemon/src/domains/vpn-server/vpn-server-ipsec-domain.js';
import { ikeDomain, ikeViciSocket } from '../../apps/daemon/src/domains/network/network-ike.js';
import { labPrerequisites } from '../lab/lab-packages.js';
import { median, report, reportError } from './bench-util.mjs';

const NAME = 'vpn-ipsec-apply';
const PEERS = Number(process.env.BENCH_IPSEC_PEERS ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function snapshot(round: number): ConfigSnapshot {
  const rows = Array.from({ length: PEERS }, (_, i) => {
    const id = String(i + 1);
    const input = {
      name: `peer${i}`,
      remote_addr: `10.${100 + Math.floor(i / 250)}.${i % 250}.2`,
      ike: i % 2 ? 'ikev1' : 'ikev2',
      local_subnets: '192.168.11.0/24',
      peer_subnets: `172.${16 + Math.floor(i / 256)}.${i % 256}.0/24`,
      local_id: 'gw.example',
      remote_id: `peer${i}.example`,
      psk: `key-${round}-${i}`,
    };
    const parsed = writeSchema(ipsecPeer as unknown as AnyEntity, 'add').parse(input) as Record<string, unknown>;
    return { id, data: { ...parsed, id } };
  });
  return { [ipsecPeer.name]: rows };
}

const blocker = labPrerequisites();
if (blocker) {
  console.log(JSON.stringify({ bench: NAME, skipped: blocker }));
  process.exit(process.env.BENCH_STRICT ? 1 : 0);
}

const ns = `ptb${randomBytes(2).toString('hex')}-ipsec`;
const root = mkdtempSync(join(tmpdir(), 'portico-bench-ipsec-'));
let loads = 0;
const loadTimes: number[] = [];
const inNs: CommandRunner = async (argv, options) => {
  if (!(argv[0] === 'swanctl' && argv[1] === '--load-all')) return runCommand(['ip', 'netns', 'exec', ns, ...argv], options);
  loads += 1;
  const started = process.hrtime.bigint();
  const result = await runCommand(['ip', 'netns', 'exec', ns, ...argv], options);
  loadTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
  return result;
};
const settings = { ...readSettings({}), driver: 'linux' as const, systemRoot: root };
const applier = createLinuxApplier({ root, run: inNs, domains: registryOf(DOMAIN_MODULES, settings, [ikeDomain(root, [ipsecIkeUser]), ipsecDomain()]), spawnPrefix: ['ip', 'netns', 'exec', ns] });
try {
  await runCommand(['ip', 'netns', 'add', ns]);
  await runCommand(['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
  // The first apply starts charon and loads it; the figures are the applies after it.
  await applier.apply(['ike', 'ipsec-server'], snapshot(0));
  const times: number[] = [];
  const loadsPerApply: number[] = [];
  for (let round = 1; round <= RUNS; round++) {
    const before = loads;
    const started = process.hrtime.bigint();
    await applier.apply(['ike', 'ipsec-server'], snapshot(round));
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    loadsPerApply.push(loads - before);
  }
  const listed = await runCommand(['swanctl', '--list-conns', '--uri', `unix://${ikeViciSocket(root)}`], { timeoutMs: 60_000 });
  const connections = (listed.stdout.match(/^peer\d+: IKEv[12]/gm) ?? []).length;
  const pass = report(
    NAME,
    { peers: PEERS, runs: RUNS, apply_p50_ms: Math.round(median(times)), apply_max_ms: Math.round(Math.max(...times)), load_p50_ms: Math.round(median(loadTimes.slice(1))), swanctl_loads_per_apply: Math.max(...loadsPerApply), connections_loaded: connections },
    { apply_p50_ms: 1000, swanctl_loads_per_apply: 1 },
  );
  if (connections !== PEERS) throw new Error(`charon holds ${connections} connections, not ${PEERS}`);
  process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
} catch (error) {
  reportError(NAME, error);
  process.exitCode = 1;
} finally {
  await applier.stop?.();
  await runCommand(['ip', 'netns', 'del', ns]);
  rmSync(root, { recursive: true, force: true });
}
