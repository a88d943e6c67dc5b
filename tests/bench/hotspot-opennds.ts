// openNDS (Debian's `opennds`, 9.x) authorising clients with `ndsctl auth`, for comparison with
// the hotspot engine. It runs in namespaces of its own: a gateway with a bridge it manages and a
// client namespace in which every client is a macvlan with its own MAC and address.
// What openNDS needs to run here, found by running it:
// - its firewall is iptables; iptables-nft's rules are refused by this kernel (CHAIN_ADD
//   "Operation not supported"), iptables-legacy works, so a PATH shim points it there;
// - it only knows clients that asked its own web server first, and only addresses that a DHCP
//   server leased (it reads /tmp/dhcp.leases): each client makes one request to it, with a
//   lease written for it.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inNs, run } from '../lab/lab-topology.js';
import { macvlanClients } from './hotspot-bench-lab.js';

export type OpenNdsResult =
  | { ok: true; clients: number; authorised: number; perClientMs: number; populateSeconds: number }
  | {
      ok: false;
      error: string;
      /**
       * When `ndsctl auth` calls ran past the timeout without one succeeding: what openNDS cost
       * per client at least (the timeout), a floor its real figure can only exceed.
       */
      perClientMsAtLeast?: number;
    };

const GATEWAY = '192.168.50.1';
const LEASES = '/tmp/dhcp.leases';
/** Files openNDS keeps in its tmpfs mount point (/tmp). */
const NDS_FILES = ['/tmp/ndscids', '/tmp/ndsctl.lock', '/tmp/ndsctl.sock', '/tmp/ndsdebuglevel'];

function client(i: number) {
  const hex = (v: number) => v.toString(16).padStart(2, '0');
  return { mac: `02:4e:00:00:${hex(i >> 8)}:${hex(i & 255)}`, ip: `192.168.${60 + ((i + 1) >> 8)}.${(i + 1) & 255}` };
}

function ensureIptablesLegacy(): string | null {
  if (existsSync('/usr/sbin/iptables-legacy')) return null;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    run(['apt-get', 'install', '-y', '-qq', 'iptables'], { allowFail: true, timeoutMs: 300_000 });
  }
  return existsSync('/usr/sbin/iptables-legacy') ? null : 'iptables-legacy (Debian package iptables) is missing';
}

/** The client requests, run inside the client namespace: one GET each from its own address. */
const REQUESTER = `
import http from 'node:http';
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const { gateway, ips } = JSON.parse(Buffer.concat(chunks).toString());
const statuses = {};
let queue = ips;
let failed = [];
async function worker() {
  while (queue.length) {
    const ip = queue.shift();
    const status = await new Promise((resolve) => {
      const req = http.get({ host: gateway, port: 2050, path: '/', localAddress: ip, timeout: 10000, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => resolve(String(e.code ?? e.message)));
    });
    if (typeof status === 'number') statuses[status] = (statuses[status] ?? 0) + 1;
    else failed.push(ip), (statuses[status] = (statuses[status] ?? 0) + 1);
  }
}
// A first request can miss while the neighbour entries of a thousand clients settle: retried.
for (let round = 0; round < 4 && queue.length; round++) {
  await Promise.all(Array.from({ length: 8 }, worker));
  queue = failed;
  failed = [];
  if (queue.length) await new Promise((r) => setTimeout(r, 1000));
}
process.stdout.write(JSON.stringify(statuses));
`;

export async function measureOpenNds(count: number, seconds = 120): Promise<OpenNdsResult> {
  if (!existsSync('/usr/bin/opennds') || !existsSync('/usr/bin/ndsctl')) return { ok: false, error: 'openNDS is not installed (Debian package opennds)' };
  const missing = ensureIptablesLegacy();
  if (missing) return { ok: false, error: missing };
  if (existsSync(LEASES)) return { ok: false, error: `${LEASES} exists already; openNDS reads its leases there and it is not ours to overwrite` };
  const prefix = `nd${randomBytes(2).toString('hex')}`;
  const gw = `${prefix}-gw`;
  const cl = `${prefix}-cl`;
  const work = mkdtempSync(join(tmpdir(), 'portico-bench-opennds-'));
  const created: string[] = [];
  let daemon: ReturnType<typeof spawn> | undefined;
  try {
    for (const ns of [gw, cl]) {
      run(['ip', 'netns', 'add', ns]);
      created.push(ns);
      inNs(ns, ['ip', 'link', 'set', 'lo', 'up']);
    }
    inNs(gw, ['ip', 'link', 'add', 'br0', 'type', 'bridge']);
    inNs(gw, ['ip', 'addr', 'add', `${GATEWAY}/16`, 'dev', 'br0']);
    inNs(gw, ['ip', 'link', 'add', 'p1', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', cl]);
    inNs(gw, ['ip', 'link', 'set', 'p1', 'master', 'br0']);
    for (const dev of ['p1', 'br0']) inNs(gw, ['ip', 'link', 'set', dev, 'up']);
    inNs(cl, ['ip', 'link', 'set', 'eth0', 'up']);
    const clients = Array.from({ length: count }, (_, i) => client(i));
    macvlanClients(cl, 'eth0', GATEWAY, clients);
    const expiry = Math.floor(Date.now() / 1000) + 86_400;
    writeFileSync(LEASES, clients.map((c, i) => `${expiry} ${c.mac} ${c.ip} client${i} *`).join('\n') + '\n');

    const shim = join(work, 'bin');
    run(['mkdir', '-p', shim]);
    for (const tool of ['iptables', 'iptables-save', 'iptables-restore']) symlinkSync(`/usr/sbin/${tool.replace('iptables', 'iptables-legacy')}`, join(shim, tool));
    const conf = join(work, 'opennds.conf');
    writeFileSync(conf, `GatewayInterface br0\nGatewayName bench\nMaxClients ${count + 50}\n`);
    daemon = spawn('ip', ['netns', 'exec', gw, 'opennds', '-f', '-d', '1', '-c', conf], {
      env: { ...process.env, PATH: `${shim}:${process.env.PATH}` },
      stdio: 'ignore',
    });
    let up = false;
    for (let i = 0; i < 60 && !up; i++) {
      await new Promise((r) => setTimeout(r, 500));
      if (daemon.exitCode !== null) return { ok: false, error: `opennds exited during start (code ${daemon.exitCode})` };
      up = spawnSync('ndsctl', ['status'], { encoding: 'utf8', timeout: 10_000 }).stdout?.includes('openNDS Status') ?? false;
    }
    if (!up) return { ok: false, error: 'opennds did not answer ndsctl status within 30 s' };

    const populateStarted = Date.now();
    const asked = inNs(cl, [process.execPath, '--input-type=module', '-e', REQUESTER], {
      input: JSON.stringify({ gateway: GATEWAY, ips: clients.map((c) => c.ip) }),
      timeoutMs: 600_000,
    });
    const populateSeconds = (Date.now() - populateStarted) / 1000;
    // Only the count is read: ndsctl cuts its JSON short with many clients.
    const listing = spawnSync('ndsctl', ['json'], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }).stdout ?? '';
    const known = Number(/"client_list_length":"(\d+)"/.exec(listing)?.[1] ?? 0);
    if (known < count) return { ok: false, error: `openNDS knows ${known} of ${count} clients after their requests (answers: ${asked.stdout})` };

    // ndsctl reaches the daemon over its socket in /tmp: no namespace switch in the figure.
    // With a thousand clients known, one `ndsctl auth` takes tens of seconds here, so the round
    // is bounded in time and the figure is per client over those it got through.
    let authorised = 0;
    let tried = 0;
    let stalled = 0;
    const started = process.hrtime.bigint();
    const elapsedMs = () => Number(process.hrtime.bigint() - started) / 1e6;
    for (const c of clients) {
      if (elapsedMs() > seconds * 1000) break;
      tried += 1;
      const out = spawnSync('ndsctl', ['auth', c.ip], { encoding: 'utf8', timeout: 120_000 });
      if (out.stdout?.includes('authenticated.') && !out.stdout.includes('Failed')) authorised += 1;
      else if (out.error) stalled += 1;
    }
    const totalMs = elapsedMs();
    if (authorised < tried || authorised === 0) {
      const error = `ndsctl auth authorised ${authorised} of the ${tried} clients tried with ${count} known (${stalled} calls ran past 120 s)`;
      return authorised === 0 && stalled > 0 ? { ok: false, error, perClientMsAtLeast: 120_000 } : { ok: false, error };
    }
    return { ok: true, clients: count, authorised, perClientMs: totalMs / authorised, populateSeconds };
  } catch (error) {
    return { ok: false, error: String((error as Error).message ?? error).slice(0, 300) };
  } finally {
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon!.once('exit', r));
      daemon.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (daemon.exitCode === null) daemon.kill('SIGKILL');
    }
    for (const ns of created.reverse()) run(['ip', 'netns', 'del', ns], { allowFail: true });
    for (const file of [LEASES, ...NDS_FILES]) rmSync(file, { force: true, recursive: true });
    rmSync(work, { recursive: true, force: true });
  }
}
