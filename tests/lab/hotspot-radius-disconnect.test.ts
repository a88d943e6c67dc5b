import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, inNs, SERVER_ADDRESS, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { LabDaemon, until } from './lab-daemon.js';
import { AUTH_SET, HOTSPOT_TABLE } from '../../apps/daemon/src/domains/hotspot/hotspot-dataplane.js';
import { freeradiusPrerequisites, radclient, startFreeRadius, type FreeRadius } from '../support/freeradius-peer.js';

/**
 * RADIUS on the built daemon (linux driver, nft data plane) in the lab's gateway namespace,
 * with FreeRADIUS on that namespace's loopback: a guest signs in on a `radius` zone's portal
 * and reaches the internet; radclient's Disconnect-Request is acknowledged and the guest's
 * traffic stops at once; the accounting Stop reaches FreeRADIUS's detail file. The request
 * comes over the WAN from a configured server's address (the ruleset lets it reach the offline
 * port); one from a LAN client is dropped.
 */
const blocker = labPrerequisites() ?? freeradiusPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const PORTAL = 'http://192.168.11.1:2050';
const DAE_PORT = 3799;
const GUEST_IP = '192.168.11.20';
const WAN_PEER = '198.51.100.1';
const WAN_ADDRESS = '198.51.100.2';
let lab: Lab;
let gw: LabDaemon;
let fr: FreeRadius;
let http: ChildProcess | undefined;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-radius-'));

function write(path: string, body: Record<string, unknown>): any {
  const reply = gw.http('POST', path, body).json;
  if (!reply?.success) throw new Error(`${path}: ${JSON.stringify(reply)}`);
  const token = reply.data?.confirm?.token;
  if (token) expect(gw.http('POST', '/api/sysconf/confirm', { token }).json.success).toBe(true);
  return reply.data;
}
const guest = () => lab.clients[1]!;
const curl = (args: string[], timeoutS = 3) => inNs(guest().ns, ['curl', '-s', '-m', String(timeoutS), ...args], { allowFail: true, timeoutMs: (timeoutS + 3) * 1000 });
const reachesUpstream = () => curl([`http://${SERVER_ADDRESS}/`]).stdout.includes('upstream-ok');

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  writeFileSync(join(work, 'index.html'), 'upstream-ok\n');
  http = spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'httpd', '-f', '-p', `${SERVER_ADDRESS}:80`, '-h', work], { stdio: 'ignore' });
  fr = await startFreeRadius([{ name: 'dora', password: 'Dora-pass-1', reply: ['Session-Timeout = 3600', 'WISPr-Bandwidth-Max-Down = 8000000'] }], { netns: lab.gw });
  gw = new LabDaemon(lab);
  await gw.bootAndSignIn();
  inNs(guest().ns, ['ip', 'addr', 'replace', `${GUEST_IP}/24`, 'dev', guest().ifname]);
  inNs(guest().ns, ['ip', 'route', 'replace', 'default', 'via', '192.168.11.1']);
  write('/api/network', { action: 'add', ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1', dns: [SERVER_ADDRESS] });
  // The second server's address is the upstream side's: the Disconnect-Request comes from the WAN.
  write('/api/auth/radius', { enabled: true, radiusip: '127.0.0.1', radiusip2: WAN_PEER, sharekey: fr.secret, authport: fr.authPort, accoutport: fr.acctPort, nasid: 'lab-gw', offlineport: DAE_PORT, timeout: 2, retries: 1 });
  write('/api/auth/zone', { action: 'add', name: 'staff', ifname: 'lan', authmodel: 'radius', authtime: 1, authtime_unit: 'days' });
  await until(() => curl(['-o', '/dev/null', '-w', '%{http_code}', `http://${SERVER_ADDRESS}/`]).stdout === '302', 20);
}, 180_000);

afterAll(async () => {
  http?.kill('SIGKILL');
  await gw?.dispose();
  await fr?.stop();
  lab?.down();
  rmSync(work, { recursive: true, force: true });
});

describe('RADIUS on the running daemon', () => {
  test('sign-in through FreeRADIUS opens the internet; a Disconnect-Request closes it before the ACK', async () => {
    expect(reachesUpstream()).toBe(false);
    const wrong = JSON.parse(curl(['-H', 'content-type: application/json', '-d', JSON.stringify({ method: 'local', username: 'dora', password: 'nope', acceptTerms: true }), `${PORTAL}/portal-api/login`]).stdout);
    expect(wrong).toMatchObject({ success: false, msg: 'portal.error.userOrPassword' });
    const login = JSON.parse(curl(['-H', 'content-type: application/json', '-d', JSON.stringify({ method: 'local', username: 'dora', password: 'Dora-pass-1', acceptTerms: true }), `${PORTAL}/portal-api/login`]).stdout);
    expect(login).toMatchObject({ success: true, data: { secondsRemaining: 3600 } });
    await until(() => reachesUpstream(), 10);
    await until(() => fr.detail().some((r) => r['User-Name'] === 'dora' && r['Acct-Status-Type'] === 'Start'), 10);
    const sid = fr.detail().find((r) => r['User-Name'] === 'dora')!['Acct-Session-Id'];

    // CoA with a new Session-Timeout: the kernel's element carries the new time-out, the guest stays on.
    const coa = await radclient(DAE_PORT, 'coa', fr.secret, `User-Name=dora,Session-Timeout=120`, lab.gw);
    expect(coa.output).toMatch(/CoA-ACK/);
    const element = inNs(lab.gw, ['nft', 'list', 'set', ...HOTSPOT_TABLE.split(' '), AUTH_SET]).stdout.split('\n').join(' ');
    expect(element).toMatch(new RegExp(`${GUEST_IP.replace(/\./g, '\\.')} timeout 2m`));
    expect(reachesUpstream()).toBe(true);

    // From the WAN: the ruleset lets the configured servers reach the offline port, no one else.
    const stranger = await radclient(DAE_PORT, 'disconnect', fr.secret, `User-Name=dora`, lab.clients[0]!.ns, '192.168.11.1');
    expect(stranger.output).not.toMatch(/Disconnect-(ACK|NAK)/);
    expect(reachesUpstream()).toBe(true);
    const cut = await radclient(DAE_PORT, 'disconnect', fr.secret, `User-Name=dora,Acct-Session-Id=${sid}`, lab.inet, WAN_ADDRESS);
    expect(cut.output).toMatch(/Disconnect-ACK/);
    // The ACK came after the data plane dropped the client: its very next request is redirected.
    expect(curl(['-o', '/dev/null', '-w', '%{http_code}', `http://${SERVER_ADDRESS}/`]).stdout).toBe('302');
    expect(reachesUpstream()).toBe(false);
    await until(() => fr.detail().some((r) => r['Acct-Session-Id'] === sid && r['Acct-Status-Type'] === 'Stop' && r['Acct-Terminate-Cause'] === 'Admin-Reset'), 10);
  });
});
