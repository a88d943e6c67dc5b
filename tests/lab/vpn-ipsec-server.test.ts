import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import enUsMsg from '../../packages/i18n/src/locales/en-US/msg.json';
import { createLab, inNs, run, setClientAddress, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { LabDaemon, until } from './lab-daemon.js';

/**
 * The IPsec server for real: the built daemon on the linux driver in the gateway namespace runs
 * its one charon; a strongSwan peer in the internet namespace runs another charon with its own
 * strongswan.conf (STRONGSWAN_CONF), vici socket and log, so the two coexist. The peer brings up
 * IKEv2 and then IKEv1 with the gateway; a wrong key and a wrong identity are refused and the
 * status the console shows names the refusal with the §8 message. A network IPsec client of the
 * gateway rides on the same charon beside the server, neither unloading the other. Where this
 * kernel has ESP, traffic flows between the sites' subnets through the tunnels.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const WAN_ADDRESS = '198.51.100.2';
const PEER_ADDRESS = '198.51.100.1';
const LAN_HOST = '192.168.11.60';
const PEER_HOST = '10.99.0.1';
const PSK = 'lab-Shared-key-7';
/** The gateway's own IPsec client to the peer site: its far network and key. */
const CLIENT_PEER_HOST = '10.98.0.1';
const CLIENT_PSK = 'lab-Client-key-8';

/** Whether this kernel can hold an ESP state (CONFIG_INET_ESP): probed in a scratch namespace. */
function kernelHasEsp(): boolean {
  const ns = `ptesp${process.pid}`;
  run(['ip', 'netns', 'add', ns]);
  try {
    const added = run(
      ['ip', 'netns', 'exec', ns, 'ip', 'xfrm', 'state', 'add', 'src', '192.0.2.1', 'dst', '192.0.2.2', 'proto', 'esp', 'spi', '0x100', 'mode', 'tunnel', 'enc', 'cbc(aes)', '0x00112233445566778899aabbccddeeff', 'auth', 'hmac(sha256)', `0x${'11'.repeat(32)}`],
      { allowFail: true },
    );
    return added.status === 0;
  } finally {
    run(['ip', 'netns', 'del', ns], { allowFail: true });
  }
}
const ESP = kernelHasEsp();

let lab: Lab;
let daemon: LabDaemon;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-ipsec-'));
const peerDir = join(work, 'peer');
const peerSocket = join(peerDir, 'charon.vici');
let peer: ChildProcess | undefined;

/** The peer site's charon: its own configuration, socket and log; no pid file (charon-systemd). */
function startPeer(): void {
  mkdirSync(peerDir, { recursive: true });
  writeFileSync(
    join(peerDir, 'strongswan.conf'),
    [
      'charon-systemd {',
      '\tload = random nonce aes sha1 sha2 md5 hmac gmp kdf xcbc pem pkcs1 pubkey x509 kernel-netlink socket-default vici',
      '\tjournal {',
      '\t\tdefault = -1',
      '\t}',
      '}',
      'charon {',
      '\tinstall_routes = no',
      '\ti_dont_care_about_security_and_use_aggressive_mode_psk = yes',
      `\tplugins {\n\t\tvici {\n\t\t\tsocket = unix://${peerSocket}\n\t\t}\n\t}`,
      `\tfilelog {\n\t\tpeer {\n\t\t\tpath = ${join(peerDir, 'charon.log')}\n\t\t\tdefault = 1\n\t\t}\n\t}`,
      '}',
      '',
    ].join('\n'),
  );
  peer = spawn('ip', ['netns', 'exec', lab.inet, 'charon-systemd'], { env: { ...process.env, STRONGSWAN_CONF: join(peerDir, 'strongswan.conf') }, stdio: 'ignore' });
}

function peerSwanctl(args: string[]) {
  return run(['swanctl', ...args, '--uri', `unix://${peerSocket}`], { allowFail: true, timeoutMs: 60_000 });
}

/** The peer's side of the tunnel: version, mode, its key and the identity it shows. */
function loadPeer(options: { version: 1 | 2; psk?: string; localId?: string; aggressive?: boolean; gatewayClient?: boolean }): void {
  const localId = options.localId ?? 'site2.example';
  const conf = [
    'connections {',
    '\tsite {',
    `\t\tversion = ${options.version}`,
    ...(options.aggressive ? ['\t\taggressive = yes'] : []),
    `\t\tlocal_addrs = ${PEER_ADDRESS}`,
    `\t\tremote_addrs = ${WAN_ADDRESS}`,
    `\t\tlocal {\n\t\t\tauth = psk\n\t\t\tid = ${localId}\n\t\t}`,
    '\t\tremote {\n\t\t\tauth = psk\n\t\t\tid = gw.example\n\t\t}',
    '\t\tchildren {\n\t\t\tsite {\n\t\t\t\tlocal_ts = 10.99.0.0/24\n\t\t\t\tremote_ts = 192.168.11.0/24\n\t\t\t\tstart_action = none\n\t\t\t}\n\t\t}',
    '\t}',
    // The responder side of the gateway's own IPsec client (a network VPN client).
    ...(options.gatewayClient
      ? [
          '\tgwclient {',
          '\t\tversion = 2',
          `\t\tlocal_addrs = ${PEER_ADDRESS}`,
          `\t\tremote_addrs = ${WAN_ADDRESS}`,
          '\t\tlocal {\n\t\t\tauth = psk\n\t\t\tid = hq.example\n\t\t}',
          '\t\tremote {\n\t\t\tauth = psk\n\t\t\tid = gwc.example\n\t\t}',
          '\t\tchildren {\n\t\t\tgwclient {\n\t\t\t\tlocal_ts = 10.98.0.0/24\n\t\t\t\tremote_ts = 192.168.11.0/24\n\t\t\t\tstart_action = none\n\t\t\t}\n\t\t}',
          '\t}',
        ]
      : []),
    '}',
    'secrets {',
    `\tike-gw {\n\t\tid-1 = ${localId}\n\t\tid-2 = gw.example\n\t\tsecret = 0x${Buffer.from(options.psk ?? PSK).toString('hex')}\n\t}`,
    ...(options.gatewayClient ? [`\tike-gwc {\n\t\tid-1 = hq.example\n\t\tid-2 = gwc.example\n\t\tsecret = 0x${Buffer.from(CLIENT_PSK).toString('hex')}\n\t}`] : []),
    '}',
    '',
  ].join('\n');
  writeFileSync(join(peerDir, 'swanctl.conf'), conf);
  peerSwanctl(['--terminate', '--ike', 'site', '--force', '--timeout', '5']);
  const loaded = peerSwanctl(['--load-all', '--noprompt', '--file', join(peerDir, 'swanctl.conf')]);
  if (loaded.status !== 0) throw new Error(`peer swanctl --load-all: ${loaded.stdout}${loaded.stderr}`);
}

interface Status {
  running: boolean;
  sas: Array<{ name: string; uniqueId: string; state: string; version: string; peer: string; address: string; since: number | null; rx: number; tx: number }>;
  refusals: Array<{ address: string; msg: string }>;
}
const status = (): Status => daemon.http('GET', '/api/auth/ipsec/status', undefined, 15_000).json?.data ?? { running: false, sas: [], refusals: [] };
const established = () => status().sas.filter((sa) => sa.name === 'site2' && sa.state === 'established');

const gatewayPeer = { name: 'site2', remote_addr: PEER_ADDRESS, local_subnets: '192.168.11.0/24', peer_subnets: '10.99.0.0/24', local_id: 'gw.example', remote_id: 'site2.example' };

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  daemon = new LabDaemon(lab);
  await daemon.bootAndSignIn();
  inNs(lab.gw, ['ip', 'addr', 'add', `${WAN_ADDRESS}/24`, 'dev', 'wan1']);
  // Policy-based IPsec still needs a route to the far subnet for the lookup that finds the policy.
  inNs(lab.gw, ['ip', 'route', 'replace', '10.99.0.0/24', 'via', PEER_ADDRESS]);
  inNs(lab.gw, ['ip', 'route', 'replace', '10.98.0.0/24', 'via', PEER_ADDRESS]);
  setClientAddress(lab, 1, LAN_HOST);
  // The peer site's network: one host address on its loopback (this kernel has no dummy links).
  inNs(lab.inet, ['ip', 'addr', 'add', `${PEER_HOST}/32`, 'dev', 'lo']);
  inNs(lab.inet, ['ip', 'addr', 'add', `${CLIENT_PEER_HOST}/32`, 'dev', 'lo']);
  inNs(lab.inet, ['ip', 'route', 'replace', '192.168.11.0/24', 'via', WAN_ADDRESS]);
  startPeer();
  await until(() => peerSwanctl(['--stats']).status === 0, 20);
}, 120_000);

afterAll(async () => {
  try {
    // Both sides' logs, for reading after a failure.
    writeFileSync(join(tmpdir(), 'portico-lab-ipsec-peer.log'), readFileSync(join(peerDir, 'charon.log'), 'utf8'));
    writeFileSync(join(tmpdir(), 'portico-lab-ipsec-gateway.log'), readFileSync(join(daemon.root, 'var/log/portico/ipsec.log'), 'utf8'));
  } catch {
    // No log: the peer never started.
  }
  peer?.kill('SIGTERM');
  await daemon?.dispose();
  lab?.down();
  rmSync(work, { recursive: true, force: true });
});

const pingPeerSite = (host = PEER_HOST) => inNs(lab.clients[1]!.ns, ['ping', '-c', '1', '-W', '1', host], { allowFail: true }).status;
/** The gateway's one charon, asked directly: every SA on it, the network's clients' too. */
const gatewaySas = () => inNs(lab.gw, ['swanctl', '--list-sas', '--noblock', '--uri', `unix://${daemon.root}/run/portico/ike/charon.vici`], { allowFail: true }).stdout;

describe('IPsec server in the lab', () => {
  test('IKEv2: the peer authenticates, the console lists it with address and bytes, kick-off ends it', async () => {
    const saved = daemon.http('POST', '/api/auth/ipsec', { action: 'add', ...gatewayPeer, ike: 'ikev2', psk: PSK }, 60_000).json;
    expect(saved).toMatchObject({ success: true });
    await expect.poll(() => status().running, { timeout: 30_000, interval: 200 }).toBe(true);
    // The gateway's firewall opens IKE and ESP through the one ruleset.
    const ruleset = inNs(lab.gw, ['nft', 'list', 'ruleset']).stdout;
    expect(ruleset).toContain('udp dport { 500, 4500 } accept');
    expect(ruleset).toContain('meta l4proto esp accept');

    loadPeer({ version: 2 });
    peerSwanctl(['--initiate', '--child', 'site', '--timeout', '20']);
    await expect.poll(() => established().length, { timeout: 30_000, interval: 200 }).toBe(1);
    const sa = established()[0]!;
    expect(sa).toMatchObject({ version: 'IKEv2', peer: 'site2.example', address: PEER_ADDRESS });
    expect(sa.since).toBeGreaterThan(0);
    if (ESP) {
      await expect.poll(pingPeerSite, { timeout: 20_000, interval: 200 }).toBe(0);
      await expect.poll(() => established()[0]?.rx ?? 0, { timeout: 10_000, interval: 200 }).toBeGreaterThan(0);
      expect(inNs(lab.gw, ['ip', 'xfrm', 'state']).stdout).toContain('proto esp');
    }

    expect(daemon.http('POST', '/api/auth/ipsec/status', { action: 'kick', uniqueId: sa.uniqueId }, 20_000).json).toMatchObject({ success: true });
    await expect.poll(() => established().length, { timeout: 20_000, interval: 200 }).toBe(0);
    if (ESP) expect(pingPeerSite()).not.toBe(0);
  }, 180_000);

  test('IKEv1 main mode, changed with one load: the peer authenticates again', async () => {
    const id = daemon.http('GET', '/api/auth/ipsec').json.data.items[0].id;
    expect(daemon.http('POST', '/api/auth/ipsec', { action: 'update', id, ike: 'ikev1', ipsec_mode: 'main' }, 60_000).json).toMatchObject({ success: true });
    loadPeer({ version: 1 });
    peerSwanctl(['--initiate', '--child', 'site', '--timeout', '20']);
    await expect.poll(() => established().map((sa) => sa.version), { timeout: 30_000, interval: 200 }).toEqual(['IKEv1']);
    if (ESP) await expect.poll(pingPeerSite, { timeout: 20_000, interval: 200 }).toBe(0);
    // A peer that insists on IKEv2 against the IKEv1 peer is not served (same version at both ends).
    peerSwanctl(['--terminate', '--ike', 'site', '--force', '--timeout', '5']);
    await expect.poll(() => established().length, { timeout: 20_000, interval: 200 }).toBe(0);
    loadPeer({ version: 2 });
    expect(peerSwanctl(['--initiate', '--child', 'site', '--timeout', '10']).status).not.toBe(0);
    expect(established()).toEqual([]);
    // Nor one in aggressive mode against a main-mode peer (same mode at both ends).
    loadPeer({ version: 1, aggressive: true });
    peerSwanctl(['--initiate', '--child', 'site', '--timeout', '10']);
    expect(established()).toEqual([]);
  }, 180_000);

  test('a wrong key and a wrong identity are refused; the console shows "Auth Failed"', async () => {
    const id = daemon.http('GET', '/api/auth/ipsec').json.data.items[0].id;
    expect(daemon.http('POST', '/api/auth/ipsec', { action: 'update', id, ike: 'ikev2' }, 60_000).json).toMatchObject({ success: true });
    loadPeer({ version: 2, psk: 'not-the-key-123' });
    expect(peerSwanctl(['--initiate', '--child', 'site', '--timeout', '10']).status).not.toBe(0);
    expect(established()).toEqual([]);
    await expect.poll(() => status().refusals.filter((r) => r.address === PEER_ADDRESS).map((r) => r.msg), { timeout: 10_000, interval: 200 }).toContain('msg.authFailed');
    expect(enUsMsg.authFailed).toBe('Auth Failed');

    loadPeer({ version: 2, localId: 'intruder.example' });
    expect(peerSwanctl(['--initiate', '--child', 'site', '--timeout', '10']).status).not.toBe(0);
    expect(established()).toEqual([]);
    // No peer has that identity: the refusal names no peer, only where it came from.
    await expect.poll(() => status().refusals.filter((r) => r.address === PEER_ADDRESS && (r as { name?: string }).name === '').map((r) => r.msg), { timeout: 10_000, interval: 200 }).toEqual([
      'msg.authFailed',
    ]);
    const log = daemon.http('GET', '/api/auth/ipsec/log').json.data.lines.join('\n');
    expect(log).toMatch(/MAC mismatched|AUTHENTICATION_FAILED/);
    expect(log).not.toContain(PSK);
    expect(log).not.toContain(Buffer.from(PSK).toString('hex'));
  }, 120_000);

  test('one charon: a network IPsec client beside the server; adding and deleting it leaves the server\'s tunnel up', async () => {
    const id = daemon.http('GET', '/api/auth/ipsec').json.data.items[0].id;
    expect(daemon.http('POST', '/api/auth/ipsec', { action: 'update', id, ike: 'ikev2' }, 60_000).json).toMatchObject({ success: true });
    loadPeer({ version: 2, gatewayClient: true });
    peerSwanctl(['--initiate', '--child', 'site', '--timeout', '20']);
    await expect.poll(() => established().length, { timeout: 30_000, interval: 200 }).toBe(1);
    const serverSa = established()[0]!.uniqueId;

    // The gateway dials the peer site as a VPN client of the network, on the same charon.
    const client = daemon.write('/api/vpnclient', {
      action: 'add',
      type: 'ipsec',
      name: 'hq',
      server: PEER_ADDRESS,
      ike: 'ikev2',
      ipsec_mode: 'main',
      peer_subnets: '10.98.0.0/24',
      local_id: 'gwc.example',
      remote_id: 'hq.example',
      psk: CLIENT_PSK,
    });
    await expect.poll(() => /vpnc-hq: #\d+, ESTABLISHED, IKEv2/.test(gatewaySas()), { timeout: 60_000, interval: 500 }).toBe(true);
    // The server's tunnel was not unloaded nor restarted by the client's load.
    expect(established().map((sa) => sa.uniqueId)).toEqual([serverSa]);
    // The server's status shows only its own SAs, not the client's.
    expect(status().sas.map((sa) => sa.name)).toEqual(['site2']);
    if (ESP) {
      await expect.poll(() => pingPeerSite(CLIENT_PEER_HOST), { timeout: 20_000, interval: 200 }).toBe(0);
      expect(pingPeerSite()).toBe(0);
    }
    // Kicking the client's SA through the server's page is refused: it is not the server's.
    const clientSa = /vpnc-hq: #(\d+),/.exec(gatewaySas())![1]!;
    expect(daemon.http('POST', '/api/auth/ipsec/status', { action: 'kick', uniqueId: clientSa }, 20_000).json).toMatchObject({ success: false });

    // The client deleted: its SA goes, the server's stays, charon keeps running.
    daemon.write('/api/vpnclient', { action: 'delete', id: client.id });
    await expect.poll(() => /vpnc-hq: #/.test(gatewaySas()), { timeout: 30_000, interval: 200 }).toBe(false);
    expect(established().map((sa) => sa.uniqueId)).toEqual([serverSa]);
    expect(status().running).toBe(true);
  }, 180_000);

  test('deleting the last peer stops charon and removes its files', async () => {
    const id = daemon.http('GET', '/api/auth/ipsec').json.data.items[0].id;
    expect(daemon.http('POST', '/api/auth/ipsec', { action: 'delete', id }, 60_000).json).toMatchObject({ success: true });
    await expect.poll(() => status().running, { timeout: 20_000, interval: 200 }).toBe(false);
    expect(() => readFileSync(join(daemon.root, 'etc/portico/ipsec-server/swanctl.conf'))).toThrow();
    expect(() => readFileSync(join(daemon.root, 'etc/portico/ipsec-server/secrets.conf'))).toThrow();
    expect(inNs(lab.gw, ['nft', 'list', 'ruleset']).stdout).not.toContain('udp dport { 500, 4500 } accept');
  }, 60_000);
});
