import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BOOT_LIMIT_MS, poll, startSignedInGateway, vmPrerequisites, type AdminApi, type GuestPeer, type VmGateway } from './vm-gateway.js';

/**
 * The gateway as PPP server, in the image's kernel: clients in a namespace of the guest
 * (GuestPeer) dial the gateway's PPPoE server (pppd with the rp-pppoe plugin), its L2TP server
 * (xl2tpd as LAC) and its PPTP server (pptp-linux with MPPE), each with a local-user account of
 * its type. Each gets an address from the server's remote range, reaches the server's local IP,
 * shows in the server's online sessions through the API and is kicked off through the API.
 */

const skip = vmPrerequisites();
let gw: VmGateway;
let admin: AdminApi;
let peer: GuestPeer;

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
});
