import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, curlIn, inNs, SERVER_ADDRESS, setClientAddress, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { LabDaemon, until } from './lab-daemon.js';
import { uamChapResponse } from '../../apps/daemon/src/domains/hotspot/rusystem/rusystem-uam.js';

/**
 * CMCC and RU system CHAP sign-in on the built daemon (linux driver, nft data plane) in the lab's gateway
 * namespace: the carrier's portal server sits upstream (the inet namespace, on the WAN link) and
 * speaks to the access controller on the gateway's WAN address through the firewall; the guest
 * behind the gateway reaches the internet once the portal server's CHAP answer for a local account
 * is accepted, not before, and not with a wrong password; a burst of wrong answers from twelve
 * addresses at once locks the account. Then the zone signs in through the RU system (UAM): a
 * second guest's CHAP logon on the portal listener, wrong then right, with the challenge of its
 * captive redirect.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const PEER = join(import.meta.dirname, 'hotspot-cmcc-peer.mjs');
const GUEST_IP = '192.168.11.20';
const PORTAL_SERVER = '198.51.100.1';
const WAN_ADDRESS = '198.51.100.2';
const AC_PORT = 2000;
const ZONE = { name: 'carrier', ifname: 'lan', authtime: 1, authtime_unit: 'days' };
const UAM_SECRET = 'lab-uam-secret';
let zoneId = '';
let lab: Lab;
let gw: LabDaemon;
let http: ChildProcess | undefined;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-cmcc-'));

const write = (path: string, body: Record<string, unknown>) => gw.write(path, body);
const curl = (args: string[]) => curlIn(lab.clients[1]!.ns, args);
const reachesUpstream = () => curl([`http://${SERVER_ADDRESS}/`]).stdout.includes('upstream-ok');

interface PeerResult {
  challenge?: number;
  auth?: number;
  text?: string | null;
}

/** One sign-in by the portal server in the upstream namespace, run as its own process. */
function portalServer(userIp: string, username: string, password: string, method: 'chap' | 'pap' = 'chap'): Promise<PeerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', lab.inet, process.execPath, PEER, WAN_ADDRESS, String(AC_PORT), userIp, username, password, method], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as PeerResult) : reject(new Error(`portal server peer: ${err}`))));
  });
}

beforeAll(async () => {
  lab = createLab({ clients: 3 });
  writeFileSync(join(work, 'index.html'), 'upstream-ok\n');
  http = spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'httpd', '-f', '-p', `${SERVER_ADDRESS}:80`, '-h', work], { stdio: 'ignore' });
  gw = new LabDaemon(lab);
  await gw.bootAndSignIn();
  setClientAddress(lab, 1, GUEST_IP);
  write('/api/network', { action: 'add', ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: WAN_ADDRESS, netmask: '255.255.255.0', gateway: PORTAL_SERVER, dns: [SERVER_ADDRESS] });
  for (const [username, password] of [['alice', 'AlicePass1'], ['carol', 'CarolPass1']]) {
    write('/api/auth/userauth', { action: 'add', username, password, confirm: password, usernum: 0 });
  }
  // The carrier's portal page on the portal server itself: outside portals' servers are white-listed,
  // so it must not be the upstream server the guest's access is tested against.
  write('/api/auth/cmcc', { cmccurl: `http://${PORTAL_SERVER}/portal`, cmccip: PORTAL_SERVER, wlanacip: WAN_ADDRESS, acname: 'lab-ac', version: '1', acport: AC_PORT, flowcheck: 0 });
  zoneId = write('/api/auth/zone', { ...ZONE, action: 'add', authmodel: 'cmcc' }).id;
  // Captive: the guest is sent to the carrier's portal (and the gateway learns its MAC).
  await until(() => curl(['-o', '/dev/null', '-w', '%{http_code}', `http://${SERVER_ADDRESS}/`]).stdout === '302', 20);
}, 180_000);

afterAll(async () => {
  http?.kill('SIGKILL');
  await gw?.dispose();
  lab?.down();
  rmSync(work, { recursive: true, force: true });
});

describe('CMCC CHAP with local accounts on the running daemon', () => {
  test('the portal server upstream reaches the access controller through the firewall; a wrong CHAP answer is rejected, the right one opens the internet', async () => {
    expect(reachesUpstream()).toBe(false);
    expect(await portalServer(GUEST_IP, 'alice', 'AlicePass2')).toMatchObject({ challenge: 0, auth: 1 });
    expect(reachesUpstream()).toBe(false);
    expect(await portalServer(GUEST_IP, 'alice', 'AlicePass1')).toMatchObject({ challenge: 0, auth: 0 });
    await until(() => reachesUpstream(), 10);
    // The input chain drops what it is not told to take: the controller's port is open to the
    // portal server's address only.
    expect(inNs(lab.gw, ['nft', 'list', 'ruleset']).stdout).toContain(`ip saddr ${PORTAL_SERVER} ip daddr ${WAN_ADDRESS} udp dport ${AC_PORT} accept`);
  });

  test('twelve wrong CHAP answers for one account at once from twelve addresses are all rejected, and the account is locked', async () => {
    const tries = await Promise.all(Array.from({ length: 12 }, (_, i) => portalServer(`192.168.11.${100 + i}`, 'carol', `wrong-${i}`)));
    expect(tries.map((t) => t.auth)).toEqual(tries.map(() => 1));
    // Five wrong guesses lock the account: its right answer is refused from a fresh address.
    expect(await portalServer('192.168.11.120', 'carol', 'CarolPass1')).toMatchObject({ challenge: 0, auth: 1 });
  });
});

describe('RU system CHAP with local accounts on the running daemon', () => {
  const guest2 = () => lab.clients[2]!.ns;
  /** Where a request of the second guest was sent (the UAM server's URL), as its query. */
  const redirected = (url: string) => new URL(curlIn(guest2(), ['-o', '/dev/null', '-w', '%{redirect_url}', url]).stdout).searchParams;
  const logon = (username: string, response: string) => redirected(`http://192.168.11.1:2050/logon?username=${username}&response=${response}`);

  test('a wrong CHAP response is refused with a fresh challenge; the right one signs the guest in', async () => {
    setClientAddress(lab, 2, '192.168.11.21');
    write('/api/auth/rusystem', { authurl: `http://${PORTAL_SERVER}/uam`, uamsecret: UAM_SECRET, nasid: 'lab-gw' });
    write('/api/auth/zone', { ...ZONE, action: 'update', id: zoneId, authmodel: 'rusystem' });
    let captive = new URLSearchParams();
    await until(() => (captive = redirected(`http://${SERVER_ADDRESS}/`)).get('res') === 'notyet', 20);
    const failed = logon('alice', uamChapResponse('AlicePass2', Buffer.from(captive.get('challenge')!, 'hex'), UAM_SECRET));
    expect(failed.get('res')).toBe('failed');
    expect(failed.get('reply')).toBe('portal.error.userOrPassword');
    // (No request of the guest in between: its captive redirect would issue another challenge.)
    const success = logon('alice', uamChapResponse('AlicePass1', Buffer.from(failed.get('challenge')!, 'hex'), UAM_SECRET));
    expect(success.get('res')).toBe('success');
    await until(() => curlIn(guest2(), [`http://${SERVER_ADDRESS}/`]).stdout.includes('upstream-ok'), 10);
  });
});
