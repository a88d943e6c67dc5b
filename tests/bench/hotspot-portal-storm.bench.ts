// Portal storm: 200 clients (each its own MAC and address on the LAN) logging in with vouchers
// at 50 logins/s for 60 s against the portal listener (POST /portal-api/login), which runs with
// the hotspot engine, the voucher store and the nftables data plane in its own process in the
// gateway namespace, as in the daemon. Budgets: p99 < 1 s, 0 errors, RSS growth of that process
// < 20 MB over the storm. Then 100,000 voucher guesses against the same engine and store:
// 0 successes, (a) from the 200 clients (the guessing limit refuses most) and (b) each from a
// new identity (nothing but the size of the code space stands in the way).
// This is the long one of the hotspot benchmarks (about 90 s).
//
// The bundled file plays three parts: the bench (no argument), `portal-server` (in the gateway
// namespace) and `load` (in the client namespace).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { voucherBatchInput } from '@portico/schema';
import { runCommand } from '../../apps/daemon/src/engine/command-runner.js';
import { openDatabase } from '../../apps/daemon/src/plugins/db-open.js';
import { VoucherStore } from '../../apps/daemon/src/domains/voucher/voucher-store.js';
import { generateVoucherCode } from '../../apps/daemon/src/domains/voucher/voucher-codes.js';
import { NftDataplane, SimDataplane, type HotspotDataplane } from '../../apps/daemon/src/domains/hotspot/hotspot-dataplane.js';
import { HotspotEngine, type HotspotCredentials } from '../../apps/daemon/src/domains/hotspot/hotspot-engine.js';
import { hotspotConfigOf } from '../../apps/daemon/src/domains/hotspot/hotspot-config.js';
import { linuxNeighbours } from '../../apps/daemon/src/domains/hotspot/hotspot-neighbours.js';
import { buildPortalServer } from '../../apps/daemon/src/domains/hotspot/hotspot-portal.js';
import { LOGIN_ERRORS } from '../../apps/daemon/src/domains/hotspot/hotspot-types.js';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';
import { labPrerequisites } from '../lab/lab-packages.js';
import { median, report } from './bench-util.mjs';
import { createHotspotLab, hotspotSnapshot, LAN_GATEWAY, macvlanClients, round } from './hotspot-bench-lab.js';

const CLIENTS = Number(process.env.BENCH_PORTAL_CLIENTS ?? 200);
const RATE = Number(process.env.BENCH_PORTAL_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_PORTAL_SECONDS ?? 60);
const GUESSES = Number(process.env.BENCH_PORTAL_GUESSES ?? 100_000);
/** Live vouchers the guesses are up against. */
const LIVE_VOUCHERS = 1000;
/** Longest a guessing round may take. */
const GUESS_SECONDS = Number(process.env.BENCH_PORTAL_GUESS_SECONDS ?? 30);
const PORTAL_PORT = 2050;

const config = hotspotConfigOf(hotspotSnapshot(['voucher']));
const zone = config.zones[0]!;

/** The voucher store as the portal's credentials: a redemption grants the voucher's validity. */
function voucherCredentials(store: VoucherStore): HotspotCredentials {
  return {
    verifyLocalUser: async () => ({ ok: false, error: LOGIN_ERRORS.userOrPassword }),
    async redeemVoucher(code, device) {
      const result = store.redeemVoucher(code, device.mac, Date.now());
      if (!result.ok) return { ok: false, error: result.reason === 'code' ? LOGIN_ERRORS.code : result.reason === 'expired' ? LOGIN_ERRORS.expired : LOGIN_ERRORS.onlineLimit };
      const v = result.voucher;
      return { ok: true, grant: { account: v.id, plan: v.plan || undefined, expiresAt: v.expiresAt, flowBytes: null, usernum: v.usernum, upKbps: 0, downKbps: 0 } };
    },
  };
}

function voucherStore(dir: string): { store: VoucherStore; codes: string[] } {
  const store = new VoucherStore(openDatabase(join(dir, 'portico.db')), randomBytes(32), Date.now);
  const codes: string[] = [];
  for (let made = 0; made < LIVE_VOUCHERS; made += 200) {
    codes.push(...store.createBatch(voucherBatchInput.parse({ name: `b${made}`, amount: 200, validity: 1, unit: 'days', usernum: 1 })).codes);
  }
  return { store, codes };
}

function engineWith(dataplane: HotspotDataplane, store: VoucherStore): HotspotEngine {
  return new HotspotEngine({ dataplane, config: () => config, credentials: voucherCredentials(store) });
}

// ---- portal-server: the portal listener, in the gateway namespace --------------------------------

async function portalServer(): Promise<void> {
  const dir = process.argv[3]!;
  const { store, codes } = voucherStore(dir);
  const engine = engineWith(new NftDataplane(runCommand), store);
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>portal</title>\n');
  const portal = await buildPortalServer({
    engine,
    portalPort: PORTAL_PORT,
    portalDir: dir,
    neighbours: linuxNeighbours(runCommand),
    zoneFor: (ip) => (ip.startsWith('192.168.') ? { zone, gateway: LAN_GATEWAY } : null),
    notices: () => ({ local: '', expired: '', renewUrl: '' }),
    logLevel: 'warn',
  });
  await engine.start();
  engine.startTimers();
  await portal.listen({ port: PORTAL_PORT, host: '0.0.0.0' });
  process.stdout.write(`${JSON.stringify({ ready: true, codes })}\n`);
  process.once('SIGTERM', () => {
    void portal
      .close()
      .then(() => engine.stop())
      .finally(() => process.exit(0));
  });
}

// ---- load: the clients, in the client namespace ------------------------------------------------

interface LoadPlan {
  gateway: string;
  clients: Array<{ ip: string; code: string }>;
  rate: number;
  seconds: number;
}

function login(gateway: string, ip: string, code: string): Promise<{ ms: number; ok: boolean; why?: string }> {
  const body = JSON.stringify({ method: 'voucher', code, acceptTerms: true });
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = http.request(
      { host: gateway, port: PORTAL_PORT, path: '/portal-api/login', method: 'POST', localAddress: ip, agent: false, timeout: 10_000, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          let success = false;
          try {
            success = (JSON.parse(text) as { success?: boolean }).success === true;
          } catch {
            /* not JSON: counted as an error below */
          }
          resolve({ ms, ok: res.statusCode === 200 && success, why: success ? undefined : `${res.statusCode} ${text.slice(0, 120)}` });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, ok: false, why: String((e as NodeJS.ErrnoException).code ?? e.message) }));
    req.end(body);
  });
}

async function load(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const plan = JSON.parse(Buffer.concat(chunks).toString()) as LoadPlan;
  const total = plan.rate * plan.seconds;
  const results: Array<Promise<{ ms: number; ok: boolean; why?: string }>> = [];
  const started = Date.now();
  // An open loop: requests leave on schedule whether or not earlier ones answered.
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / plan.rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const client = plan.clients[i % plan.clients.length]!;
    results.push(login(plan.gateway, client.ip, client.code));
  }
  const done = await Promise.all(results);
  const ms = done.map((d) => d.ms).sort((a, b) => a - b);
  const errors = done.filter((d) => !d.ok);
  process.stdout.write(
    JSON.stringify({
      logins: done.length,
      seconds: (Date.now() - started) / 1000,
      p50_ms: ms[Math.floor(ms.length / 2)],
      p99_ms: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)],
      max_ms: ms.at(-1),
      errors: errors.length,
      first_error: errors[0]?.why,
    }),
  );
}

// ---- the bench ----------------------------------------------------------------------------------

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** 100,000 guesses of 8-symbol codes; `fresh`: each from a new MAC and address. */
async function guess(store: VoucherStore, fresh: boolean): Promise<{ successes: number; refusedByLimit: number; checked: number; seconds: number }> {
  const engine = engineWith(new SimDataplane(), store);
  let successes = 0;
  let refusedByLimit = 0;
  let made = 0;
  const started = Date.now();
  // Bounded in time: the guessing limit's own bookkeeping grows with the number of sources.
  for (let i = 0; i < GUESSES && Date.now() - started < GUESS_SECONDS * 1000; i++, made++) {
    const n = fresh ? i : i % CLIENTS;
    const hex = (v: number) => v.toString(16).padStart(2, '0');
    const client = { mac: `02:6e:00:${hex((n >> 16) & 255)}:${hex((n >> 8) & 255)}:${hex(n & 255)}`, ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
    const outcome = await engine.login(client, zone, { method: 'voucher', code: generateVoucherCode(8) });
    if (outcome.ok) successes += 1;
    else if (outcome.error === LOGIN_ERRORS.tooMany) refusedByLimit += 1;
  }
  return { successes, refusedByLimit, checked: made - refusedByLimit, seconds: (Date.now() - started) / 1000 };
}

async function bench(): Promise<void> {
  const blocker = labPrerequisites();
  if (blocker) {
    console.log(JSON.stringify({ bench: 'hotspot-portal-storm', skipped: blocker }));
    process.exit(process.env.BENCH_STRICT ? 1 : 0);
  }
  const lab = await createHotspotLab({ methods: ['voucher'] });
  const gw = lab.gateway.lab.gw;
  const clientNs = lab.gateway.lab.clients[0]!;
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-portal-'));
  const self = process.argv[1]!;
  const hex = (v: number) => v.toString(16).padStart(2, '0');
  const clients = Array.from({ length: CLIENTS }, (_, i) => ({ mac: `02:5c:00:00:${hex(i >> 8)}:${hex(i & 255)}`, ip: `192.168.${20 + ((i + 1) >> 8)}.${(i + 1) & 255}` }));
  macvlanClients(clientNs.ns, clientNs.ifname, LAN_GATEWAY, clients);

  const server = spawn('ip', ['netns', 'exec', gw, process.execPath, ...DAEMON_NODE_FLAGS, self, 'portal-server', dir], {
    env: { ...process.env, ...DAEMON_ENV },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let figures: Record<string, unknown> = {};
  try {
    const first = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: server.stdout! });
      lines.once('line', resolve);
      server.once('exit', (code) => reject(new Error(`portal server exited (${code})`)));
      setTimeout(() => reject(new Error('portal server did not start within 60 s')), 60_000).unref();
    });
    const { codes } = JSON.parse(first) as { codes: string[] };
    const runLoad = (rate: number, seconds: number) =>
      new Promise<Record<string, number | string>>((resolve, reject) => {
        const child = spawn('ip', ['netns', 'exec', clientNs.ns, process.execPath, self, 'load'], { stdio: ['pipe', 'pipe', 'inherit'] });
        let out = '';
        child.stdout!.on('data', (c) => (out += c));
        child.once('exit', () => {
          try {
            resolve(JSON.parse(out) as Record<string, number | string>);
          } catch {
            reject(new Error(`load generator gave no result: ${out.slice(0, 200)}`));
          }
        });
        child.stdin!.end(JSON.stringify({ gateway: LAN_GATEWAY, clients: clients.map((c, i) => ({ ip: c.ip, code: codes[i]! })), rate, seconds } satisfies LoadPlan));
      });

    // Warm-up: every client signs in once (first redemption, first neighbour entry).
    const warm = await runLoad(RATE, Math.ceil(CLIENTS / RATE));
    // Memory kept, not the moment a sample happens to fall on: RSS swings by tens of MB between
    // collections under load, and V8 gives memory back only once the process has been idle a
    // while. Each end is the median of the last five of fifteen samples a second apart.
    const settledRss = async () => {
      const taken: number[] = [];
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        taken.push(rssMb(server.pid!));
      }
      return median(taken.slice(-5));
    };
    const rssStart = await settledRss();
    const samples: number[] = [rssStart];
    const sampler = setInterval(() => samples.push(rssMb(server.pid!)), 1000);
    const storm = await runLoad(RATE, SECONDS);
    clearInterval(sampler);
    const rssEnd = await settledRss();
    const online = await lab.elementCounts();

    const { store } = voucherStore(dir + '-guess');
    const fromClients = await guess(store, false);
    const fresh = await guess(store, true);
    rmSync(dir + '-guess', { recursive: true, force: true });

    figures = {
      clients: CLIENTS,
      rate_per_s: RATE,
      seconds: SECONDS,
      warmup_errors: warm.errors,
      logins: storm.logins,
      p50_ms: round(Number(storm.p50_ms)),
      p99_ms: round(Number(storm.p99_ms)),
      max_ms: round(Number(storm.max_ms)),
      errors: storm.errors,
      ...(storm.first_error ? { first_error: storm.first_error } : {}),
      authorised_held: online.auth,
      rss_start_mb: round(rssStart),
      rss_end_mb: round(rssEnd),
      rss_peak_mb: round(Math.max(...samples, rssEnd)),
      rss_median_mb: round(median(samples)),
      rss_growth_mb: round(rssEnd - rssStart),
      guesses: GUESSES,
      guess_successes: fromClients.successes,
      guesses_refused_by_limit: fromClients.refusedByLimit,
      guesses_made: fromClients.checked + fromClients.refusedByLimit,
      guesses_checked: fromClients.checked,
      guess_seconds: round(fromClients.seconds),
      fresh_identity_guess_successes: fresh.successes,
      fresh_identity_guesses_checked: fresh.checked,
      fresh_identity_guess_seconds: round(fresh.seconds),
      fresh_identity_guesses_per_s: Math.round(fresh.checked / fresh.seconds),
    };
  } finally {
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    await lab.down();
    rmSync(dir, { recursive: true, force: true });
  }
  const pass = report('hotspot-portal-storm', figures, {
    p99_ms: 999,
    errors: 0,
    rss_growth_mb: 20,
    guess_successes: 0,
    fresh_identity_guess_successes: 0,
  });
  process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
}

const role = process.argv[2];
if (role === 'portal-server') await portalServer();
else if (role === 'load') await load();
else await bench();
