import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { CSRF_PROTOCOL_PREFIX, TERMINAL_PROTOCOL } from '@portico/schema';
import { BOOT_LIMIT_MS, startSignedInGateway, vmPrerequisites, type AdminApi, type GuestPeer, type VmGateway } from './vm-gateway.js';

/**
 * Links this machine's kernel cannot make, brought up by the daemon in the image's kernel as the
 * Network section configures them, each with a peer on its far side (GuestPeer: a namespace in
 * the guest joined by veth pairs), and the image's simulated radios. Also the device's own
 * terminal (/rtty) as the image runs it: its login, its PAM stack, the daemon's sandbox.
 */

const skip = vmPrerequisites();
let gw: VmGateway;
let admin: AdminApi;
let peer: GuestPeer;

describe.skipIf(skip !== null)(`links and radios in the image's kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    ({ gw, admin, peer } = await startSignedInGateway('VmLinksPassw0rd', 3));
  }, 2 * BOOT_LIMIT_MS);

  afterAll(async () => {
    await gw?.down();
  });

  const bonding = async () => (await gw.vm.agent.exec(['/bin/cat', '/proc/net/bonding/bond-agg'])).stdout;

  test('a bond over two ports aggregates with its LACP partner, and keeps carrying traffic when one port goes down', async () => {
    await admin.write('network', { action: 'add', ifname: 'agg', role: 'bond', hwport: ['lp1', 'lp2'], proto: 'static', ipaddr: '10.88.0.1', netmask: '255.255.255.0' });
    await expect.poll(bonding).toMatch(/Slave Interface: lp1[\s\S]*Slave Interface: lp2/);
    expect(await bonding()).toContain('IEEE 802.3ad Dynamic link aggregation');
    await peer.run(['/usr/sbin/ip', 'link', 'add', 'bond0', 'type', 'bond', 'mode', '802.3ad', 'lacp_rate', 'fast']);
    for (const port of ['pp1', 'pp2']) {
      await peer.run(['/usr/sbin/ip', 'link', 'set', port, 'down']);
      await peer.run(['/usr/sbin/ip', 'link', 'set', port, 'master', 'bond0']);
    }
    await peer.run(['/usr/sbin/ip', 'link', 'set', 'bond0', 'up']);
    await peer.run(['/usr/sbin/ip', 'addr', 'add', '10.88.0.2/24', 'dev', 'bond0']);
    await expect.poll(() => peer.ping('10.88.0.1')).toBe(true);
    // LACP agreed with the partner on both ports: they joined one aggregator.
    await expect
      .poll(async () => [...(await bonding()).matchAll(/Aggregator ID: (\d+)/g)].map((m) => m[1]).slice(1))
      .toSatisfy((ids: Array<string | undefined>) => ids.length === 2 && ids[0] === ids[1]);
    await peer.run(['/usr/sbin/ip', 'link', 'set', 'pp1', 'down']);
    await expect.poll(() => peer.ping('10.88.0.1')).toBe(true);
  });

  test('a VLAN sub-interface exchanges tagged frames with its peer, and untagged ones do not reach it', async () => {
    await admin.write('vlan', { action: 'add', ifname: 'guests', port: 'lp3', tag: 10, ipaddr: '10.89.0.1', netmask: '255.255.255.0' });
    await expect.poll(async () => (await gw.vm.agent.exec(['/usr/sbin/ip', '-d', 'link', 'show', 'lp3.10'])).stdout).toMatch(/vlan protocol 802\.1Q id 10/);
    await peer.run(['/usr/sbin/ip', 'link', 'add', 'link', 'pp3', 'name', 'pp3.10', 'type', 'vlan', 'id', '10']);
    await peer.run(['/usr/sbin/ip', 'link', 'set', 'pp3.10', 'up']);
    await peer.run(['/usr/sbin/ip', 'addr', 'add', '10.89.0.2/24', 'dev', 'pp3.10']);
    await expect.poll(() => peer.ping('10.89.0.1')).toBe(true);
    await peer.run(['/usr/sbin/ip', 'addr', 'del', '10.89.0.2/24', 'dev', 'pp3.10']);
    await peer.run(['/usr/sbin/ip', 'addr', 'add', '10.89.0.3/24', 'dev', 'pp3']);
    expect(await peer.ping('10.89.0.1', ['-I', 'pp3'])).toBe(false);
  });

  test('two simulated radios: an access point on one, a station associated on the other', async () => {
    const { agent } = gw.vm;
    await agent.run(['/usr/sbin/modprobe', 'mac80211_hwsim', 'radios=2']);
    await expect.poll(async () => (await agent.run(['/usr/sbin/iw', 'dev'])).match(/Interface wlan\d/g)?.length ?? 0).toBe(2);
    const dir = (await agent.run(['/usr/bin/mktemp', '-d'])).trim();
    const hostapd = ['interface=wlan0', 'driver=nl80211', 'ssid=portico-vm', 'hw_mode=g', 'channel=6', 'wpa=2', 'wpa_key_mgmt=WPA-PSK', 'rsn_pairwise=CCMP', 'wpa_passphrase=vmtier-secret', ''].join('\n');
    const station = ['network={', '  ssid="portico-vm"', '  psk="vmtier-secret"', '  key_mgmt=WPA-PSK', '}', ''].join('\n');
    await agent.run(['/usr/bin/tee', `${dir}/hostapd.conf`], { input: hostapd });
    await agent.run(['/usr/bin/tee', `${dir}/station.conf`], { input: station });
    await agent.run(['/usr/sbin/hostapd', '-B', '-P', `${dir}/hostapd.pid`, `${dir}/hostapd.conf`]);
    await agent.run(['/usr/sbin/wpa_supplicant', '-B', '-i', 'wlan1', '-c', `${dir}/station.conf`, '-P', `${dir}/station.pid`]);
    await expect.poll(async () => (await agent.exec(['/usr/sbin/iw', 'dev', 'wlan1', 'link'])).stdout).toMatch(/Connected to [0-9a-f:]{17}[\s\S]*SSID: portico-vm/);
    const stations = await agent.run(['/usr/sbin/iw', 'dev', 'wlan0', 'station', 'dump']);
    expect(stations).toMatch(/Station [0-9a-f:]{17} \(on wlan0\)/);
    expect(stations).toMatch(/authorized:\s+yes/);
  });

  test("the browser terminal signs the administrator in to the device's shell", async () => {
    const url = new URL(gw.consoleUrl);
    const ws = new WebSocket(`ws://${url.host}/api/sysconf/rtty`, [TERMINAL_PROTOCOL, `${CSRF_PROTOCOL_PREFIX}${admin.api.csrf}`], {
      headers: { origin: gw.consoleUrl, cookie: admin.api.cookieHeader() },
    });
    let output = '';
    ws.on('message', (data, isBinary) => {
      if (isBinary) output += data.toString();
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_request, response) => reject(new Error(`refused with ${response.statusCode}`)));
      ws.once('error', reject);
    });
    try {
      // A shell prompt first, then a command's answer: the terminal is a root shell of the device.
      await expect.poll(() => output, { timeout: 60_000, interval: 500 }).toMatch(/[#$] ?$/m);
      ws.send(Buffer.from('echo "tty=$(tty) id=$(id -u)"\n'));
      await expect.poll(() => output, { timeout: 60_000, interval: 500 }).toMatch(/tty=\/dev\/pts\/\d+ id=0/);
    } finally {
      ws.close();
    }
    // Journalled in the sign-in log.
    await expect
      .poll(async () => JSON.stringify((await admin.api.get('sysconf/log?name=auth&size=50')).data ?? ''), { timeout: 60_000, interval: 1000 })
      .toMatch(/terminalEnded/);
  });
});
