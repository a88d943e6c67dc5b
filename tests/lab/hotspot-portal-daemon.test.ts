import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, inNs, SERVER_ADDRESS, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { LabDaemon, until } from './lab-daemon.js';
import { iperfKbit, startIperfServers, waitForIperf, type IperfServers } from './qos-iperf.js';

/**
 * The hotspot end to end on the built daemon (linux driver, nft data plane) in the lab's
 * gateway namespace, configured through the admin API like an administrator would, with real
 * clients behind it: the portal listener, DNS rules, white list, voucher and local-user
 * logins, plan speed limits (iperf3), quotas, usernum, a daemon restart, RFC 8908 and DHCP
 * option 114, and a portal login in Chromium run inside a client namespace.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const REPO = resolve(import.meta.dirname, '../..');
const PORTAL = 'http://192.168.11.1:2050';
const ALLOWED = '192.0.2.81';
const OTHER = '192.0.2.82';
const SPEED_KBPS = 4096;
const IPERF_PORT = 5301;

let lab: Lab;
let gw: LabDaemon;
const servers: ChildProcess[] = [];
let iperf: IperfServers | undefined;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-hotspot-'));
let codes: string[] = [];

/** Clients: cl1 is the administrator; cl2…cl5 are hotspot guests with fixed addresses. */
const guest = (n: number) => lab.clients[n]!;
const GUEST_IPS = ['', '192.168.11.20', '192.168.11.21', '192.168.11.22', '192.168.11.23'];

function upstream(): void {
  for (const [address, text] of [
    [SERVER_ADDRESS, 'upstream-ok'],
    [ALLOWED, 'allowed-ok'],
    [OTHER, 'other-ok'],
  ] as const) {
    if (address !== SERVER_ADDRESS) inNs(lab.inet, ['ip', 'addr', 'add', `${address}/32`, 'dev', 'lo']);
    const root = join(work, address);
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'index.html'), `${text}\n`);
    // 3 MB to use up a 1 MB quota with.
    writeFileSync(join(root, 'big.bin'), Buffer.alloc(3_000_000, 7));
    servers.push(spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'httpd', '-f', '-p', `${address}:80`, '-h', root], { stdio: 'ignore' }));
  }
  // An outside resolver: the gateway forwards to it; guests must not reach it directly.
  servers.push(
    spawn(
      'ip',
      ['netns', 'exec', lab.inet, 'dnsmasq', '--no-daemon', '--conf-file=/dev/null', '--no-resolv', '--no-hosts', '--bind-interfaces', `--listen-address=${SERVER_ADDRESS}`,
        '--user=root', '--pid-file=', `--address=/allowed.example/${ALLOWED}`, `--address=/other.example/${OTHER}`],
      { stdio: 'ignore' },
    ),
  );
  iperf = startIperfServers(lab.inet, SERVER_ADDRESS, [IPERF_PORT]);
}

/** An admin write; a change that could cut the administrator off is confirmed at once. */
function write(path: string, body: Record<string, unknown>): any {
  const reply = gw.http('POST', path, body).json;
  if (!reply?.success) throw new Error(`${path}: ${JSON.stringify(reply)}`);
  const token = reply.data?.confirm?.token;
  if (token) expect(gw.http('POST', '/api/sysconf/confirm', { token }).json.success).toBe(true);
  return reply.data;
}

function curl(n: number, args: string[], timeoutS = 4) {
  return inNs(guest(n).ns, ['curl', '-s', '-m', String(timeoutS), ...args], { allowFail: true, timeoutMs: (timeoutS + 3) * 1000 });
}

function portalApi(n: number, path: string, body?: unknown): any {
  const args = body === undefined ? [`${PORTAL}/portal-api/${path}`] : ['-H', 'content-type: application/json', '-d', JSON.stringify(body), `${PORTAL}/portal-api/${path}`];
  const out = curl(n, args).stdout;
  return out ? JSON.parse(out) : undefined;
}

/** Where an HTTP request to the site lands: the body, or the redirect target. */
function visit(n: number, url: string): { status: string; location: string; body: string } {
  const out = curl(n, ['-w', '\n%{http_code} %{redirect_url}', url]).stdout;
  const lines = out.trimEnd().split('\n');
  const [status = '000', location = ''] = (lines.pop() ?? '').split(' ');
  return { status, location, body: lines.join('\n') };
}

const reachesUpstream = (n: number) => visit(n, `http://${SERVER_ADDRESS}/`).body.includes('upstream-ok');

beforeAll(async () => {
  lab = createLab({ clients: 5 });
  upstream();
  gw = new LabDaemon(lab);
  await gw.bootAndSignIn();
  for (let n = 1; n < 5; n++) {
    inNs(guest(n).ns, ['ip', 'addr', 'replace', `${GUEST_IPS[n]}/24`, 'dev', guest(n).ifname]);
    inNs(guest(n).ns, ['ip', 'route', 'replace', 'default', 'via', '192.168.11.1']);
  }
  write('/api/network', {
    action: 'add', ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static',
    ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1', dns: [SERVER_ADDRESS],
  });
  write('/api/auth/tariff', { action: 'add', name: 'fast4m', flow: 0, effecttime: 0, effectunit: 'hours', upspeed: SPEED_KBPS, downspeed: SPEED_KBPS });
  write('/api/auth/tariff', { action: 'add', name: 'tiny', flow: 1, effecttime: 0, effectunit: 'hours', upspeed: 0, downspeed: 0 });
  write('/api/auth/userauth', { action: 'add', username: 'alice', password: 'Alice2025', confirm: 'Alice2025', model: 'fast4m', usernum: 1 });
  write('/api/auth/userauth', { action: 'add', username: 'bob', password: 'Bobby2025', confirm: 'Bobby2025', model: 'tiny', usernum: 1 });
  write('/api/auth/whitelist', { action: 'add', type: 'url', value: 'allowed.example' });
  const portal = gw.http('GET', '/api/portal').json.data;
  write('/api/portal', { ...portal, methods: ['voucher', 'local'], welcome: 'Lab guest network' });
  codes = write('/api/auth/voucherbatch', { action: 'add', name: 'lab', codelength: 8, amount: 4, validity: 2, unit: 'hours', usernum: 1, plan: '' }).codes;
  write('/api/auth/zone', { action: 'add', name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' });
  // The zone's ruleset part is applied: an unauthorised guest's web request is redirected.
  await until(() => visit(1, `http://${SERVER_ADDRESS}/`).status === '302', 20);
}, 120_000);

afterAll(async () => {
  iperf?.stop();
  for (const server of servers) server.kill('SIGKILL');
  await gw?.dispose();
  lab?.down();
  rmSync(work, { recursive: true, force: true });
});

describe('hotspot on the running daemon', () => {
  test('DHCP offers option 114 with the RFC 8908 API; the API answers captive+json', () => {
    const script = join(work, 'udhcpc.sh');
    writeFileSync(script, `#!/bin/sh\nenv > ${join(work, 'lease-$1.env')}\n`);
    chmodSync(script, 0o755);
    const lease = inNs(guest(4).ns, ['busybox', 'udhcpc', '-i', guest(4).ifname, '-n', '-q', '-f', '-t', '6', '-T', '1', '-O', '114', '-s', script], { allowFail: true, timeoutMs: 20_000 });
    expect(lease.status, lease.stderr).toBe(0);
    const env = readFileSync(join(work, 'lease-bound.env'), 'utf8');
    const url = `${PORTAL}/captive`;
    const hex = Buffer.from(url).toString('hex');
    // busybox names the option by number and gives it in hex unless it knows it.
    expect(env.includes(url) || env.toLowerCase().includes(hex)).toBe(true);
    const captive = curl(4, ['-i', url]).stdout;
    expect(captive).toMatch(/content-type: application\/captive\+json/i);
    const body = JSON.parse(captive.slice(captive.indexOf('{')));
    expect(body).toMatchObject({ captive: true, 'user-portal-url': `${PORTAL}/auth/portal` });
  });

  test('unauthorised: HTTP lands on the real portal, outside DNS and other traffic are dropped, the white list works', () => {
    const landed = visit(1, `http://${SERVER_ADDRESS}/page?x=1`);
    expect(landed.status).toBe('302');
    expect(landed.location).toBe(`${PORTAL}/auth/portal?url=${encodeURIComponent(`http://${SERVER_ADDRESS}/page?x=1`)}`);
    // The redirect target is the portal app served by the daemon's portal listener.
    const page = visit(1, landed.location);
    expect(page.status).toBe('200');
    expect(page.body).toContain('<div id="portal"');
    expect(portalApi(1, 'state').data).toMatchObject({ authorized: false, zone: { welcome: 'Lab guest network', methods: ['voucher', 'local'] } });

    const outside = inNs(guest(1).ns, ['busybox', 'nslookup', 'other.example', SERVER_ADDRESS], { allowFail: true, timeoutMs: 8000 });
    expect(outside.stdout).not.toContain(OTHER);
    const ping = inNs(guest(1).ns, ['ping', '-c', '1', '-W', '1', SERVER_ADDRESS], { allowFail: true, timeoutMs: 4000 });
    expect(ping.status).not.toBe(0);
    const tcp = curl(1, [`http://${OTHER}:8443/`], 2);
    expect(tcp.status).not.toBe(0);

    // The gateway's resolver answers, and a white-listed name is reachable before login.
    const local = inNs(guest(1).ns, ['busybox', 'nslookup', 'allowed.example', '192.168.11.1'], { allowFail: true, timeoutMs: 8000 });
    expect(local.stdout).toContain(ALLOWED);
    expect(curl(1, ['--resolve', `allowed.example:80:${ALLOWED}`, 'http://allowed.example/']).stdout).toContain('allowed-ok');
    const other = inNs(guest(1).ns, ['busybox', 'nslookup', 'other.example', '192.168.11.1'], { allowFail: true, timeoutMs: 8000 });
    expect(other.stdout).toContain(OTHER);
    expect(visit(1, `http://${OTHER}/`).status).toBe('302');
  });

  test('voucher login opens the internet; the voucher admits one device', async () => {
    expect(portalApi(1, 'login', { method: 'voucher', code: 'WRONG123', acceptTerms: true })).toEqual({ success: false, msg: 'portal.error.code' });
    const ok = portalApi(1, 'login', { method: 'voucher', code: codes[0], acceptTerms: true });
    expect(ok.success, JSON.stringify(ok)).toBe(true);
    await until(() => reachesUpstream(1), 5);
    expect(visit(2, `http://${SERVER_ADDRESS}/`).status).toBe('302');
    const second = portalApi(2, 'login', { method: 'voucher', code: codes[0], acceptTerms: true });
    expect(second).toEqual({ success: false, msg: 'portal.error.onlineLimit' });
    const captive = JSON.parse(curl(1, [`${PORTAL}/captive`]).stdout);
    expect(captive).toMatchObject({ captive: false });
    expect(captive['seconds-remaining']).toBeGreaterThan(7000);
  });

  test('local-user login opens the internet at the plan speed (±10 %); usernum refuses a second device', async () => {
    const ok = portalApi(2, 'login', { method: 'local', username: 'alice', password: 'Alice2025', acceptTerms: true });
    expect(ok.success, JSON.stringify(ok)).toBe(true);
    await until(() => reachesUpstream(2), 5);
    const refused = portalApi(3, 'login', { method: 'local', username: 'alice', password: 'Alice2025', acceptTerms: true });
    expect(refused).toEqual({ success: false, msg: 'portal.error.onlineLimit' });
    expect(reachesUpstream(3)).toBe(false);

    await waitForIperf(guest(2).ns, SERVER_ADDRESS, IPERF_PORT);
    const down = iperfKbit(guest(2).ns, SERVER_ADDRESS, IPERF_PORT, { reverse: true, seconds: 5 });
    const up = iperfKbit(guest(2).ns, SERVER_ADDRESS, IPERF_PORT, { seconds: 5 });
    for (const measured of [down, up]) {
      expect(measured).toBeGreaterThan(SPEED_KBPS * 0.9);
      expect(measured).toBeLessThan(SPEED_KBPS * 1.1);
    }
  }, 90_000);

  test('reaching the quota cuts the client off and sends it to /notice/expired', async () => {
    const ok = portalApi(3, 'login', { method: 'local', username: 'bob', password: 'Bobby2025', acceptTerms: true });
    expect(ok.success, JSON.stringify(ok)).toBe(true);
    expect(ok.data.bytesRemaining).toBe(1_000_000);
    await until(() => reachesUpstream(3), 5);
    curl(3, ['-o', '/dev/null', `http://${SERVER_ADDRESS}/big.bin`], 10);
    // Counters are read every accounting round (at most 10 s).
    await until(() => visit(3, `http://${SERVER_ADDRESS}/`).status === '302', 25);
    expect(visit(3, `http://${SERVER_ADDRESS}/`).location).toBe(`${PORTAL}/notice/expired`);
    const again = portalApi(3, 'login', { method: 'local', username: 'bob', password: 'Bobby2025', acceptTerms: true });
    expect(again).toEqual({ success: false, msg: 'portal.error.quota' });
  }, 60_000);

  test('a daemon restart keeps authorised clients online and unauthorised ones out', async () => {
    expect(reachesUpstream(1)).toBe(true);
    expect(reachesUpstream(2)).toBe(true);
    await gw.stop();
    gw.start();
    await until(() => gw.http('GET', '/api/changelang').status === 200, 30);
    await until(() => curl(4, [`${PORTAL}/captive`]).stdout.includes('captive'), 20);
    expect(reachesUpstream(1)).toBe(true);
    expect(reachesUpstream(2)).toBe(true);
    expect(visit(3, `http://${SERVER_ADDRESS}/`).status).toBe('302');
    expect(visit(4, `http://${SERVER_ADDRESS}/`).status).toBe('302');
    expect(JSON.parse(curl(2, [`${PORTAL}/captive`]).stdout)).toMatchObject({ captive: false });
  }, 90_000);

  test('Chromium in a client namespace signs in through the portal page with a voucher', () => {
    const result = inNs(guest(4).ns, [process.execPath, join(REPO, 'tests/lab/hotspot-browser-login.mjs')], {
      input: JSON.stringify({ start: `http://${SERVER_ADDRESS}/`, upstream: `http://${SERVER_ADDRESS}/`, code: codes[1], chromium: process.env.PORTICO_CHROMIUM }),
      allowFail: true,
      timeoutMs: 90_000,
    });
    const seen = JSON.parse(result.stdout || '{}');
    expect(seen.error, result.stderr).toBeUndefined();
    expect(seen.landed).toContain(`${PORTAL}/auth/portal?url=`);
    expect(seen.success).toContain('/auth/success');
    expect(seen.after).toContain('upstream-ok');
  }, 120_000);
});
