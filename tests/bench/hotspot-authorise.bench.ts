// Authorising clients on the real nftables data plane, in the lab's gateway namespace with the
// hotspot ruleset loaded:
// - 10,000 clients authorised at once (`engine.admitAll`, what `ndsctl auth` is to openNDS: the
//   clients are admitted, no credentials are checked): budget <= 100 ms until every client is
//   in the kernel's set, median over several runs;
// - the same 10,000 as portal logins at once (`engine.login`, one-key), reported without a
//   budget (`login_burst_ms`): the price of a promise per login on top;
// - per-insert cost flat from 0 to 10,000: ten bursts of 1,000 in a row, the 9k-10k burst
//   against the 0-1k one: budget ratio <= 1.5 (medians);
// - side by side, openNDS (Debian's package) authorising 1,000 clients with `ndsctl auth`:
//   ours must be >= 100x faster per client (hotspot-opennds.ts; `opennds_error` when it
//   cannot run).
import { loadavg } from 'node:os';
import { labPrerequisites } from '../lab/lab-packages.js';
import { median, report } from './bench-util.mjs';
import { createHotspotLab, ms, round, syntheticClient } from './hotspot-bench-lab.js';
import { measureOpenNds } from './hotspot-opennds.js';

const CLIENTS = Number(process.env.BENCH_HOTSPOT_CLIENTS ?? 10_000);
const CHUNK = CLIENTS / 10;
const RUNS = Number(process.env.BENCH_HOTSPOT_RUNS ?? 5);
const NDS_CLIENTS = Number(process.env.BENCH_OPENNDS_CLIENTS ?? 1000);

const blocker = labPrerequisites();
if (blocker) {
  console.log(JSON.stringify({ bench: 'hotspot-authorise', skipped: blocker }));
  process.exit(process.env.BENCH_STRICT ? 1 : 0);
}

const lab = await createHotspotLab();
const zone = lab.config.zones[0]!;
const bursts: number[] = [];
const firstChunk: number[] = [];
const lastChunk: number[] = [];
let held = { auth: 0, authIp: 0 };
let refused = 0;

/** Authorises clients [from, to) at once; milliseconds until every one is in the data plane. */
async function burst(engine: ReturnType<typeof lab.engine>, from: number, to: number): Promise<number> {
  const grant = { kind: 'onekey' as const, expiresAt: Date.now() + 86_400_000, flowBytes: null, usernum: 0, upKbps: 0, downKbps: 0 };
  const admissions = Array.from({ length: to - from }, (_, i) => ({ client: syntheticClient(from + i), zone, grant }));
  const started = process.hrtime.bigint();
  const outcomes = await engine.admitAll(admissions);
  const took = ms(started);
  refused += outcomes.filter((o) => !o.ok).length;
  return took;
}

/** Logs clients [from, to) in through the portal's path at once; milliseconds until every login answered. */
async function loginBurst(engine: ReturnType<typeof lab.engine>, from: number, to: number): Promise<number> {
  const started = process.hrtime.bigint();
  const outcomes = await Promise.all(
    Array.from({ length: to - from }, (_, i) => engine.login(syntheticClient(from + i), zone, { method: 'onekey' })),
  );
  const took = ms(started);
  refused += outcomes.filter((o) => !o.ok).length;
  return took;
}

const logins: number[] = [];

try {
  for (let run = 0; run < RUNS; run++) {
    // All at once.
    lab.flushClients();
    let engine = lab.engine();
    await engine.start();
    bursts.push(await burst(engine, 0, CLIENTS));
    held = await lab.elementCounts();
    await engine.stop();

    lab.flushClients();
    engine = lab.engine();
    await engine.start();
    logins.push(await loginBurst(engine, 0, CLIENTS));
    await engine.stop();

    // In bursts of a tenth, the set filling up.
    lab.flushClients();
    engine = lab.engine();
    await engine.start();
    for (let chunk = 0; chunk < 10; chunk++) {
      const took = await burst(engine, chunk * CHUNK, (chunk + 1) * CHUNK);
      if (chunk === 0) firstChunk.push(took);
      if (chunk === 9) lastChunk.push(took);
    }
    await engine.stop();
  }
} finally {
  await lab.down();
}

const nds = await measureOpenNds(NDS_CLIENTS, Number(process.env.BENCH_OPENNDS_SECONDS ?? 120));
const oursPerClientMs = median(bursts) / CLIENTS;
const ndsPerClientMs = nds.ok ? nds.perClientMs : undefined;

const pass = report(
  'hotspot-authorise',
  {
    clients: CLIENTS,
    runs: RUNS,
    burst_ms: round(median(bursts)),
    burst_max_ms: round(Math.max(...bursts)),
    login_burst_ms: round(median(logins)),
    chunk_first_ms: round(median(firstChunk)),
    chunk_last_ms: round(median(lastChunk)),
    chunk_ratio: round(median(lastChunk) / median(firstChunk), 2),
    per_client_us: round(oursPerClientMs * 1000, 2),
    elements_held: held.auth,
    elements_missing: CLIENTS - held.auth,
    refused,
    load_average: round(loadavg()[0]!),
    ...(nds.ok
      ? {
          opennds_clients: nds.clients,
          opennds_per_client_ms: round(nds.perClientMs, 2),
          opennds_authorised: nds.authorised,
          opennds_populate_s: round(nds.populateSeconds),
          // How many times faster ours is per client; reported as its inverse so the budget reads "at most".
          speedup_vs_opennds: round(ndsPerClientMs! / oursPerClientMs, 0),
          opennds_relative_cost: Number((oursPerClientMs / ndsPerClientMs!).toFixed(5)),
        }
      : {
          opennds_error: nds.error,
          // No call came back: openNDS took at least the timeout per client, so ours is at
          // least that many times faster, and the budget is held against that floor.
          ...(nds.perClientMsAtLeast
            ? {
                opennds_per_client_ms_at_least: nds.perClientMsAtLeast,
                speedup_vs_opennds_at_least: round(nds.perClientMsAtLeast / oursPerClientMs, 0),
                opennds_relative_cost: Number((oursPerClientMs / nds.perClientMsAtLeast).toFixed(8)),
              }
            : {}),
        }),
  },
  {
    burst_ms: 100,
    chunk_ratio: 1.5,
    refused: 0,
    elements_missing: 0,
    ...(nds.ok || nds.perClientMsAtLeast ? { opennds_relative_cost: 0.01 } : {}),
  },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
