import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceConfigInput } from '@portico/schema';
import type { CommandRunner } from '../src/ap-agent-command.js';
import { HostapdRadioDriver, type DaemonSupervisor } from '../src/ap-agent-hostapd-driver.js';
import { planConfig } from '../src/ap-agent-config-plan.js';
import { agentSettings, configInput, deviceConfig, renderPaths, SERIAL, ssid } from './agent-fixtures.js';
import { startAgent, type AgentUnderTest } from './session-harness.js';

/**
 * hostapd, hostapd_cli and iw are not on the test machine: every command the driver runs is
 * recorded and answered from the recorded outputs under fixtures/.
 */

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');

function recordingRunner(): { run: CommandRunner; commands: string[][] } {
  const commands: string[][] = [];
  const run: CommandRunner = async (argv) => {
    commands.push([...argv]);
    const stdout = argv.includes('all_sta') ? fixture('hostapd-all-sta.txt') : argv.includes('status') ? fixture('hostapd-status.txt') : argv[0] === 'iw' && argv[1] === 'dev' && argv.length === 2 ? fixture('iw-dev.txt') : 'OK';
    return { exitCode: 0, stdout, stderr: '' };
  };
  return { run, commands };
}

/** Daemons that "run" once started, with every start and stop recorded. */
class RecordingSupervisor implements DaemonSupervisor {
  readonly events: string[][] = [];
  private readonly running = new Set<string>();
  pidFile(name: string): string {
    return `/run/agent/pid/${name}.pid`;
  }
  async isRunning(name: string): Promise<boolean> {
    return this.running.has(name);
  }
  async start(name: string, argv: readonly string[]): Promise<void> {
    this.events.push(['start', ...argv]);
    this.running.add(name);
  }
  async stop(name: string): Promise<void> {
    if (this.running.delete(name)) this.events.push(['stop', name]);
  }
}

const running: AgentUnderTest[] = [];
afterEach(() => {
  for (const a of running.splice(0)) a.session.stop();
});

async function hostapdAgent() {
  const settings = agentSettings({ hostapdControlDir: '/run/hostapd' });
  const { run, commands } = recordingRunner();
  const supervisor = new RecordingSupervisor();
  const driver = new HostapdRadioDriver({ run, paths: renderPaths(settings), supervisor, radios: settings.radios });
  const a = await startAgent(driver, { settings });
  running.push(a);
  const ctl = await a.controller();
  const configure = async (uuid: number, config: DeviceConfigInput) => {
    commands.length = 0;
    supervisor.events.length = 0;
    const answer = await ctl.call('configure', { serial: SERIAL, uuid, config: { ...config, uuid } });
    expect((answer.result?.status as { error: number }).error).toBe(0);
  };
  return { settings, commands, supervisor, configure, ctl, confDir: renderPaths(settings).confDir };
}

const denying = (...macs: string[]) => configInput([ssid({ 'access-control-list': { mode: 'deny', 'mac-address': macs } })]);
const cli = (...args: string[]) => ['hostapd_cli', '-p', '/run/hostapd', '-i', 'wlan0', ...args];

describe('hostapd radio driver', () => {
  it('starts one hostapd per radio that carries an SSID and sets its transmit power', async () => {
    const { configure, commands, supervisor, confDir } = await hostapdAgent();
    await configure(1, configInput([ssid()], { radios: [{ band: '2G', country: 'CN', channel: 6, 'tx-power': 17 }, { band: '5G', country: 'CN', channel: 36 }] }));
    expect(supervisor.events).toEqual([
      ['start', 'hostapd', '-B', '-P', '/run/agent/pid/hostapd-wlan0.pid', join(confDir, 'hostapd-wlan0.conf')],
    ]);
    expect(commands).toEqual([['iw', 'dev', 'wlan0', 'set', 'txpower', 'fixed', '1700']]);
  });

  it('applies a black-list change at run time: deny_acl and an immediate deauthenticate, no reload or restart', async () => {
    const { configure, commands, supervisor, confDir } = await hostapdAgent();
    await configure(1, denying('aa:bb:cc:00:00:01'));
    await configure(2, denying('aa:bb:cc:00:00:01', 'AA:BB:CC:00:00:02', 'aa:bb:cc:00:00:03'));
    expect(commands).toEqual([
      cli('deny_acl', 'ADD_MAC', 'aa:bb:cc:00:00:02'),
      cli('deauthenticate', 'aa:bb:cc:00:00:02'),
      cli('deny_acl', 'ADD_MAC', 'aa:bb:cc:00:00:03'),
      cli('deauthenticate', 'aa:bb:cc:00:00:03'),
    ]);
    expect(supervisor.events).toEqual([]);
    // The file follows, so a later restart of hostapd keeps the list.
    expect(readFileSync(join(confDir, 'wlan0.deny'), 'utf8')).toBe('aa:bb:cc:00:00:01\naa:bb:cc:00:00:02\naa:bb:cc:00:00:03\n');
    await configure(3, denying('aa:bb:cc:00:00:03'));
    expect(commands).toEqual([cli('deny_acl', 'DEL_MAC', 'aa:bb:cc:00:00:01'), cli('deny_acl', 'DEL_MAC', 'aa:bb:cc:00:00:02')]);
  });

  it('reloads for BSS options and disconnects the stations a new allow list leaves out', async () => {
    const { configure, commands, supervisor } = await hostapdAgent();
    await configure(1, configInput());
    await configure(2, configInput([ssid({ 'access-control-list': { mode: 'allow', 'mac-address': ['02:11:22:33:44:01'] } })]));
    expect(commands).toEqual([
      cli('reload'),
      cli('all_sta'),
      // The fixture's other two stations are not on the list.
      cli('deauthenticate', '02:11:22:33:44:02'),
      cli('deauthenticate', '02:11:22:33:44:03'),
    ]);
    expect(supervisor.events).toEqual([]);
  });

  it('restarts hostapd when the channel or the set of BSSes changes, and stops a radio left without SSIDs', async () => {
    const { configure, supervisor, confDir, commands } = await hostapdAgent();
    await configure(1, configInput([ssid({ 'wifi-bands': ['2G', '5G'] })]));
    await configure(2, configInput([ssid({ 'wifi-bands': ['2G', '5G'] }), ssid({ name: 'Guest', 'wifi-bands': ['2G'] })]));
    expect(supervisor.events).toEqual([
      ['stop', 'hostapd-wlan0'],
      ['start', 'hostapd', '-B', '-P', '/run/agent/pid/hostapd-wlan0.pid', join(confDir, 'hostapd-wlan0.conf')],
    ]);
    expect(commands).toEqual([]);
    await configure(3, configInput([ssid({ 'wifi-bands': ['2G'] })]));
    expect(supervisor.events).toEqual([
      ['stop', 'hostapd-wlan0'],
      ['start', 'hostapd', '-B', '-P', '/run/agent/pid/hostapd-wlan0.pid', join(confDir, 'hostapd-wlan0.conf')],
      ['stop', 'hostapd-wlan1'],
    ]);
    await configure(4, configInput([ssid({ 'wifi-bands': ['2G'] })], { radios: [{ band: '2G', country: 'CN', channel: 11 }, { band: '5G', country: 'CN', channel: 36 }] }));
    expect(supervisor.events).toEqual([
      ['stop', 'hostapd-wlan0'],
      ['start', 'hostapd', '-B', '-P', '/run/agent/pid/hostapd-wlan0.pid', join(confDir, 'hostapd-wlan0.conf')],
    ]);
  });

  it('runs a CPE receiver radio as a four-address wpa_supplicant station in the bridge', async () => {
    const { configure, supervisor, commands, confDir } = await hostapdAgent();
    await configure(1, configInput([ssid({ 'bss-mode': 'wds-sta', 'wifi-bands': ['5G'] })]));
    expect(commands).toEqual([
      ['iw', 'dev', 'wlan1', 'set', '4addr', 'on'],
      ['iw', 'dev', 'wlan1', 'set', 'txpower', 'auto'],
    ]);
    expect(supervisor.events).toEqual([
      ['start', 'wpa_supplicant', '-B', '-P', '/run/agent/pid/wpa_supplicant-wlan1.pid', '-i', 'wlan1', '-D', 'nl80211', '-c', join(confDir, 'wpa_supplicant-wlan1.conf'), '-b', 'br-lan'],
    ]);
  });

  it('reports state from hostapd_cli status and all_sta', async () => {
    const { configure, ctl } = await hostapdAgent();
    await configure(1, configInput([ssid({ 'wifi-bands': ['5G'] })]));
    await ctl.call('request', { serial: SERIAL, message: 'state' });
    const state = (await ctl.next('state')).state as { radios: unknown[]; interfaces: Array<{ ssids: Array<{ bssid: string; associations: unknown[] }> }> };
    expect(state.radios).toEqual([{ band: '5G', channel: 36, channel_width: 80, tx_power: 23 }]);
    expect(state.interfaces[0]!.ssids[0]!.bssid).toBe('02:aa:bb:cc:dd:10');
    expect(state.interfaces[0]!.ssids[0]!.associations).toEqual([
      { station: '02:11:22:33:44:01', rssi: -58, rx_rate: { bitrate: 866_700 }, tx_rate: { bitrate: 780_000 }, rx_bytes: 183220, tx_bytes: 2219043, connected: 3605, inactive: 1 },
      { station: '02:11:22:33:44:02', rssi: -81, rx_rate: { bitrate: 1000 }, tx_rate: { bitrate: 6500 }, rx_bytes: 1200, tx_bytes: 900, connected: 12, inactive: 58 },
    ]);
  });
});

describe('hostapd radio driver on a wired port', () => {
  const STATION = '8a:bb:f8:c7:85:23';
  const settings = agentSettings({ hostapdControlDir: '/run/hostapd', radios: [{ phy: 'phy0', interface: 'eth1', driver: 'wired' }], bridges: {} });
  const radius = { authentication: { host: '127.0.0.1', port: 1812, secret: 'radius-secret' } };
  const plan = (deny: string[]) => {
    const outcome = planConfig(
      deviceConfig([ssid({ encryption: { proto: 'wpa2' }, radius, 'access-control-list': { mode: 'deny', 'mac-address': deny } })], { radios: [{ band: '2G', country: 'CN', channel: 6 }] }),
      1,
      settings,
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.refusals));
    return outcome.plan;
  };
  function wiredDriver() {
    const commands: string[][] = [];
    const run: CommandRunner = async (argv) => {
      commands.push([...argv]);
      // hostapd's wired driver answers `status` with channel 0 and its one BSS.
      const stdout = argv.includes('all_sta') ? fixture('hostapd-all-sta-wired.txt') : argv.includes('status') ? 'state=ENABLED\nchannel=0\nbss[0]=eth1\nbssid[0]=7a:d8:61:ce:ca:83\n' : 'OK';
      return { exitCode: 0, stdout, stderr: '' };
    };
    const supervisor = new RecordingSupervisor();
    const driver = new HostapdRadioDriver({ run, paths: renderPaths(settings), supervisor, radios: settings.radios });
    return { driver, commands, supervisor };
  }
  const deauth = ['hostapd_cli', '-p', '/run/hostapd', '-i', 'eth1', 'deauthenticate', STATION];

  it('runs hostapd with no transmit power and reports an 802.1X-authorised station without RSSI', async () => {
    const { driver, commands, supervisor } = wiredDriver();
    await driver.apply(plan([]));
    expect(supervisor.events.map((e) => e.slice(0, 2))).toEqual([['start', 'hostapd']]);
    expect(commands.filter((c) => c[0] === 'iw')).toEqual([]);
    const snapshot = await driver.snapshot();
    expect(snapshot.radios).toEqual([{ index: 0, band: '2G' }]);
    expect(snapshot.bsses).toMatchObject([{ ifname: 'eth1', bssid: '7a:d8:61:ce:ca:83', associations: [{ station: STATION, rx_bytes: 0 }] }]);
    expect(snapshot.bsses[0]!.associations[0]).not.toHaveProperty('rssi');
    expect(await driver.scan({ active: false })).toEqual([]);
  });

  it('enforces its deny list itself: hostapd\'s wired driver lets a listed station authenticate again', async () => {
    const { driver, commands } = wiredDriver();
    await driver.apply(plan([]));
    commands.length = 0;
    // Only the list changed: edited in the running hostapd, the station sent away.
    await driver.apply(plan([STATION]));
    expect(commands).toEqual([
      ['hostapd_cli', '-p', '/run/hostapd', '-i', 'eth1', 'deny_acl', 'ADD_MAC', STATION],
      deauth,
    ]);
    // Back (hostapd lists it authorised again): each report round sends it away and leaves it out.
    commands.length = 0;
    const snapshot = await driver.snapshot();
    expect(snapshot.bsses[0]!.associations).toEqual([]);
    expect(commands).toContainEqual(deauth);
  });
});
