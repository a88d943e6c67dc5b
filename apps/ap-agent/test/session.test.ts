import { afterEach, describe, expect, it } from 'vitest';
import { rpcRequest, type DeviceConfigInput } from '@portico/schema';
import { REJECT_REASONS } from '../src/ap-agent-config-plan.js';
import type { DriverSnapshot } from '../src/ap-agent-radio-driver.js';
import { agentSettings, configInput, SERIAL, ssid } from './agent-fixtures.js';
import { FakeClock } from './fake-clock.js';
import { FakeRadioDriver } from './fake-radio-driver.js';
import { startAgent, type AgentUnderTest } from './session-harness.js';

const running: AgentUnderTest[] = [];
async function agent(...args: Parameters<typeof startAgent>): Promise<AgentUnderTest> {
  const started = await startAgent(...args);
  running.push(started);
  return started;
}
afterEach(() => {
  for (const a of running.splice(0)) a.session.stop();
});

const configure = (uuid: number, config: DeviceConfigInput, when = 0) => ({ serial: SERIAL, uuid, when, config: { ...config, uuid } });

const twoBands: DriverSnapshot = {
  radios: [
    { index: 0, band: '2G', channel: 6, width: 20, txPowerDbm: 20 },
    { index: 1, band: '5G', channel: 36, width: 80, txPowerDbm: 23 },
  ],
  bsses: [
    {
      radioIndex: 0,
      ifname: 'wlan0',
      interfaceName: 'lan',
      bssid: '02:aa:bb:cc:dd:00',
      ssid: 'Office',
      mode: 'ap',
      band: '2G',
      channel: 6,
      steeringThreshold: -70,
      associations: [
        { station: '02:11:22:33:44:01', rssi: -80, rx_bytes: 1, tx_bytes: 2, connected: 30, inactive: 0 },
        { station: '02:11:22:33:44:02', rssi: -50, rx_bytes: 1, tx_bytes: 2, connected: 30, inactive: 0 },
      ],
    },
    { radioIndex: 1, ifname: 'wlan1', interfaceName: 'lan', bssid: '02:aa:bb:cc:dd:10', ssid: 'Office', mode: 'ap', band: '5G', channel: 36, steeringThreshold: -70, associations: [] },
  ],
};

describe('AP agent session', () => {
  it('sends connect first, then state every statistics interval and healthcheck every health interval', async () => {
    const driver = new FakeRadioDriver();
    driver.snapshotValue = twoBands;
    driver.checks = [
      { name: 'hostapd wlan0', ok: true },
      { name: 'hostapd wlan1', ok: false },
    ];
    const a = await agent(driver);
    const ctl = await a.controller();
    expect(await ctl.next('connect')).toEqual({
      serial: SERIAL,
      uuid: 0,
      firmware: 'OpenWrt 23.05.5',
      wanip: [],
      capabilities: { platform: 'ap', model: 'portico-ap', compatible: 'portico-ap' },
    });
    expect(ctl.received[0]!.method).toBe('connect');
    await a.clock.advance(59_000);
    expect(ctl.notifications('state')).toEqual([]);
    await a.clock.advance(1000);
    const state = await ctl.next('state');
    expect(state.uuid).toBe(0);
    expect(state.state).toMatchObject({
      unit: { load: [0.1, 0.2, 0.3], uptime: 100 },
      radios: [
        { band: '2G', channel: 6, channel_width: 20, tx_power: 20 },
        { band: '5G', channel: 36, channel_width: 80, tx_power: 23 },
      ],
      interfaces: [{ name: 'lan', ssids: [{ ssid: 'Office', bssid: '02:aa:bb:cc:dd:00', mode: 'ap', band: '2G' }, { ssid: 'Office', bssid: '02:aa:bb:cc:dd:10' }] }],
    });
    for (let minute = 2; minute <= 5; minute++) {
      await a.clock.advance(60_000);
      await ctl.next('state');
    }
    expect(ctl.notifications('state')).toHaveLength(5);
    expect(await ctl.next('healthcheck')).toEqual({ serial: SERIAL, uuid: 0, sanity: 50 });
    expect(ctl.notifications('healthcheck')).toHaveLength(1);
  });

  it('answers configure with 0 when applied as is, persists it, and reports its uuid after a restart', async () => {
    const settings = agentSettings();
    const driver = new FakeRadioDriver();
    const a = await agent(driver, { settings });
    const ctl = await a.controller();
    const answer = await ctl.call('configure', configure(7, configInput([ssid()], { metrics: { statistics: { interval: 10 } } })));
    expect(answer.result).toEqual({ serial: SERIAL, uuid: 7, status: { error: 0, text: '', rejected: [] } });
    expect(driver.applied.map((p) => p.uuid)).toEqual([7]);
    expect(driver.applied[0]!.radios[0]!.bsses.map((b) => [b.ifname, b.ssid.name])).toEqual([['wlan0', 'Office']]);
    // The new statistics interval takes over from the default.
    await a.clock.advance(10_000);
    expect((await ctl.next('state')).uuid).toBe(7);
    a.session.stop();

    const restartedDriver = new FakeRadioDriver();
    const b = await agent(restartedDriver, { settings });
    expect(restartedDriver.applied.map((p) => p.uuid)).toEqual([7]);
    expect((await (await b.controller()).next('connect')).uuid).toBe(7);
  });

  it('answers 1 with the substitutions it made, and 2 with reasons for what it cannot run', async () => {
    const driver = new FakeRadioDriver();
    const a = await agent(driver);
    const ctl = await a.controller();
    const radar = configInput([ssid({ 'wifi-bands': ['5G'] })], { radios: [{ band: '2G', country: 'CN', channel: 6 }, { band: '5G', country: 'CN', channel: 52 }] });
    const substituted = await ctl.call('configure', configure(8, radar));
    expect(substituted.result).toEqual({
      serial: SERIAL,
      uuid: 8,
      status: { error: 1, text: '', rejected: [{ parameter: { 'radios[1].channel': 52 }, reason: REJECT_REASONS.dfsNotAllowed, substitution: { 'radios[1].channel': 'auto' } }] },
    });
    expect(driver.applied.at(-1)!.radios[1]!.channel).toBe('auto');

    const unknownCountry = configInput([ssid()], { radios: [{ band: '2G', country: 'XX', channel: 6 }] });
    const refused = await ctl.call('configure', configure(9, unknownCountry));
    expect(refused.result).toEqual({
      serial: SERIAL,
      uuid: 9,
      status: { error: 2, text: 'ucentral.status.configRejected', rejected: [{ parameter: { 'radios[0].country': 'XX' }, reason: REJECT_REASONS.countryUnknown }] },
    });
    const invalid = await ctl.call('configure', configure(10, configInput([ssid({ name: 'x'.repeat(40) })])));
    expect(invalid.result?.status).toEqual({
      error: 2,
      text: 'ucentral.status.configRejected',
      rejected: [{ parameter: { 'interfaces.0.ssids.0.name': null }, reason: 'validation.ssid.length' }],
    });
    driver.failApply = true;
    const failed = await ctl.call('configure', configure(11, configInput()));
    expect((failed.result?.status as { error: number }).error).toBe(2);
    // Nothing refused replaced what runs.
    expect(driver.applied.map((p) => p.uuid)).toEqual([8]);
    expect((await ctl.call('ping', { serial: SERIAL })).result?.uuid).toBe(8);
  });

  it('holds a configuration for later: answers with when, sends cfgpending, applies at that time', async () => {
    const clock = new FakeClock();
    const driver = new FakeRadioDriver();
    const a = await agent(driver, { clock });
    const ctl = await a.controller();
    const when = Math.floor(clock.now() / 1000) + 3600;
    const answer = await ctl.call('configure', configure(12, configInput(), when));
    expect(answer.result).toEqual({ serial: SERIAL, uuid: 12, status: { error: 0, text: '', when, rejected: [] } });
    expect(await ctl.next('cfgpending')).toEqual({ serial: SERIAL, active: 0, uuid: 12 });
    expect(driver.applied).toEqual([]);
    await clock.advance(3600_000);
    // Applied, kept, and told at once through a state report with the new uuid.
    await ctl.next('state', (p) => p.uuid === 12);
    expect(driver.applied.map((p) => p.uuid)).toEqual([12]);
    expect((await ctl.call('ping', { serial: SERIAL })).result?.uuid).toBe(12);
  });

  it('steers a station under the threshold with a BSS transition request, at most once a minute', async () => {
    const clock = new FakeClock();
    const driver = new FakeRadioDriver(() => clock.now());
    driver.snapshotValue = twoBands;
    const a = await agent(driver, { clock });
    const ctl = await a.controller();
    await ctl.call('configure', configure(3, configInput([ssid()], { metrics: { statistics: { interval: 10 } } })));
    const start = clock.now();
    for (let round = 1; round <= 8; round++) {
      await clock.advance(10_000);
      await ctl.next('state');
    }
    expect(driver.steered.map((s) => (s.at - start) / 1000)).toEqual([10, 70]);
    expect(driver.steered[0]).toMatchObject({
      ifname: 'wlan0',
      station: '02:11:22:33:44:01',
      candidates: [{ bssid: '02:aa:bb:cc:dd:10', channel: 36, band: '5G', width: 80 }],
    });
  });

  it('answers ping, request, wifiscan, leds, reboot and rrm, and method-not-found for anything else', async () => {
    const clock = new FakeClock();
    const driver = new FakeRadioDriver();
    driver.snapshotValue = twoBands;
    driver.scanResult = [{ bssid: '02:00:00:00:02:00', ssid: 'Cafe', channel: 149, width: 80, signal: -60 }];
    const a = await agent(driver, { clock });
    const ctl = await a.controller();
    expect((await ctl.call('ping', { serial: SERIAL })).result).toEqual({ serial: SERIAL, uuid: 0, deviceUTCTime: clock.now() });

    expect((await ctl.call('request', { serial: SERIAL, message: 'state', request_uuid: 'r-1' })).result).toEqual({ serial: SERIAL, status: { error: 0, text: '' } });
    expect((await ctl.next('state')).request_uuid).toBe('r-1');

    const scan = await ctl.call('wifiscan', { serial: SERIAL, bands: ['5'], active: 0 });
    expect(scan.result).toEqual({ serial: SERIAL, status: { error: 0, text: '' }, scan: driver.scanResult });
    expect(driver.scans).toEqual([{ active: false, bands: ['5'] }]);

    expect((await ctl.call('leds', { serial: SERIAL, pattern: 'blink', duration: 5000 })).result).toEqual({ serial: SERIAL, status: { error: 0, text: '' } });
    expect(a.system.calls).toEqual([['leds', 'blink', 5000]]);

    const roam = await ctl.call('rrm', {
      serial: SERIAL,
      actions: [
        { type: 'roam', bss: ['02:00:00:00:02:00'], params: { station: '02:11:22:33:44:02' } },
        { type: 'tx-power', bss: ['02:aa:bb:cc:dd:10'], params: { level: 14 } },
        { type: 'channel-switch', bss: [], params: { channel: 149 } },
      ],
    });
    expect(roam.result).toEqual({ serial: SERIAL, status: { error: 0, text: '' } });
    // The target was heard in the last scan: its channel goes into the neighbour report.
    expect(driver.steered).toMatchObject([{ ifname: 'wlan0', station: '02:11:22:33:44:02', candidates: [{ bssid: '02:00:00:00:02:00', channel: 149, band: '5G' }] }]);
    expect(driver.txPower).toEqual([[1, 14]]);
    expect(driver.channelSwitches).toEqual([[1, 149]]);
    const partial = await ctl.call('rrm', { serial: SERIAL, actions: [{ type: 'beacon-request', bss: [], params: {} }] });
    expect(partial.result?.status).toEqual({ error: 2, text: 'ucentral.status.rrmFailed' });

    const reboot = await ctl.call('reboot', { serial: SERIAL });
    expect(reboot.result).toEqual({ serial: SERIAL, status: { error: 0, text: '', when: Math.floor(clock.now() / 1000) } });
    expect(a.system.calls.filter(([c]) => c === 'reboot')).toEqual([]);
    await clock.advance(1000);
    expect(a.system.calls.filter(([c]) => c === 'reboot')).toEqual([['reboot']]);

    const unknown = await ctl.call('telemetry', { serial: SERIAL, interval: 5 });
    expect(unknown.error).toEqual({ code: -32601, message: 'method not found' });
    const otherDevice = await ctl.call('ping', { serial: '0242ac110099' });
    expect(otherDevice.error?.code).toBe(-32602);
  });

  it('dials again with exponential back-off when the link closes or cannot open', async () => {
    const clock = new FakeClock();
    const driver = new FakeRadioDriver();
    let failuresLeft = 2;
    const a = await agent(driver, { clock });
    const first = await a.controller();
    await first.next('connect');
    first.link.close(1001, 'controller restarting');
    // Both ends see the close in the same turn.
    await expect.poll(() => first.closed).toBe(true);
    // The factory fails twice before it gives a link again: waits of 1 s, 2 s, 4 s.
    const original = a.session as unknown as { options: { connect: () => Promise<unknown> } };
    const connect = original.options.connect;
    original.options.connect = async () => {
      if (failuresLeft-- > 0) throw new Error('ECONNREFUSED');
      return connect();
    };
    await clock.advance(999);
    expect(a.ends).toHaveLength(1);
    await clock.advance(1 + 2000 + 3999);
    expect(a.ends).toHaveLength(1);
    await clock.advance(1);
    expect(a.ends).toHaveLength(2);
    expect((await a.ends[1]!.next('connect')).serial).toBe(SERIAL);
  });

  it('closes a link that sends what is not JSON-RPC', async () => {
    const a = await agent(new FakeRadioDriver());
    const ctl = await a.controller();
    ctl.send('{"jsonrpc":"2.0","method":"ping","params":{},"id":-1}');
    await expect.poll(() => ctl.closed).toBe(true);
    expect(rpcRequest(1, 'ping', {})).toContain('"id":1');
  });
});
