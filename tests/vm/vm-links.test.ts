import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { IMAGE_LAYOUT } from '../../image/image-layout.mjs';
import { ApiSession } from '../e2e/e2e-harness.js';
import { startVmGateway, vmPrerequisites, type VmGateway } from './vm-gateway.js';

/**
 * Links this machine's kernel cannot make, brought up by the daemon in the image's kernel as the
 * Network section configures them, each with a peer on its far side. The peers live in a
 * namespace inside the guest (`peer`), joined to the gateway by veth pairs: the daemon's ports
 * are the veths' near ends (`lp1` …), the peer's the far ends (`pp1` …).
 */

const skip = vmPrerequisites();
const BOOT_LIMIT_MS = 600_000;
const PASSWORD = 'VmTierPassw0rd';
const PEER = 'peer';
const PORTS = 4;
let gw: VmGateway;
let api: ApiSession;

const ip = (...args: string[]) => gw.vm.agent.run(['/usr/sbin/ip', ...args]);
const inPeer = (argv: string[], options?: { input?: string; timeoutMs?: number }) => gw.vm.agent.run(['/usr/sbin/ip', 'netns', 'exec', PEER, ...argv], options);
const peerPing = async (address: string) => (await gw.vm.agent.exec(['/usr/sbin/ip', 'netns', 'exec', PEER, '/usr/bin/ping', '-c', '1', '-W', '2', address])).code === 0;

/** Writes a change through the console's API and confirms it, as an administrator does. */
async function write(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await api.post(path, body);
  if (!reply.success) throw new Error(`${path}: ${JSON.stringify(reply)}`);
  const data = reply.data as { confirm?: { seconds: number } } | undefined;
  if (data?.confirm) {
    const confirmed = await api.post('sysconf/confirm', {});
    if (!confirmed.success) throw new Error(`confirm: ${JSON.stringify(confirmed)}`);
  }
  return reply;
}

describe.skipIf(skip !== null)(`links and radios in the image's kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    gw = await startVmGateway();
    await gw.vm.booted(BOOT_LIMIT_MS);
    await expect
      .poll(
        async () => {
          try {
            gw.clientLease();
            return (await fetch(`${gw.consoleUrl}/api/changelang`, { signal: AbortSignal.timeout(5000) })).status;
          } catch {
            return 0;
          }
        },
        { timeout: BOOT_LIMIT_MS, interval: 500 },
      )
      .toBe(200);
    const initial = (await gw.vm.agent.readFile(`${IMAGE_LAYOUT.stateDir}/initial-admin-password`)).trim();
    api = new ApiSession(gw.consoleUrl);
    const login = await api.login('admin', initial);
    if (!login.success) throw new Error(`login: ${JSON.stringify(login)}`);
    const changed = await api.post('changepwd', { oldpassword: initial, password: PASSWORD, confirm: PASSWORD });
    if (!changed.success) throw new Error(`password change: ${JSON.stringify(changed)}`);
    api.csrf = String((changed.data as { csrf: string }).csrf);

    await ip('netns', 'add', PEER);
    await inPeer(['/usr/sbin/ip', 'link', 'set', 'lo', 'up']);
    for (let i = 1; i <= PORTS; i += 1) {
      await ip('link', 'add', `lp${i}`, 'type', 'veth', 'peer', 'name', `pp${i}`, 'netns', PEER);
      await ip('link', 'set', `lp${i}`, 'up');
      await inPeer(['/usr/sbin/ip', 'link', 'set', `pp${i}`, 'up']);
    }
  }, 2 * BOOT_LIMIT_MS);

  afterAll(async () => {
    await gw?.down();
  });

  test('a bond over two ports carries traffic, and keeps carrying it when one port goes down', async () => {
    await write('network', { action: 'add', ifname: 'agg', role: 'bond', hwport: ['lp1', 'lp2'], proto: 'static', ipaddr: '10.88.0.1', netmask: '255.255.255.0' });
    await expect.poll(async () => (await gw.vm.agent.exec(['/bin/cat', '/proc/net/bonding/bond-agg'])).stdout).toMatch(/Slave Interface: lp1[\s\S]*Slave Interface: lp2/);
    const bonding = await gw.vm.agent.readFile('/proc/net/bonding/bond-agg');
    expect(bonding).toContain('IEEE 802.3ad Dynamic link aggregation');
    // The peer aggregates its two ends the same way.
    await inPeer(['/usr/sbin/ip', 'link', 'add', 'bond0', 'type', 'bond', 'mode', '802.3ad', 'lacp_rate', 'fast']);
    for (const port of ['pp1', 'pp2']) {
      await inPeer(['/usr/sbin/ip', 'link', 'set', port, 'down']);
      await inPeer(['/usr/sbin/ip', 'link', 'set', port, 'master', 'bond0']);
    }
    await inPeer(['/usr/sbin/ip', 'link', 'set', 'bond0', 'up']);
    await inPeer(['/usr/sbin/ip', 'addr', 'add', '10.88.0.2/24', 'dev', 'bond0']);
    await expect.poll(() => peerPing('10.88.0.1')).toBe(true);
    // LACP agreed with the partner on both ports: they share one aggregator.
    await expect.poll(async () => [...(await gw.vm.agent.readFile('/proc/net/bonding/bond-agg')).matchAll(/Aggregator ID: (\d+)/g)].map((m) => m[1]).slice(1)).toSatisfy((ids: string[]) => ids.length === 2 && ids[0] === ids[1]);
    await inPeer(['/usr/sbin/ip', 'link', 'set', 'pp1', 'down']);
    await expect.poll(() => peerPing('10.88.0.1')).toBe(true);
  });

  test('a VLAN sub-interface exchanges tagged frames with its peer', async () => {
    await write('vlan', { action: 'add', ifname: 'guests', port: 'lp3', tag: 10, ipaddr: '10.89.0.1', netmask: '255.255.255.0' });
    await expect.poll(async () => (await gw.vm.agent.exec(['/usr/sbin/ip', '-d', 'link', 'show', 'lp3.10'])).stdout).toMatch(/vlan protocol 802\.1Q id 10/);
    await inPeer(['/usr/sbin/ip', 'link', 'add', 'link', 'pp3', 'name', 'pp3.10', 'type', 'vlan', 'id', '10']);
    await inPeer(['/usr/sbin/ip', 'link', 'set', 'pp3.10', 'up']);
    await inPeer(['/usr/sbin/ip', 'addr', 'add', '10.89.0.2/24', 'dev', 'pp3.10']);
    await expect.poll(() => peerPing('10.89.0.1')).toBe(true);
    // Untagged, the same address is not there: the frames really were tagged.
    await inPeer(['/usr/sbin/ip', 'addr', 'add', '10.89.0.3/24', 'dev', 'pp3']);
    await inPeer(['/usr/sbin/ip', 'addr', 'del', '10.89.0.2/24', 'dev', 'pp3.10']);
    expect((await gw.vm.agent.exec(['/usr/sbin/ip', 'netns', 'exec', PEER, '/usr/bin/ping', '-c', '1', '-W', '2', '-I', 'pp3', '10.89.0.1'])).code).not.toBe(0);
  });

  test('two simulated radios: an access point on one, a station associated on the other', async () => {
    await gw.vm.agent.run(['/usr/sbin/modprobe', 'mac80211_hwsim', 'radios=2']);
    await expect.poll(async () => (await gw.vm.agent.run(['/usr/sbin/iw', 'dev'])).match(/Interface wlan\d/g)?.length ?? 0).toBe(2);
    const dir = (await gw.vm.agent.run(['/usr/bin/mktemp', '-d'])).trim();
    const hostapd = ['interface=wlan0', 'driver=nl80211', 'ssid=portico-vm', 'hw_mode=g', 'channel=6', 'wpa=2', 'wpa_key_mgmt=WPA-PSK', 'rsn_pairwise=CCMP', 'wpa_passphrase=vmtier-secret', ''].join('\n');
    const station = ['network={', '  ssid="portico-vm"', '  psk="vmtier-secret"', '  key_mgmt=WPA-PSK', '}', ''].join('\n');
    await gw.vm.agent.run(['/usr/bin/tee', `${dir}/hostapd.conf`], { input: hostapd });
    await gw.vm.agent.run(['/usr/bin/tee', `${dir}/station.conf`], { input: station });
    await gw.vm.agent.run(['/usr/sbin/hostapd', '-B', '-P', `${dir}/hostapd.pid`, `${dir}/hostapd.conf`]);
    await gw.vm.agent.run(['/usr/sbin/wpa_supplicant', '-B', '-i', 'wlan1', '-c', `${dir}/station.conf`, '-P', `${dir}/station.pid`]);
    await expect.poll(async () => (await gw.vm.agent.exec(['/usr/sbin/iw', 'dev', 'wlan1', 'link'])).stdout).toMatch(/Connected to [0-9a-f:]{17}[\s\S]*SSID: portico-vm/);
    const stations = await gw.vm.agent.run(['/usr/sbin/iw', 'dev', 'wlan0', 'station', 'dump']);
    expect(stations).toMatch(/Station [0-9a-f:]{17} \(on wlan0\)/);
    expect(stations).toMatch(/authorized:\s+yes/);
  });
});
