// A 200 MB log downloaded from the running daemon (sysconf/log, action download), as text and
// as gzip: the file is streamed from disk to the socket, so the daemon's resident memory
// (VmRSS of the real process, /proc/<pid>/status) grows by under 10 MB while it is sent.
// The log is the kernel's file under the simulated system root (the sim driver reads
// <state>/rendered/var/log/kern.log), written here before the daemon starts.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { DAEMON_ENV, DAEMON_NODE_FLAGS } from '../../apps/daemon/launch-flags.mjs';
import { report, reportError } from './bench-util.mjs';

const REPO = resolve(import.meta.dirname, '../..');
const LOG_BYTES = Number(process.env.BENCH_LOG_MB ?? 200) * 1024 * 1024;
const PASSWORD = 'BenchLogs2025pass';

function freePort() {
  return new Promise((done) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

const canConnect = (port) =>
  new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });

const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function writeKernelLog(path) {
  const out = createWriteStream(path);
  const start = Date.now() - 86_400_000;
  let written = 0;
  let i = 0;
  while (written < LOG_BYTES) {
    let chunk = '';
    for (let n = 0; n < 10_000; n++, i++) {
      chunk += `${new Date(start + i * 10).toISOString()} gw kernel: [${(i / 100).toFixed(2).padStart(10)}] e1000e 0000:00:1f.6 eth${i % 4}: NIC Link is ${i % 2 ? 'Up 1000 Mbps Full Duplex' : 'Down'} <host-${i % 997}>\n`;
    }
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return written;
}

class Api {
  cookie = '';
  csrf = '';
  constructor(base) {
    this.base = base;
  }
  async post(path, body) {
    const res = await fetch(`${this.base}/api/${path}?_=${Date.now()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: this.cookie, 'x-csrf-token': this.csrf },
      body: JSON.stringify(body),
    });
    for (const c of res.headers.getSetCookie()) if (c.split(';')[0].includes('_sid=')) this.cookie = c.split(';')[0];
    return res.json();
  }
}

/** Streams a download to nowhere, sampling the daemon's RSS; returns bytes, peak RSS and time. */
async function download(api, pid, ext) {
  const res = await fetch(`${api.base}/api/sysconf/log?name=system&action=download&ext=${ext}&_=${Date.now()}`, { headers: { cookie: api.cookie } });
  if (!res.ok || !res.headers.get('content-disposition')?.includes('attachment')) throw new Error(`download answered ${res.status}`);
  let peak = rssOf(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
  const started = process.hrtime.bigint();
  let bytes = 0;
  let body = Readable.fromWeb(res.body);
  if (ext === 'gz') body = body.pipe(createGunzip());
  for await (const chunk of body) {
    bytes += chunk.length;
    peak = Math.max(peak, rssOf(pid));
  }
  clearInterval(sampler);
  return { bytes, peak, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

let child;
const stateDir = mkdtempSync(join(tmpdir(), 'portico-bench-logs-'));
try {
  mkdirSync(join(stateDir, 'rendered/var/log'), { recursive: true });
  const logBytes = await writeKernelLog(join(stateDir, 'rendered/var/log/kern.log'));
  const port = await freePort();
  const env = {
    ...process.env,
    ...DAEMON_ENV,
    PORTICO_DRIVER: 'sim',
    PORTICO_STATE_DIR: stateDir,
    PORTICO_PORT: String(port),
    PORTICO_PORTAL_PORT: String(await freePort()),
    PORTICO_WIRELESS_PORT: String(await freePort()),
    PORTICO_HOST: '127.0.0.1',
    PORTICO_LOG_LEVEL: 'warn',
  };
  child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, 'apps/daemon/dist/main.mjs'], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = once(child, 'exit').then(() => {
    throw new Error('the daemon exited');
  });
  exited.catch(() => undefined);
  while (!(await canConnect(port))) await Promise.race([new Promise((r) => setTimeout(r, 20)), exited]);
  const api = new Api(`http://127.0.0.1:${port}`);
  const initial = readFileSync(join(stateDir, 'initial-admin-password'), 'utf8').trim();
  const first = await api.post('login', { username: 'admin', password: initial });
  api.csrf = first.data.csrf;
  const changed = await api.post('changepwd', { oldpassword: initial, password: PASSWORD, confirm: PASSWORD });
  if (!changed.success) throw new Error(`password change: ${JSON.stringify(changed)}`);
  api.csrf = changed.data.csrf;
  const idle = rssOf(child.pid);
  // Warm: a page of the log read once (a whole pass over the file), then settled.
  const page = await api.post('sysconf/log', { action: 'get', name: 'system', size: 20 });
  if (!page.success || page.data.items.length !== 20) throw new Error(`page: ${JSON.stringify(page).slice(0, 200)}`);
  await new Promise((r) => setTimeout(r, 1000));
  const beforeGz = rssOf(child.pid);
  const gz = await download(api, child.pid, 'gz');
  await new Promise((r) => setTimeout(r, 1000));
  const before = rssOf(child.pid);
  const text = await download(api, child.pid, 'txt');
  if (text.bytes < logBytes * 0.9 || gz.bytes !== text.bytes) throw new Error(`downloads of ${text.bytes} and ${gz.bytes} bytes for a log of ${logBytes}`);
  report(
    'logs-download',
    {
      log_mb: mb(logBytes),
      download_mb: mb(text.bytes),
      entries: page.data.total,
      rss_idle_mb: mb(idle),
      rss_before_mb: mb(beforeGz),
      txt_rss_growth_mb: mb(text.peak - before),
      gz_rss_growth_mb: mb(gz.peak - beforeGz),
      txt_mb_per_s: Math.round(mb(text.bytes) / text.seconds),
      gz_mb_per_s: Math.round(mb(gz.bytes) / gz.seconds),
      load_average_1m: Math.round(loadavg()[0] * 10) / 10,
    },
    { txt_rss_growth_mb: 10, gz_rss_growth_mb: 10 },
  );
} catch (error) {
  reportError('logs-download', error);
  process.exitCode = 1;
} finally {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  rmSync(stateDir, { recursive: true, force: true });
}
