import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BOOT_LIMIT_MS, guestPortName, poll, startSignedInGateway, UPSTREAM, vmPrerequisites, type AdminApi, type GuestPeer, type VmGateway } from './vm-gateway.js';
import { startFreeRadius, type FreeRadius } from '../support/freeradius-peer.js';

/**
 * The gateway as PPP server, in the image's kernel: clients in a namespace of the guest
 * (GuestPeer) dial the gateway's PPPoE server (pppd with the rp-pppoe plugin), its L2TP server
 * (xl2tpd as LAC) and its PPTP server (pptp-linux with MPPE), each with a local-user account of
 * its type. Each gets an address from the server's remote range, reaches the server's local IP,
 * shows in the server's online sessions through the API and is kicked off through the API.
 * L2TP/IPsec: a client charon of the peer's own brings up IKEv1 transport mode with the key
 * before xl2tpd dials; plain L2TP is refused meanwhile. RADIUS (CHAP over PPPoE, MS-CHAPv2
 * over L2TP): FreeRADIUS in the upstream
 * namespace (the guest reaches it over its WAN) vouches for an account the gateway does not have,
 * and ends its PPPoE session with a Disconnect-Request (radclient) to the gateway's DAE port.
 */

const skip = vmPrerequisites();
let gw: VmGateway;
let admin: AdminApi;
let peer: GuestPeer;
let radius: FreeRadius | undefined;

interface Session {
  ifname: string;
  username: string;
  from: string;
  address: string;
  rx: number;
  tx: number;
}

async function status(kind: string): Promise<{ running: boolean; sessions: Session[] }> {
  const reply = await admin.api.get(`auth/${kind}/status`);
  return reply.data as { running: boolean; sessions: Session[] };
}

/** The address the peer's pppd got on a link whose far end is `remote`, or ''. */
async function peerAddressTowards(remote: string): Promise<string> {
  const shown = await peer.run(['/usr/sbin/ip', '-4', '-o', 'addr', 'show']);
  return new RegExp(`inet ([\\d.]+) peer ${remote.replace(/\./g, '\\.')}/32`).exec(shown)?.[1] ?? '';
}

async function addAccount(username: string, type: string, password: string): Promise<void> {
  await admin.write('auth/userauth', { action: 'add', username, password, confirm: password, type });
}

/** Runs `dial`; when it fails, the guest's recent journal and processes go with the error. */
async function withGuestLog<T>(dial: () => Promise<T>): Promise<T> {
  try {
    return await dial();
  } catch (error) {
    const journal = await gw.vm.agent.run(['/usr/bin/journalctl', '-b', '--no-pager', '-o', 'cat', '-n', '120']).catch((e: unknown) => String(e));
    const processes = await gw.vm.agent.run(['/usr/bin/ps', '-eo', 'pid,args']).catch((e: unknown) => String(e));
    throw new Error(`${String(error)}\n--- journal ---\n${journal}\n--- processes ---\n${processes}`);
  }
}

/** Dials, is listed, passes traffic, is kicked off: the same proof for each server. */
async function proveServer(kind: string, username: string, local: string, rangePrefix: RegExp): Promise<void> {
  await expect.poll(() => peerAddressTowards(local), { timeout: 90_000, interval: 1000 }).toMatch(rangePrefix);
  const address = await peerAddressTowards(local);
  expect(await peer.ping(local)).toBe(true);
  await expect.poll(async () => (await status(kind)).sessions.find((s) => s.username === username)?.address, { timeout: 30_000, interval: 1000 }).toBe(address);
  const session = (await status(kind)).sessions.find((s) => s.username === username)!;
  expect((await status(kind)).running).toBe(true);
  expect(session.rx).toBeGreaterThan(0);
  const kicked = await admin.api.post(`auth/${kind}/status`, { action: 'kick', ifname: session.ifname });
  expect(kicked.success).toBe(true);
  await expect.poll(() => peerAddressTowards(local), { timeout: 30_000, interval: 1000 }).toBe('');
  await expect.poll(async () => (await status(kind)).sessions.some((s) => s.username === username), { timeout: 30_000, interval: 1000 }).toBe(false);
}

/** Runs argv in the peer namespace as a transient unit of the guest (kept running, its output in the journal). */
async function peerService(unit: string, argv: string[]): Promise<void> {
  await gw.vm.agent.run(['/usr/bin/systemd-run', `--unit=${unit}`, '--collect', '--property=Restart=no', '/usr/sbin/ip', 'netns', 'exec', peer.ns, ...argv]);
}

const unitLog = (unit: string) => gw.vm.agent.run(['/usr/bin/journalctl', '--no-pager', '-o', 'cat', '-u', unit]);

/** An xl2tpd LAC of the peer's on its own UDP port (several run side by side), told to dial once its pipe is there. */
async function dialLac(name: string, port: number, user: string, password: string): Promise<string> {
  await peer.writeEtc(`ppp/options.${name}`, `user ${user}\npassword ${password}\nnoauth\nnoipdefault\nnodefaultroute\n`);
  await peer.writeEtc(`xl2tpd/${name}.conf`, ['[global]', `port = ${port}`, `[lac ${name}]`, 'lns = 10.90.0.1', `pppoptfile = /etc/ppp/options.${name}`, 'length bit = yes', ''].join('\n'));
  const control = `/run/peer-${name}.control`;
  const unit = `peer-lac-${name}`;
  await peerService(unit, ['/usr/sbin/xl2tpd', '-D', '-c', `/etc/xl2tpd/${name}.conf`, '-p', `/run/peer-${name}.pid`, '-C', control]);
  await poll(async () => (await peer.run(['/usr/bin/test', '-p', control]).then(() => true, () => false)), (ok) => ok, 30_000, `the ${name} LAC control pipe`);
  await peer.run(['/usr/bin/tee', control], { input: `c ${name}\n` });
  return unit;
}

/** The peer's device of the link whose far end is `remote`, or ''. */
async function peerDeviceTowards(remote: string): Promise<string> {
  const shown = await peer.run(['/usr/sbin/ip', '-4', '-o', 'addr', 'show']);
  return new RegExp(`^\\d+: (\\S+)\\s+inet [\\d.]+ peer ${remote.replace(/\./g, '\\.')}/32`, 'm').exec(shown)?.[1] ?? '';
}

/**
 * One TCP request from the peer namespace (the guest's Node; the image has no curl): an HTTP
 * GET when `path` is given, else a bare connect. Answers the status and Location, `connected`,
 * or the error (a timeout when a firewall drops it).
 */
async function peerRequest(address: string, port: number, path?: string): Promise<{ status?: number; location?: string; body?: string; connected?: boolean; error?: string }> {
  const script = [
    "const [address, port, path] = process.argv.slice(1);",
    "const http = require('node:http'); const net = require('node:net');",
    "const done = (value) => { console.log(JSON.stringify(value)); process.exit(0); };",
    "setTimeout(() => done({ error: 'timeout' }), 8000);",
    "if (path) http.get({ host: address, port: Number(port), path }, (res) => { let body = ''; res.setEncoding('utf8'); res.on('data', (c) => { body += c; }); res.on('end', () => done({ status: res.statusCode, location: res.headers.location, body: body.slice(0, 400) })); }).on('error', (e) => done({ error: e.code || e.message }));",
    "else net.connect(Number(port), address, () => done({ connected: true })).on('error', (e) => done({ error: e.code || e.message }));",
  ].join('\n');
  return JSON.parse(await peer.run(['/usr/local/bin/node', '-e', script, address, String(port), ...(path ? [path] : [])], { timeoutMs: 30_000 })) as never;
}

async function pppoeDial(username: string, password: string): Promise<{ code: number; stderr: string }> {
  const argv = ['/usr/sbin/pppd', 'plugin', 'rp-pppoe.so', 'nic-pp1', 'user', username, 'password', password, 'noauth', 'noipdefault', 'nodefaultroute', 'updetach', 'maxfail', '1'];
  return gw.vm.agent.exec(['/usr/sbin/ip', 'netns', 'exec', peer.ns, ...argv], { timeoutMs: 120_000 });
}

/** FreeRADIUS in the upstream namespace with an account the gateway lacks, and the gateway's RADIUS settings on it. */
async function ensureRadius(): Promise<FreeRadius> {
  if (radius) return radius;
  radius = await startFreeRadius([{ name: 'radonly1', password: 'RadPass123' }], {
    netns: gw.upstreamNs,
    address: UPSTREAM.address,
    clients: `${UPSTREAM.address.replace(/\.\d+$/, '.0')}/${UPSTREAM.prefix}`,
    secret: 'Ppp-Radius-Key1',
  });
  await admin.write('auth/radius', { enabled: true, radiusip: UPSTREAM.address, sharekey: radius.secret, authport: radius.authPort, accoutport: radius.acctPort, timeout: 3, retries: 2 });
  return radius;
}

async function accountId(username: string): Promise<string> {
  const reply = await admin.api.get('auth/userauth');
  return (reply.data as { items: Array<{ id: string; username: string }> }).items.find((user) => user.username === username)!.id;
}

async function chapSecrets(): Promise<string> {
  return gw.vm.agent.readFile('/etc/ppp/chap-secrets').catch(() => '');
}

describe.skipIf(skip !== null)(`the gateway's PPP servers in the image's kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    ({ gw, admin, peer } = await startSignedInGateway('VmPppServer0', 2));
    // PPPoE clients on the first link; PPTP and L2TP clients reach the gateway over the second.
    await admin.write('network', { action: 'add', ifname: 'dslan', role: 'lan', hwport: ['lp1'], proto: 'static', ipaddr: '10.91.0.1', netmask: '255.255.255.0' });
    await admin.write('network', { action: 'add', ifname: 'vpnlan', role: 'lan', hwport: ['lp2'], proto: 'static', ipaddr: '10.90.0.1', netmask: '255.255.255.0' });
    await peer.run(['/usr/sbin/ip', 'addr', 'add', '10.90.0.2/24', 'dev', 'pp2']);
    await poll(() => peer.ping('10.90.0.1'), (up) => up, 120_000, 'the clients reach the gateway');
    // The peer's own /etc/ppp (ip netns exec binds it over the gateway's).
    await peer.writeEtc('ppp/options', 'noauth\n');
  }, 2 * BOOT_LIMIT_MS);

  afterAll(async () => {
    await radius?.stop();
    await gw?.down();
  });

  test('a PPPoE client dials the PPPoE server with a pppoe account, reaches the server and is kicked off', async () => {
    await addAccount('dsluser1', 'pppoe', 'DslPass123');
    await admin.write('auth/pppoe', { enabled: true, interfaces: ['dslan'], authproto: ['chap', 'mschap-v2'], mppe: false });
    await expect.poll(async () => (await status('pppoe')).running, { timeout: 30_000 }).toBe(true);
    await withGuestLog(() => peer.run(
      ['/usr/sbin/pppd', 'plugin', 'rp-pppoe.so', 'nic-pp1', 'user', 'dsluser1', 'password', 'DslPass123', 'noauth', 'noipdefault', 'nodefaultroute', 'updetach', 'maxfail', '1'],
      { timeoutMs: 90_000 },
    ));
    await proveServer('pppoe', 'dsluser1', '10.0.40.1', /^10\.0\.40\.\d+$/);
  });

  test('an L2TP client (xl2tpd) connects with an l2tp account, reaches the server and is kicked off', async () => {
    await addAccount('l2tpuser1', 'l2tp', 'L2tpPass123');
    await admin.write('auth/l2tp', { enabled: true, interfaces: ['vpnlan'], authproto: ['chap', 'mschap-v2'], mppe: false });
    await expect.poll(async () => (await status('l2tp')).running, { timeout: 30_000 }).toBe(true);
    await peer.writeEtc('ppp/options.l2tpc', 'user l2tpuser1\npassword L2tpPass123\nnoauth\nnoipdefault\nnodefaultroute\n');
    await peer.writeEtc('xl2tpd/xl2tpd.conf', ['[lac gw]', 'lns = 10.90.0.1', 'pppoptfile = /etc/ppp/options.l2tpc', 'length bit = yes', ''].join('\n'));
    await peer.run(['/usr/sbin/xl2tpd', '-c', '/etc/xl2tpd/xl2tpd.conf', '-p', '/run/peer-lac.pid', '-C', '/run/peer-lac.control']);
    await poll(async () => (await peer.run(['/usr/bin/test', '-p', '/run/peer-lac.control']).then(() => true, () => false)), (ok) => ok, 30_000, 'the LAC control pipe');
    await peer.run(['/usr/bin/tee', '/run/peer-lac.control'], { input: 'c gw\n' });
    await withGuestLog(() => proveServer('l2tp', 'l2tpuser1', '10.0.30.1', /^10\.0\.30\.\d+$/));
  });

  test('a PPTP client (pptp-linux, MPPE) connects with a pptp account, reaches the server and is kicked off', async () => {
    await addAccount('pptpuser1', 'pptp', 'PptpPass123');
    await admin.write('auth/pptp', { enabled: true, interfaces: ['vpnlan'] });
    await expect.poll(async () => (await status('pptp')).running, { timeout: 30_000 }).toBe(true);
    // pppd detaches before it starts pptp: with `updetach` it would start pptp first, and pptp
    // and its call manager, which outlive pppd's parent, would hold the command's output open.
    await peer.run(['/usr/sbin/pppd', 'pty', '/usr/sbin/pptp 10.90.0.1 --nolaunchpppd', 'user', 'pptpuser1', 'password', 'PptpPass123', 'noauth', 'require-mppe-128', 'noipdefault', 'nodefaultroute', 'maxfail', '1']);
    await withGuestLog(() => proveServer('pptp', 'pptpuser1', '10.0.20.1', /^10\.0\.20\.\d+$/));
  });
  test('remind expired users: an expired pppoe account dials into the expired pool, where web requests get the expiry notice and nothing else passes; renewed it dials normally; expired online it is ended; with the option off it is refused', async () => {
    // The upstream namespace's HTTP server, reached only across the gateway: the peer routes it over its PPP link.
    const upstream = UPSTREAM.address;
    await admin.write('auth/userauth', { action: 'add', username: 'dslold1', password: 'DslOld1234', confirm: 'DslOld1234', type: 'pppoe', duetime: '2020-01-01' });
    await admin.write('auth/pppoe', { enabled: true, interfaces: ['dslan'], authproto: ['chap', 'mschap-v2'], mppe: false, remindexpired: true });
    await expect.poll(async () => (await status('pppoe')).running, { timeout: 30_000 }).toBe(true);
    // The default range 10.0.40.10-200: its last 32 addresses are set aside for expired accounts.
    await expect.poll(chapSecrets, { timeout: 60_000, interval: 1000 }).toMatch(/^"dslold1" portico-pppoe "DslOld1234" 10\.0\.40\.(169|1[7-9]\d|200)$/m);
    const poolAddress = /^"dslold1" \S+ \S+ (\S+)$/m.exec(await chapSecrets())![1]!;

    const dialled = await withGuestLog(async () => {
      const result = await pppoeDial('dslold1', 'DslOld1234');
      if (result.code !== 0) throw new Error(`the expired account's dial failed (${result.code}): ${result.stderr}`);
      return result;
    });
    expect(dialled.code).toBe(0);
    await expect.poll(() => peerAddressTowards('10.0.40.1'), { timeout: 90_000, interval: 1000 }).toBe(poolAddress);
    const device = await peerDeviceTowards('10.0.40.1');
    expect(device).toMatch(/^ppp\d+$/);
    await peer.run(['/usr/sbin/ip', 'route', 'replace', `${upstream}/32`, 'dev', device]);
    await expect.poll(async () => (await status('pppoe')).sessions.find((s) => s.username === 'dslold1')?.address, { timeout: 30_000, interval: 1000 }).toBe(poolAddress);

    // Its web request to an outside address comes back as the portal's expiry notice.
    const web = await peerRequest(upstream, 80, '/news?id=7');
    expect(web).toMatchObject({ status: 302, location: 'http://10.0.40.1:2050/notice/expired' });
    const page = await peerRequest('10.0.40.1', 2050, '/notice/expired');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html');
    const notice = await peerRequest('10.0.40.1', 2050, '/portal-api/notice/expired');
    expect(notice.status).toBe(200);
    expect(JSON.parse(notice.body!)).toMatchObject({ success: true, data: { template: 'default' } });
    // Nothing else passes: not the upstream's own server, not the gateway's console, not ping.
    expect(await peerRequest(upstream, UPSTREAM.httpPort)).toEqual({ error: 'timeout' });
    expect(await peerRequest('10.0.40.1', 8080)).toEqual({ error: 'timeout' });
    expect(await peer.ping('10.0.40.1')).toBe(false);
    expect(await peer.ping(upstream)).toBe(false);

    // Renewed: the session in the expired pool is ended; the next dial gets an ordinary address and reaches the upstream.
    await admin.write('auth/userauth', { action: 'update', id: await accountId('dslold1'), duetime: '2099-01-01', status: 'normal' });
    await expect.poll(() => peerAddressTowards('10.0.40.1'), { timeout: 90_000, interval: 1000 }).toBe('');
    await withGuestLog(async () => {
      const result = await pppoeDial('dslold1', 'DslOld1234');
      if (result.code !== 0) throw new Error(`the renewed account's dial failed (${result.code}): ${result.stderr}`);
    });
    await expect.poll(() => peerAddressTowards('10.0.40.1'), { timeout: 90_000, interval: 1000 }).toMatch(/^10\.0\.40\.(\d|[1-9]\d|1[0-5]\d|16[0-8])$/);
    await peer.run(['/usr/sbin/ip', 'route', 'replace', `${upstream}/32`, 'dev', await peerDeviceTowards('10.0.40.1')]);
    await expect.poll(async () => (await peerRequest(upstream, UPSTREAM.httpPort, '/')).status, { timeout: 30_000, interval: 1000 }).toBe(200);
    expect(await peer.ping('10.0.40.1')).toBe(true);

    // Expired while online: the session is ended (its client would redial into the notice).
    await admin.write('auth/userauth', { action: 'update', id: await accountId('dslold1'), duetime: '2020-01-01' });
    await expect.poll(() => peerAddressTowards('10.0.40.1'), { timeout: 90_000, interval: 1000 }).toBe('');

    // Option off: the expired account is left out of the secrets and its dial is refused.
    await admin.write('auth/pppoe', { remindexpired: false });
    await expect.poll(chapSecrets, { timeout: 60_000, interval: 1000 }).not.toContain('"dslold1"');
    const refused = await pppoeDial('dslold1', 'DslOld1234');
    expect(refused.code).not.toBe(0);
    expect(await peerAddressTowards('10.0.40.1')).toBe('');
  });

  test('an L2TP/IPsec client brings up IPsec with the key and dials inside it; plain L2TP is refused meanwhile', async () => {
    // The image masks Debian's strongswan.service: the daemon's one charon holds UDP 500/4500.
    expect((await gw.vm.agent.exec(['/usr/bin/systemctl', 'is-enabled', 'strongswan.service'])).stdout.trim()).toBe('masked');
    const psk = 'L2tp-Ipsec Key 7';
    await addAccount('l2tpsec1', 'l2tp', 'L2tpSec123');
    await withGuestLog(() => admin.write('auth/l2tp', { enabled: true, interfaces: ['vpnlan'], authproto: ['chap', 'mschap-v2'], mppe: false, ipsec: true, psk }));
    await expect.poll(async () => (await status('l2tp')).running, { timeout: 30_000 }).toBe(true);

    // Without IPsec: the LNS never answers (the ruleset takes UDP 1701 only decapsulated), and
    // the LAC gives the tunnel up after its retransmissions.
    const plain = await dialLac('plain', 1703, 'l2tpsec1', 'L2tpSec123');
    await expect.poll(() => unitLog(plain), { timeout: 120_000, interval: 2000 }).toMatch(/Maximum retries exceeded for tunnel/);
    expect((await status('l2tp')).sessions.some((s) => s.username === 'l2tpsec1')).toBe(false);
    expect(await peerAddressTowards('10.0.30.1')).toBe('');
    await gw.vm.agent.run(['/usr/bin/systemctl', 'stop', plain]);

    // The client's own charon: ip netns exec binds the peer's /etc/strongswan.conf and /etc/swanctl.
    const plugins = 'random nonce aes sha1 sha2 md5 hmac gmp kdf xcbc pem pkcs1 pubkey x509 kernel-netlink socket-default vici';
    const vici = 'unix:///run/peer-charon.vici';
    await peer.writeEtc('strongswan.conf', [
      'charon-systemd {', `\tload = ${plugins}`, '\tjournal {', '\t\tdefault = 1', '\t}', '\tplugins {', '\t\tvici {', `\t\t\tsocket = ${vici}`, '\t\t}', '\t}', '}',
      'swanctl {', `\tsocket = ${vici}`, '}', '',
    ].join('\n'));
    await peer.writeEtc('swanctl/swanctl.conf', [
      'connections {', '\tgw {', '\t\tversion = 1', '\t\tremote_addrs = 10.90.0.1', '\t\tproposals = default',
      '\t\tlocal {', '\t\t\tauth = psk', '\t\t}', '\t\tremote {', '\t\t\tauth = psk', '\t\t}',
      '\t\tchildren {', '\t\t\tgw {', '\t\t\t\tmode = transport', '\t\t\t\tlocal_ts = dynamic[udp]', '\t\t\t\tremote_ts = dynamic[udp/1701]', '\t\t\t\tesp_proposals = default', '\t\t\t}', '\t\t}', '\t}', '}',
      'secrets {', '\tike-gw {', `\t\tsecret = 0x${Buffer.from(psk).toString('hex')}`, '\t}', '}', '',
    ].join('\n'));
    await peerService('peer-charon', ['/usr/sbin/charon-systemd']);
    await poll(async () => (await peer.run(['/usr/sbin/swanctl', '--stats', '--uri', vici]).then(() => true, () => false)), (ok) => ok, 60_000, "the peer's charon");
    await peer.run(['/usr/sbin/swanctl', '--load-all', '--noprompt', '--uri', vici]);
    await withGuestLog(() => peer.run(['/usr/sbin/swanctl', '--initiate', '--child', 'gw', '--timeout', '60', '--uri', vici], { timeoutMs: 90_000 }));
    expect(await peer.run(['/usr/sbin/swanctl', '--list-sas', '--uri', vici])).toMatch(/INSTALLED, TRANSPORT/);

    await dialLac('sec', 1702, 'l2tpsec1', 'L2tpSec123');
    await withGuestLog(() => proveServer('l2tp', 'l2tpsec1', '10.0.30.1', /^10\.0\.30\.\d+$/));
    // The session's packets went through the SA: ESP counted on the peer's side.
    expect(await peer.run(['/usr/sbin/swanctl', '--list-sas', '--uri', vici])).toMatch(/\bin +[0-9a-f]{8}[^,\n]*, +[1-9]\d* bytes/);
  });

  test('a PPPoE client dials with an account only the RADIUS server knows; a wrong password is refused', async () => {
    const radius = await ensureRadius();
    await withGuestLog(() => admin.write('auth/pppoe', { enabled: true, interfaces: ['dslan'], authway: 'radius', authproto: ['chap'], mppe: false }));
    await expect.poll(async () => (await status('pppoe')).running, { timeout: 30_000 }).toBe(true);
    // The local store has no such account.
    const users = (await admin.api.get('auth/userauth')).data as { items: Array<{ username: string }> };
    expect(users.items.map((user) => user.username)).not.toContain('radonly1');

    const dial = (password: string) =>
      peer.run(['/usr/sbin/pppd', 'plugin', 'rp-pppoe.so', 'nic-pp1', 'user', 'radonly1', 'password', password, 'noauth', 'noipdefault', 'nodefaultroute', 'updetach', 'maxfail', '1'], { timeoutMs: 90_000 });
    await expect(dial('WrongPass9')).rejects.toThrow();
    await expect
      .poll(() => gw.vm.agent.run(['/usr/bin/journalctl', '-b', '--no-pager', '-o', 'cat', '-n', '400']), { timeout: 30_000, interval: 1000 })
      .toMatch(/Peer radonly1 failed CHAP authentication|CHAP peer authentication failed for (?:remote host )?radonly1/);
    expect((await status('pppoe')).sessions.some((s) => s.username === 'radonly1')).toBe(false);

    await withGuestLog(() => dial('RadPass123'));
    await proveServer('pppoe', 'radonly1', '10.0.40.1', /^10\.0\.40\.\d+$/);
    // FreeRADIUS accounted the session it vouched for.
    expect(radius.detail().some((record) => record['User-Name'] === 'radonly1' && record['Acct-Status-Type'] === 'Start')).toBe(true);

    // RADIUS ends the session itself: a Disconnect-Request (RFC 5176) to the gateway's dynamic
    // authorisation port over its WAN, from the RADIUS server's address.
    await admin.write('auth/radius', { enabled: true, radiusip: UPSTREAM.address, sharekey: radius.secret, authport: radius.authPort, accoutport: radius.acctPort, timeout: 3, retries: 2, dae: true, offlineport: 3799 });
    await withGuestLog(() => dial('RadPass123'));
    await expect.poll(async () => (await status('pppoe')).sessions.some((s) => s.username === 'radonly1'), { timeout: 30_000, interval: 1000 }).toBe(true);
    const wan = /inet ([\d.]+)\//.exec(await gw.vm.agent.run(['/usr/sbin/ip', '-4', '-o', 'addr', 'show', 'dev', guestPortName(0)]))?.[1];
    expect(wan).toMatch(/^10\.77\.0\.\d+$/);
    const disconnect = spawnSync('ip', ['netns', 'exec', gw.upstreamNs, 'radclient', '-r', '3', '-t', '5', `${wan}:3799`, 'disconnect', radius.secret], { input: 'User-Name = radonly1\n', encoding: 'utf8', timeout: 60_000 });
    expect(`${disconnect.stdout}${disconnect.stderr}`).toMatch(/Disconnect-ACK/);
    await expect.poll(() => peerAddressTowards('10.0.40.1'), { timeout: 30_000, interval: 1000 }).toBe('');
    await expect.poll(async () => (await status('pppoe')).sessions.some((s) => s.username === 'radonly1'), { timeout: 30_000, interval: 1000 }).toBe(false);
    // pppd hung up and accounted the end of the session.
    await expect.poll(() => radius.detail().some((record) => record['User-Name'] === 'radonly1' && record['Acct-Status-Type'] === 'Stop'), { timeout: 30_000, interval: 1000 }).toBe(true);
  });

  test('an L2TP client dials with MS-CHAPv2 an account only the RADIUS server knows', async () => {
    const radius = await ensureRadius();
    await withGuestLog(() => admin.write('auth/l2tp', { enabled: true, interfaces: ['vpnlan'], authway: 'radius', authproto: ['mschap-v2'], mppe: false, ipsec: false }));
    await expect.poll(async () => (await status('l2tp')).running, { timeout: 30_000 }).toBe(true);
    const starts = () => radius.detail().filter((record) => record['User-Name'] === 'radonly1' && record['Acct-Status-Type'] === 'Start').length;
    const before = starts();
    const unit = await dialLac('radlac', 1704, 'radonly1', 'RadPass123');
    await withGuestLog(() => proveServer('l2tp', 'radonly1', '10.0.30.1', /^10\.0\.30\.\d+$/));
    // The server accepts MS-CHAPv2 alone and asks RADIUS, which vouched for it and accounted the session.
    const options = await gw.vm.agent.readFile('/etc/portico/ppp-server/l2tp.options');
    expect(options).toMatch(/^require-mschap-v2$/m);
    for (const other of ['pap', 'chap', 'mschap']) expect(options).toMatch(new RegExp(`^refuse-${other}$`, 'm'));
    expect(options).toMatch(/^plugin radius\.so$/m);
    await expect.poll(starts, { timeout: 30_000, interval: 1000 }).toBeGreaterThan(before);
    await gw.vm.agent.run(['/usr/bin/systemctl', 'stop', unit]);
  });
});
