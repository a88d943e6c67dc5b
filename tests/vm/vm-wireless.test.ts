import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  apiCommand,
  apiData,
  BOOT_LIMIT_MS,
  GuestPeer,
  poll,
  recordFigures,
  roundSeconds,
  startSignedInGateway,
  vmPrerequisites,
  writeGuestFile as writeGuestFileIn,
  type AdminApi,
  type VmGateway,
} from './vm-gateway.js';

/**
 * The wireless controller with real radios: mac80211_hwsim in the image's kernel, each radio
 * moved into a namespace of the guest (the radios keep sharing one simulated medium). Two
 * access points run the AP agent shipped in the image, joined to the gateway by veth pairs the
 * console configures as a LAN network; a station runs wpa_supplicant. Everything is driven
 * through the gateway's own console API: device certificates, adoption into a group, the SSID,
 * the station list, the MAC black list, a channel plan and a CPE link on the CPE topology.
 *
 * Not here: the agent upgrade rollout, which needs no radios (vm-ap-upgrade.test.ts: the
 * agent's Debian flash step, image links on the address and port the APs reach the gateway on).
 */

const skip = vmPrerequisites();
const AGENT = '/usr/lib/portico/apps/ap-agent/dist/portico-agent.mjs';
const NODE = '/usr/local/bin/node';
const IP = '/usr/sbin/ip';
const SSID = 'portico-hall';
const PASSPHRASE = 'hall-passphrase-7';
/** The gateway's address on the APs' network, and each AP's. */
const AP_NET = { gateway: '10.91.0.1', prefix: 24 };
/** The shortest statistics interval a group may set (seconds): stations show within it. */
const REPORT_S = 10;

interface Unit {
  name: string;
  platform: 'ap' | 'cpe';
  serial: string;
  peer: GuestPeer;
  address: string;
  phy: string;
  ifname: string;
  etc: string;
  hostapdDir: string;
}

let gw: VmGateway;
let admin: AdminApi;
let aps: Unit[] = [];
let cpes: Unit[] = [];
let station: GuestPeer;
let stationIf = '';
let stationMac = '';
let group = '';

const record = recordFigures;
const round = roundSeconds;
const api = (path: string) => apiData(admin, path);
const command = (path: string, body: Record<string, unknown>) => apiCommand(admin, path, body);

/** hostapd's own view of an AP's BSS (`hostapd_cli status`), '' while it is not running. */
async function hostapdStatus(ap: Unit): Promise<string> {
  const result = await gw.vm.agent.exec([IP, 'netns', 'exec', ap.peer.ns, '/usr/sbin/hostapd_cli', '-p', ap.hostapdDir, '-i', ap.ifname, 'status']);
  return result.code === 0 ? result.stdout : '';
}

const statusField = (status: string, key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(status)?.[1] ?? '';

/** The station's link as it sees it: the BSSID it is associated with, or ''. */
async function stationLink(): Promise<string> {
  const shown = await station.run(['/usr/sbin/iw', 'dev', stationIf, 'link']);
  return /Connected to ([0-9a-f:]{17})/.exec(shown)?.[1] ?? '';
}

async function stationRows(): Promise<Array<Record<string, any>>> {
  return (await api('ac/stalist')).items as Array<Record<string, any>>;
}

/** Radios of mac80211_hwsim in the guest's root namespace: phy name → its interface. */
async function rootRadios(): Promise<Map<string, string>> {
  const shown = await gw.vm.agent.run(['/usr/sbin/iw', 'dev']);
  const found = [...shown.matchAll(/phy#(\d+)\s+Interface (\S+)/g)].map((m) => [Number(m[1]), m[2]!] as const);
  // `iw dev` lists the newest phy first; in phy order, radio N is phyN.
  return new Map(found.sort((a, b) => a[0] - b[0]).map(([n, ifname]) => [`phy${n}`, ifname]));
}

const writeGuestFile = (path: string, content: string, mode?: string) => writeGuestFileIn(gw, path, content, mode);

/** Installs an AP as its administrator would: certificate files, settings, the agent as a unit. */
async function installAgent(ap: Unit): Promise<void> {
  const bundle = await command('ac/devicecert', { serial: ap.serial });
  await writeGuestFile(`${ap.etc}/cert.pem`, String(bundle.certificate), '644');
  await writeGuestFile(`${ap.etc}/key.pem`, String(bundle.key));
  await writeGuestFile(`${ap.etc}/ca.pem`, String(bundle.ca), '644');
  const settings = {
    controller: { host: AP_NET.gateway, port: 15002 },
    serial: ap.serial,
    tls: { cert: `${ap.etc}/cert.pem`, key: `${ap.etc}/key.pem`, ca: `${ap.etc}/ca.pem` },
    radios: [{ phy: ap.phy, interface: ap.ifname }],
    platform: ap.platform,
    firmware: { version: 'vm 1.0' },
    stateDir: `/var/lib/portico-agent-${ap.name}`,
    runDir: `/run/portico-agent-${ap.name}`,
    hostapdControlDir: ap.hostapdDir,
    supplicantControlDir: `/run/wpa_supplicant-${ap.name}`,
    reconnect: { minMs: 500, maxMs: 3000 },
  };
  await writeGuestFile(`${ap.etc}/agent.json`, JSON.stringify(settings, null, 2));
  await gw.vm.agent.run([
    '/usr/bin/systemd-run', `--unit=portico-agent-${ap.name}`, '--collect', '--property=Restart=no',
    IP, 'netns', 'exec', ap.peer.ns, NODE, AGENT, `${ap.etc}/agent.json`,
  ]);
}

describe.skipIf(skip !== null)(`the wireless controller with simulated radios${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    ({ gw, admin } = await startSignedInGateway('VmWirelessPassw0rd', 0));
    const { agent } = gw.vm;
    // Five radios on one simulated medium: two access points, a station, two CPEs.
    await agent.run(['/usr/sbin/modprobe', 'mac80211_hwsim', 'radios=5']);
    const radios = [...(await poll(rootRadios, (found) => found.size === 5, 60_000, 'five hwsim radios')).entries()];

    // Each unit in its namespace, on a veth pair whose gateway ends the console bridges into one LAN network.
    const unit = (name: string, platform: Unit['platform'], i: number, [phy, ifname]: [string, string]): Unit => ({
      name,
      platform,
      serial: `02f1a00000${String(i + 1).padStart(2, '0')}`,
      peer: new GuestPeer(gw, name, { near: `w${name}p`, far: 'eth' }),
      address: `10.91.0.${11 + i}`,
      phy,
      ifname,
      etc: `/etc/portico-agent-${name}`,
      hostapdDir: `/run/hostapd-${name}`,
    });
    aps = [unit('ap1', 'ap', 0, radios[0]!), unit('ap2', 'ap', 1, radios[1]!)];
    cpes = [unit('cpe1', 'cpe', 2, radios[3]!), unit('cpe2', 'cpe', 3, radios[4]!)];
    const units = [...aps, ...cpes];
    for (const ap of units) await ap.peer.create(1);
    await admin.write('network', {
      action: 'add', ifname: 'aplan', role: 'lan', hwport: units.map((ap) => ap.peer.near(1)), proto: 'static',
      ipaddr: AP_NET.gateway, netmask: '255.255.255.0',
    });
    for (const ap of units) {
      await ap.peer.run([IP, 'addr', 'add', `${ap.address}/${AP_NET.prefix}`, 'dev', ap.peer.far(1)]);
      await agent.run(['/usr/sbin/iw', 'phy', ap.phy, 'set', 'netns', 'name', ap.peer.ns]);
      await ap.peer.run([IP, 'link', 'set', ap.ifname, 'up']);
    }
    for (const ap of units) await poll(() => ap.peer.ping(AP_NET.gateway), (up) => up, 120_000, `${ap.name} reaches the gateway`);

    const [stationPhy, stationIfname] = radios[2]!;
    station = new GuestPeer(gw, 'sta');
    await station.create(0);
    await agent.run(['/usr/sbin/iw', 'phy', stationPhy, 'set', 'netns', 'name', station.ns]);
    stationIf = stationIfname;
    stationMac = JSON.parse(await station.run([IP, '-j', 'link', 'show', stationIf]))[0].address;
  }, 2 * BOOT_LIMIT_MS);

  afterAll(async () => {
    if (!gw) return;
    // PORTICO_VM_DEBUG=1: the agents' and the daemon's journals, for a failed run.
    if (process.env.PORTICO_VM_DEBUG) {
      for (const ap of [...aps, ...cpes]) console.log(await gw.vm.agent.exec(['/usr/bin/journalctl', '-u', `portico-agent-${ap.name}`, '--no-pager', '-o', 'cat']).then((r) => r.stdout, String));
      console.log(await gw.vm.agent.exec(['/usr/bin/journalctl', '-u', 'portico.service', '--no-pager', '-o', 'cat', '-n', '200']).then((r) => r.stdout, String));
    }
    await gw.down();
  });

  test('two APs running the agent with certificates from the console wait for adoption, are adopted into a group and broadcast its WPA2 SSID', async () => {
    const started = Date.now();
    for (const ap of aps) await installAgent(ap);
    await expect.poll(async () => ((await api('ac/apbind')).items as Array<{ serial: string }>).map((r) => r.serial).sort(), { timeout: 120_000 }).toEqual(aps.map((ap) => ap.serial));
    // Pending devices get nothing: no hostapd runs yet.
    for (const ap of aps) expect(await hostapdStatus(ap)).toBe('');

    const added = await admin.write('ac/apgroup', { action: 'add', name: 'Hall', country: 'CN', channel2g: 6, enabled5g: false, macFilter: 'blacklist', reportInterval: REPORT_S });
    group = String((added.data as { id: string }).id);
    await admin.write('ac/ssid', { action: 'add', group, ssid: SSID, security: 'wpa2psk', key: PASSPHRASE, band: '2g' });
    const adopted = await command('ac/apcmd', { action: 'adopt', serials: aps.map((ap) => ap.serial), group });
    expect(adopted).toEqual({ done: aps.map((ap) => ap.serial), refused: [] });

    for (const ap of aps) {
      await expect.poll(async () => statusField(await hostapdStatus(ap), 'state'), { timeout: 120_000 }).toBe('ENABLED');
      const status = await hostapdStatus(ap);
      expect(statusField(status, 'ssid\\[0\\]')).toBe(SSID);
      expect(statusField(status, 'channel')).toBe('6');
    }
    await expect
      .poll(async () => ((await api('ac/aplist')).items as Array<Record<string, unknown>>).map((r) => [r.serial, r.status, r.online, r.configOutcome]).sort(), { timeout: 60_000 })
      .toEqual(aps.map((ap) => [ap.serial, 'adopted', true, 'applied']));
    record({ test: 'wireless', adoptedSeconds: round((Date.now() - started) / 1000) });
  });

  test('a WPA2 station associates and shows in the station list with its RSSI', async () => {
    await station.run(['/usr/bin/tee', '/run/sta-wpa.conf'], {
      input: ['ctrl_interface=/run/wpa_supplicant-sta', 'network={', `  ssid="${SSID}"`, `  psk="${PASSPHRASE}"`, '  key_mgmt=WPA-PSK', '}', ''].join('\n'),
    });
    await station.run(['/usr/sbin/wpa_supplicant', '-B', '-i', stationIf, '-c', '/run/sta-wpa.conf', '-P', '/run/sta-wpa.pid']);
    await expect.poll(stationLink, { timeout: 60_000 }).toMatch(/^[0-9a-f:]{17}$/);
    await expect.poll(async () => (await stationRows()).filter((row) => row.mac === stationMac), { timeout: 4 * REPORT_S * 1000 }).toHaveLength(1);
    const [row] = (await stationRows()).filter((r) => r.mac === stationMac);
    expect(row).toMatchObject({ mac: stationMac, ssid: SSID });
    expect(typeof row!.rssi).toBe('number');
    expect(row!.rssi).toBeLessThan(0);
    record({ test: 'wireless', stationRssi: row!.rssi });
  });

  test('a black-list entry disconnects the station', async () => {
    expect(await stationLink()).not.toBe('');
    const written = Date.now();
    await admin.write('ac/macfilter', { action: 'add', list: 'blacklist', mac: stationMac, group });
    await expect.poll(stationLink, { timeout: 60_000, interval: 100 }).toBe('');
    const seconds = (Date.now() - written) / 1000;
    record({ test: 'wireless', blacklistDisconnectSeconds: round(seconds) });
    // Both APs refuse it from now on, and the controller stops listing it.
    for (const ap of aps) {
      await expect.poll(() => ap.peer.run(['/usr/sbin/hostapd_cli', '-p', ap.hostapdDir, '-i', ap.ifname, 'deny_acl', 'SHOW']), { timeout: 30_000 }).toContain(stationMac);
    }
    await expect.poll(async () => (await stationRows()).filter((row) => row.mac === stationMac), { timeout: 4 * REPORT_S * 1000 }).toEqual([]);
    expect(await stationLink()).toBe('');
  });

  test('left to the planner, the two APs on channel 6 are planned onto channels that do not overlap, and hostapd runs on them', async () => {
    // The planner chooses for radios whose group leaves the channel to it; until a plan is
    // saved, hostapd's own ACS picks (recorded as channelsBefore).
    await admin.write('ac/apgroup', { action: 'update', id: group, channel2g: 'auto' });
    // The new document reached each AP (its hostapd file asks for ACS), and hostapd runs again.
    for (const ap of aps) {
      await expect.poll(async () => (await gw.vm.agent.exec(['/usr/bin/grep', '-rl', 'channel=acs_survey', `/run/portico-agent-${ap.name}/conf`])).stdout, { timeout: 60_000 }).not.toBe('');
      await expect.poll(async () => statusField(await hostapdStatus(ap), 'state'), { timeout: 120_000 }).toBe('ENABLED');
    }
    const before = await Promise.all(aps.map(async (ap) => Number(statusField(await hostapdStatus(ap), 'channel'))));

    const started = Date.now();
    // An AP whose scan failed is named and left out of the plan; as on the console, the run is
    // started again until every AP answered its scan (iw on the simulated radio), a few times at most.
    let runs = 0;
    let result: Record<string, any> = {};
    while (runs < 3) {
      runs += 1;
      await command('ac/startscan', { action: 'start' });
      await expect.poll(async () => (await api('ac/scanresult')).state, { timeout: 180_000 }).toMatch(/^(planned|scanFailed|planFailed)$/);
      result = await api('ac/scanresult');
      if (result.state === 'planned' && result.failed.length === 0) break;
    }
    expect(result).toMatchObject({ state: 'planned', failed: [] });
    const plan = result.plan as { scoreBefore: number; scoreAfter: number; aps: Array<{ serial: string; radios: Array<{ band: string; channel: number }> }> };
    expect(plan.scoreAfter).toBeLessThanOrEqual(plan.scoreBefore);
    const planned = aps.map((ap) => plan.aps.find((p) => p.serial === ap.serial)!.radios[0]!.channel);
    // 20 MHz wide, channels four apart do not overlap.
    expect(Math.abs(planned[0]! - planned[1]!)).toBeGreaterThanOrEqual(4);
    await command('ac/startscan', { action: 'save' });
    await expect.poll(async () => (await api('ac/scanresult')).state, { timeout: 60_000 }).toBe('saved');
    for (const [i, ap] of aps.entries()) {
      await expect
        .poll(async () => {
          const status = await hostapdStatus(ap);
          return statusField(status, 'state') === 'ENABLED' ? Number(statusField(status, 'channel')) : 0;
        }, { timeout: 120_000 })
        .toBe(planned[i]);
    }
    record({ test: 'wireless', channelsBefore: before, channelsPlanned: planned, planningRuns: runs, planToAppliedSeconds: round((Date.now() - started) / 1000) });
  });

  test('a CPE in receiver mode links to a CPE in base mode, and the CPE topology shows the link', async () => {
    const link = { band: '2g', country: 'CN', channel: 1, width: 20, ssid: 'north-link', key: 'bridge-passphrase' };
    const base = String(((await admin.write('ac/cpe', { action: 'add', name: 'north', mode: 'base', ...link })).data as { id: string }).id);
    const receiving = String(((await admin.write('ac/cpe', { action: 'add', name: 'north-rx', mode: 'receiver', ...link })).data as { id: string }).id);
    for (const cpe of cpes) await installAgent(cpe);
    await expect.poll(async () => ((await api('ac/cpelist')).items as Array<{ serial: string }>).map((r) => r.serial).sort(), { timeout: 120_000 }).toEqual(cpes.map((c) => c.serial));
    expect(await command('ac/cpecmd', { action: 'adopt', serials: [cpes[0]!.serial], group: base })).toEqual({ done: [cpes[0]!.serial], refused: [] });
    expect(await command('ac/cpecmd', { action: 'adopt', serials: [cpes[1]!.serial], group: receiving })).toEqual({ done: [cpes[1]!.serial], refused: [] });
    // The receiver's radio is a four-address station of the base's BSS.
    await expect.poll(async () => cpes[1]!.peer.run(['/usr/sbin/iw', 'dev', cpes[1]!.ifname, 'link']), { timeout: 120_000 }).toMatch(/Connected to [0-9a-f:]{17}[\s\S]*SSID: north-link/);
    await expect
      .poll(async () => ((await api('ac/topology?kind=cpe')).links as Array<Record<string, unknown>>).filter((l) => l.medium === 'wireless'), { timeout: 150_000 })
      .toEqual([expect.objectContaining({ from: cpes[0]!.serial, to: cpes[1]!.serial, medium: 'wireless', signal: expect.any(Number) })]);
    const shown = ((await api('ac/topology?kind=cpe')).links as Array<{ medium: string; signal: number }>).find((l) => l.medium === 'wireless');
    record({ test: 'wireless', cpeLinkSignal: shown?.signal });
  });
});
