import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BOOT_LIMIT_MS, poll, startSignedInGateway, vmPrerequisites, type AdminApi, type GuestPeer, type VmGateway } from './vm-gateway.js';

/**
 * Dialled links in the image's kernel: a PPPoE WAN against a PPPoE server, L2TP and PPTP
 * clients against their servers. The servers run in a namespace of the guest (GuestPeer) with
 * their own /etc/ppp; the gateway side is exactly what the Network section configures.
 */

const skip = vmPrerequisites();
const USER = 'portico';
const SECRET = 'dial-Secret 7';
let gw: VmGateway;
let admin: AdminApi;
let peer: GuestPeer;

/** The address pppd gave the gateway on a PPP link whose far end is `remote`, or ''. */
async function pppAddressTowards(remote: string): Promise<string> {
  const shown = await gw.vm.agent.run(['/usr/sbin/ip', '-4', '-o', 'addr', 'show']);
  return new RegExp(`inet ([\\d.]+) peer ${remote.replace(/\./g, '\\.')}/32`).exec(shown)?.[1] ?? '';
}

const gatewayPing = async (address: string) => (await gw.vm.agent.exec(['/usr/bin/ping', '-c', '1', '-W', '2', address])).code === 0;

describe.skipIf(skip !== null)(`dialled links in the image's kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    ({ gw, admin, peer } = await startSignedInGateway('VmDialPassw0rd', 2));
    // Both peers' PPP servers check the same account; chap-secrets: client, server, secret, addresses.
    await peer.writeEtc('ppp/chap-secrets', `"${USER}" * "${SECRET}" *\n`);
    // The VPN servers' address, on a LAN-side network of the gateway's.
    await peer.run(['/usr/sbin/ip', 'addr', 'add', '10.90.0.2/24', 'dev', 'pp2']);
    await admin.write('network', { action: 'add', ifname: 'vpnlan', role: 'lan', hwport: ['lp2'], proto: 'static', ipaddr: '10.90.0.1', netmask: '255.255.255.0' });
    await poll(() => peer.ping('10.90.0.1'), (up) => up, 120_000, 'the VPN servers reach the gateway');
  }, 2 * BOOT_LIMIT_MS);

  afterAll(async () => {
    await gw?.down();
  });

  test('a PPPoE WAN dials the PPPoE server, gets its address and reaches the far end', async () => {
    await peer.writeEtc('ppp/pppoe-server-options', 'require-chap\nlcp-echo-interval 10\nlcp-echo-failure 3\n');
    await peer.run(['/usr/sbin/pppoe-server', '-I', 'pp1', '-L', '10.66.0.1', '-R', '10.66.0.10', '-N', '4']);
    await admin.write('network', { action: 'add', ifname: 'dsl', role: 'wan', hwport: ['lp1'], proto: 'pppoe', pppoe_username: USER, pppoe_password: SECRET });
    await expect.poll(() => pppAddressTowards('10.66.0.1')).toMatch(/^10\.66\.0\.\d+$/);
    await expect.poll(() => gatewayPing('10.66.0.1')).toBe(true);
    // The password never shows on a command line.
    const processes = await gw.vm.agent.run(['/usr/bin/ps', '-eo', 'args']);
    expect(processes).toContain('pppd');
    expect(processes).not.toContain(SECRET);
  });

  test('an L2TP client connects to its LNS and reaches the far end of the tunnel', async () => {
    await peer.writeEtc('ppp/options.lns', 'require-chap\nname lns\nlcp-echo-interval 10\nlcp-echo-failure 3\n');
    await peer.writeEtc(
      'xl2tpd/xl2tpd.conf',
      ['[global]', 'listen-addr = 10.90.0.2', '[lns default]', 'ip range = 10.67.0.10-10.67.0.20', 'local ip = 10.67.0.1', 'require authentication = yes', 'require chap = yes', 'refuse pap = yes', 'name = lns', 'pppoptfile = /etc/ppp/options.lns', ''].join('\n'),
    );
    await peer.run(['/usr/sbin/xl2tpd', '-c', '/etc/xl2tpd/xl2tpd.conf', '-p', '/run/peer-xl2tpd.pid', '-C', '/run/peer-l2tp-control']);
    await admin.write('vpnclient', { action: 'add', type: 'l2tp', name: 'office', server: '10.90.0.2', username: USER, password: SECRET });
    await expect.poll(() => pppAddressTowards('10.67.0.1')).toMatch(/^10\.67\.0\.\d+$/);
    await expect.poll(() => gatewayPing('10.67.0.1')).toBe(true);
  });

  test('a PPTP client connects to its server with MPPE and reaches the far end of the tunnel', async () => {
    await peer.writeEtc('ppp/options.pptpd', 'name pptpd\nrefuse-pap\nrefuse-chap\nrefuse-mschap\nrequire-mschap-v2\nrequire-mppe-128\n');
    await peer.writeEtc('pptpd.conf', 'option /etc/ppp/options.pptpd\nlocalip 10.68.0.1\nremoteip 10.68.0.10-20\nlisten 10.90.0.2\n');
    await peer.run(['/usr/sbin/pptpd', '-c', '/etc/pptpd.conf', '-p', '/run/peer-pptpd.pid']);
    await admin.write('vpnclient', { action: 'add', type: 'pptp', name: 'branch', server: '10.90.0.2', username: USER, password: SECRET });
    await expect.poll(() => pppAddressTowards('10.68.0.1')).toMatch(/^10\.68\.0\.\d+$/);
    await expect.poll(() => gatewayPing('10.68.0.1')).toBe(true);
  });
});
