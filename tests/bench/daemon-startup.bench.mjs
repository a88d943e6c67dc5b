// Idle daemon: CPU time and wall time from process start to listening, and resident memory once
// idle. Started the way the product starts it (apps/daemon/launch-flags.mjs).
// Budgets: CPU to listening <= 500 ms, RSS <= 55 MB. Median of several runs. The budget is on
// CPU time (utime + stime of the process, all its threads) because on a shared machine the wall
// time mostly measures the wait for a core; the wall time is printed beside it.
// Two floors are measured the same way, with the same launch options, for comparison:
// Node's bare HTTP server (`node_http_floor_rss_mb`) and the smallest server on the stack the
// daemon is built on, Fastify + pino + zod + better-sqlite3 with one route
// (`stack_floor_rss_mb`, apps/daemon/src/floor/stack-floor-server.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, report, reportError } from './bench-util.mjs';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';

const REPO = resolve(import.meta.dirname, '../..');
// USER_HZ, the unit of /proc/<pid>/stat's times: 100 on Linux for every architecture Node runs on.
const CLOCK_TICKS = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function freePort() {
  return new Promise((done) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

function canConnect(port) {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

/**
 * Resolves once the child listens on `port`; rejects, with its last error output, if it exits
 * first (a daemon that cannot start would otherwise be waited for forever).
 */
function listening(child, port, pollMs, label) {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
  return new Promise((done, fail) => {
    let exited = false;
    child.once('exit', (code, signal) => {
      exited = true;
      // Node's report of an uncaught error: the `Error: …` line says what went wrong.
      const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('Node.js v'));
      const why = lines.find((l) => /^\w*Error\b/.test(l)) ?? lines.at(-1);
      fail(new Error(`${label} exited (${signal ?? `status ${code}`}) before listening${why ? `: ${why}` : ''}`));
    });
    (async () => {
      while (!exited && !(await canConnect(port))) await new Promise((r) => setTimeout(r, pollMs));
      if (!exited) done();
    })();
  });
}

/** CPU time the process has used so far (utime + stime, /proc/<pid>/stat), milliseconds. */
function cpuMsOf(pid) {
  // Fields after the command name, which is in parentheses and may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) * 1024;
}

const DAEMON = ['apps/daemon/dist/main.mjs'];
const STACK_FLOOR = ['apps/daemon/dist/stack-floor-server.mjs'];
const NODE_HTTP_FLOOR = [
  '-e',
  "const s = require('node:http').createServer((q, r) => r.end('{}')); s.listen(Number(process.env.PORTICO_PORT), '127.0.0.1'); process.on('SIGTERM', () => process.exit(0));",
];

const programName = (program) => (program[0] === '-e' ? 'the bare Node HTTP server' : program[0]);

async function once(program) {
  const stateDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const port = await freePort();
  const portalPort = await freePort();
  const wirelessPort = await freePort();
  const env = { ...process.env, ...DAEMON_ENV, PORTICO_STATE_DIR: stateDir, PORTICO_PORT: String(port), PORTICO_PORTAL_PORT: String(portalPort), PORTICO_WIRELESS_PORT: String(wirelessPort), PORTICO_HOST: '127.0.0.1', PORTICO_LOG_LEVEL: 'warn' };
  {
    // Warm state: the first start creates the database and the admin account.
    const first = spawn(process.execPath, [...DAEMON_NODE_FLAGS, ...program], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
    await listening(first, port, 20, programName(program));
    first.kill('SIGTERM');
    await new Promise((r) => first.once('exit', r));
  }
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, ...program], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
  await listening(child, port, 5, programName(program));
  const listenMs = Number(process.hrtime.bigint() - started) / 1e6;
  const listenCpuMs = cpuMsOf(child.pid);
  // Idle: one request has been served (as a console would), then let it settle.
  await fetch(`http://127.0.0.1:${port}/api/changelang`).catch(() => {});
  await new Promise((r) => setTimeout(r, 3000));
  const rss = rssOf(child.pid);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(stateDir, { recursive: true, force: true });
  return { listenMs, listenCpuMs, rss };
}

const runs = [];
const stackFloor = [];
const nodeFloor = [];
try {
  for (let i = 0; i < RUNS; i++) {
    runs.push(await once(DAEMON));
    stackFloor.push(await once(STACK_FLOOR));
    nodeFloor.push((await once(NODE_HTTP_FLOOR)).rss);
  }
} catch (error) {
  reportError('daemon-startup', error);
  process.exit(1);
}
const mb = (values) => Number((median(values) / 1048576).toFixed(1));
const pass = report(
  'daemon-startup',
  {
    runs: RUNS,
    load_average: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    listen_cpu_ms_median: Math.round(median(runs.map((r) => r.listenCpuMs))),
    listen_ms_median: Math.round(median(runs.map((r) => r.listenMs))),
    idle_rss_mb_median: mb(runs.map((r) => r.rss)),
    stack_floor_rss_mb: mb(stackFloor.map((r) => r.rss)),
    stack_floor_cpu_ms: Math.round(median(stackFloor.map((r) => r.listenCpuMs))),
    node_http_floor_rss_mb: mb(nodeFloor),
  },
  { listen_cpu_ms_median: 500, idle_rss_mb_median: 55 },
);
process.exitCode = pass || !process.env.BENCH_STRICT ? 0 : 1;
