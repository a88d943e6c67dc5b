import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, inNs, SERVER_ADDRESS, setClientAddress, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { LabDaemon, until } from './lab-daemon.js';
import { startIperfServers, type IperfServers } from './qos-iperf.js';

/**
 * Behaviour audit and speed test on the built daemon (linux driver) in the gateway namespace.
 * A LAN client fetches from the upstream HTTP server and opens a TLS connection: the URL (Host
 * and path), the server name of the ClientHello and the IP flow are recorded from the data path;
 * a Host of markup is not. Then the WAN is shaped with tc (download 20 Mbit/s on the upstream
 * side, upload 10 Mbit/s on the WAN) and the speed test measures each within 10 %.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const CLIENT = '192.168.11.60';
const IPERF_PORT = 5201;
const DOWN_MBIT = 20;
const UP_MBIT = 10;

let lab: Lab;
let daemon: LabDaemon;
let iperf: IperfServers | undefined;
const servers: ChildProcess[] = [];
const work = mkdtempSync(join(tmpdir(), 'portico-lab-audit-'));

function write(path: string, body: Record<string, unknown>): any {
  const reply = daemon.http('POST', path, body).json;
  if (!reply?.success) throw new Error(`${path}: ${JSON.stringify(reply)}`);
  const token = reply.data?.confirm?.token;
  if (token) expect(daemon.http('POST', '/api/sysconf/confirm', { token }).json.success).toBe(true);
  return reply.data;
}

const client = () => lab.clients[1]!;
const curl = (args: string[], timeoutS = 3) => inNs(client().ns, ['curl', '-s', '-m', String(timeoutS), ...args], { allowFail: true, timeoutMs: (timeoutS + 3) * 1000 });

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  const root = join(work, 'www');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'index.html'), 'upstream-ok\n');
  servers.push(spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'httpd', '-f', '-p', `${SERVER_ADDRESS}:80`, '-h', root], { stdio: 'ignore' }));
  // Port 443 takes the connection; the ClientHello is all the audit reads of it.
  servers.push(spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'nc', '-ll', '-p', '443', '-e', '/bin/cat'], { stdio: 'ignore' }));
  iperf = startIperfServers(lab.inet, SERVER_ADDRESS, [IPERF_PORT]);
  daemon = new LabDaemon(lab);
  await daemon.bootAndSignIn();
  setClientAddress(lab, 1, CLIENT);
  write('/api/network', { action: 'add', ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1', dns: [SERVER_ADDRESS] });
  await until(() => curl([`http://${SERVER_ADDRESS}/`]).stdout.includes('upstream-ok'), 20);
}, 120_000);

afterAll(async () => {
  iperf?.stop();
  for (const server of servers) server.kill('SIGKILL');
  await daemon?.dispose();
  lab?.down();
  rmSync(work, { recursive: true, force: true });
});

describe('behaviour audit', () => {
  test("a LAN client's URL, TLS server name and IP flow are recorded from the data path; a Host of markup is not", async () => {
    write('/api/sysconf/audit', { enabled: true, urls: true, flows: true, disk: '' });
    await until(() => inNs(lab.gw, ['nft', 'list', 'chain', 'inet', 'portico', 'audit_capture'], { allowFail: true }).stdout.includes('log group 4070'), 20);
    const urls = () => (daemon.http('GET', `/api/sysconf/audit/urls?client=${CLIENT}`).json?.data?.items ?? []) as Array<{ host: string; path: string; kind: string; server: string; port: number }>;
    // The readers start with the apply; the first fetches may come before they listen.
    await until(() => {
      curl(['-H', 'Host: audit.example.test', `http://${SERVER_ADDRESS}/lab-path?x=1`]);
      curl(['-H', 'Host: <script>alert(1)</script>', `http://${SERVER_ADDRESS}/hostile`]);
      curl(['-k', '--resolve', `sni.example.test:443:${SERVER_ADDRESS}`, 'https://sni.example.test/'], 1);
      const seen = urls();
      return seen.some((u) => u.host === 'audit.example.test') && seen.some((u) => u.host === 'sni.example.test');
    }, 30);
    const seen = urls();
    expect(seen).toContainEqual(expect.objectContaining({ host: 'audit.example.test', path: '/lab-path?x=1', kind: 'http', server: SERVER_ADDRESS, port: 80 }));
    expect(seen).toContainEqual(expect.objectContaining({ host: 'sni.example.test', path: '', kind: 'tls', server: SERVER_ADDRESS, port: 443 }));
    expect(seen.some((u) => u.path === '/hostile')).toBe(false);
    await until(() => {
      const flows = (daemon.http('GET', `/api/sysconf/audit/flows?client=${CLIENT}`).json?.data?.items ?? []) as Array<{ server: string; port: number; proto: string }>;
      return flows.some((f) => f.server === SERVER_ADDRESS && f.port === 80 && f.proto === 'tcp');
    }, 10);
    const csv = daemon.http('POST', '/api/sysconf/audit/urlexport', { action: 'download', client: CLIENT }).text;
    expect(csv).toContain(`${CLIENT},${SERVER_ADDRESS},80,http,audit.example.test,/lab-path?x=1`);
  }, 90_000);
});

describe('speed test', () => {
  test('download and upload of the shaped WAN within 10 %', async () => {
    inNs(lab.inet, ['tc', 'qdisc', 'replace', 'dev', 'up1', 'root', 'tbf', 'rate', `${DOWN_MBIT}mbit`, 'burst', '64kb', 'latency', '100ms']);
    inNs(lab.gw, ['tc', 'qdisc', 'replace', 'dev', 'wan1', 'root', 'tbf', 'rate', `${UP_MBIT}mbit`, 'burst', '64kb', 'latency', '100ms']);
    write('/api/sysconf/speedtest', { server: SERVER_ADDRESS, port: IPERF_PORT, seconds: 4 });
    const wans = daemon.http('GET', '/api/security/speedtest').json.data.wans as Array<{ name: string; device: string }>;
    expect(wans).toContainEqual({ name: 'wan1', device: 'wan1' });
    write('/api/security/speedtest', { action: 'start', wan: 'wan1' });
    let status: any;
    await until(() => {
      status = daemon.http('GET', '/api/security/speedtest').json.data;
      return status.running === null;
    }, 60);
    expect(status.error).toBeNull();
    const result = status.results[0];
    // The figures beside the shaped rates, for the run's log.
    console.log(JSON.stringify({ shaped_mbit: { download: DOWN_MBIT, upload: UP_MBIT }, measured_mbit: { download: result.download / 1e6, upload: result.upload / 1e6 } }));
    expect(result.download / 1e6).toBeGreaterThan(DOWN_MBIT * 0.9);
    expect(result.download / 1e6).toBeLessThan(DOWN_MBIT * 1.1);
    expect(result.upload / 1e6).toBeGreaterThan(UP_MBIT * 0.9);
    expect(result.upload / 1e6).toBeLessThan(UP_MBIT * 1.1);
  }, 90_000);
});
