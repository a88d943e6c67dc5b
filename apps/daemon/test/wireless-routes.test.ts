import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { apGroup, apMacFilter, cpeProfile, wirelessSsid } from '@portico/schema';
import { adminClient, CONDITION_WAIT, get, json, post, startDaemon, writeConfirmed, type Client, type Harness } from './daemon-harness.js';
import { FakeDevice, settle } from './fixtures/wireless/wireless-fake-device.js';
import { wirelessServiceOf } from '../src/domains/wireless/wireless-module.js';

let h: Harness;
let admin: Client;
beforeAll(async () => {
  h = await startDaemon();
  admin = await adminClient(h);
});
afterAll(async () => {
  await h.close();
});

const api = async (path: string, query = '') => json(await get(h.app, admin, `/api/${path}${query}`));
const command = async (path: string, body: Record<string, unknown>) => json(await post(h.app, admin, `/api/${path}`, body));
const controller = () => wirelessServiceOf(h.app.appContext)!.controller;

describe('an access point from first connection to stations on the console', () => {
  const serial = '02aabbcc0001';
  let device: FakeDevice;
  let group: string;

  test('a new AP waits for adoption and is sent nothing', async () => {
    group = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Lobby', channel2g: 6, macFilter: 'blacklist' });
    await writeConfirmed(h, admin, wirelessSsid, { action: 'add', group, ssid: 'Lobby <b>Guest</b>', security: 'wpa2psk', key: 'lobby-passphrase' });
    device = new FakeDevice(serial, controller());
    device.connect();
    await vi.waitFor(async () => expect((await api('ac/apbind')).data.total).toBe(1), CONDITION_WAIT);
    const pending = (await api('ac/aplist', '?status=pending')).data;
    expect(pending.items[0]).toMatchObject({ serial, status: 'pending', online: true, model: 'PX-1' });
    expect(pending.counts).toMatchObject({ pending: 1, adopted: 0 });
    expect(device.configures).toHaveLength(0);
  });

  test('adopted into a group it gets the SSID the console configured and reports stations', async () => {
    const adopted = await command('ac/apcmd', { action: 'adopt', serials: [serial], group });
    expect(adopted).toMatchObject({ success: true, data: { done: [serial], refused: [] } });
    await vi.waitFor(() => expect(device.configures).toHaveLength(1), CONDITION_WAIT);
    const config = device.configures[0]!.params.config as { interfaces: Array<{ ssids: Array<{ name: string; encryption: { key: string } }> }> };
    expect(config.interfaces[0]!.ssids[0]).toMatchObject({ name: 'Lobby <b>Guest</b>', encryption: { key: 'lobby-passphrase' } });
    device.state(2, { interfaces: [{ name: 'lan', ssids: [{ ssid: 'Lobby <b>Guest</b>', bssid: '02:dd:00:00:00:01', band: '2G', associations: [{ station: '02:bb:00:00:00:07', rssi: -48, hostname: '<img src=x onerror=alert(1)>' }] }] }] });
    await vi.waitFor(async () => expect((await api('ac/stalist')).data.total).toBe(1), CONDITION_WAIT);
    await vi.waitFor(async () => expect((await api('ac/aplist')).data.items[0].configOutcome).toBe('applied'), CONDITION_WAIT);
    const station = (await api('ac/stalist')).data.items[0];
    // Device text is passed on as text; the console renders it inert.
    expect(station).toMatchObject({ serial, mac: '02:bb:00:00:00:07', rssi: -48, hostname: '<img src=x onerror=alert(1)>', ssid: 'Lobby <b>Guest</b>' });
    const row = (await api('ac/aplist')).data.items[0];
    expect(row).toMatchObject({ status: 'adopted', groupName: 'Lobby', stations: 1, configOutcome: 'applied', configPending: false });
    const summary = (await api('ac')).data;
    expect(summary.devices).toMatchObject({ online: 1, pending: 0 });
    expect(summary.channels).toEqual([{ band: '2G', channel: 6, devices: 1, stations: 1 }]);
    expect((await api('ac/apinfo', `?serial=${serial}`)).data).toMatchObject({ serial, reasons: [] });
  });

  test('a black-list entry reaches the AP as a new configuration at once', async () => {
    await writeConfirmed(h, admin, apMacFilter, { action: 'add', list: 'blacklist', mac: '02:BB:00:00:00:07', group });
    await vi.waitFor(() => expect(device.configures).toHaveLength(2), CONDITION_WAIT);
    const ssid = (device.configures[1]!.params.config as { interfaces: Array<{ ssids: Array<Record<string, unknown>> }> }).interfaces[0]!.ssids[0]!;
    expect(ssid['access-control-list']).toEqual({ mode: 'deny', 'mac-address': ['02:bb:00:00:00:07'] });
    expect(device.configures[1]!.params.uuid).toBeGreaterThan(device.configures[0]!.params.uuid as number);
  });

  test('what the AP changed in a configuration, and why, reaches the AP list', async () => {
    device.configCode = 1;
    await writeConfirmed(h, admin, apMacFilter, { action: 'add', list: 'blacklist', mac: '02:bb:00:00:00:08', group });
    await vi.waitFor(() => expect(device.configures).toHaveLength(3), CONDITION_WAIT);
    await vi.waitFor(async () => expect((await api('ac/aplist')).data.items[0]).toMatchObject({ configOutcome: 'appliedWithChanges', configReasons: ['channel not allowed'] }), CONDITION_WAIT);
    device.configCode = 0;
  });

  test('commands: an AP up for under an hour is not rebooted; locate, rename; unknown serials are named', async () => {
    device.uptime = 600;
    device.state(0);
    await settle();
    const reboot = await command('ac/apcmd', { action: 'reboot', serials: [serial, '02aabbcc00ff'] });
    expect(reboot.data).toEqual({ done: [], refused: [{ serial: '02aabbcc00ff', reason: 'unknownDevice' }, { serial, reason: 'uptimeUnderHour' }] });
    expect((await command('ac/apcmd', { action: 'blink', serials: [serial] })).data.done).toEqual([serial]);
    expect(device.requests.some((r) => r.method === 'leds' && r.params.pattern === 'blink')).toBe(true);
    expect((await command('ac/apcmd', { action: 'rename', serials: [serial], name: 'lobby-1' })).data.done).toEqual([serial]);
    expect((await api('ac/aplist', '?q=lobby-1')).data.items.map((r: { serial: string }) => r.serial)).toEqual([serial]);
    expect(await command('ac/apcmd', { action: 'explode', serials: [serial] })).toMatchObject({ success: false, errors: { action: 'validation.option' } });
    expect(await command('ac/apcmd', { action: 'reboot', serials: ['../etc'] })).toMatchObject({ success: false });
  });

  test('the topology hangs the AP off the gateway; a group with a bound AP is not deleted', async () => {
    const topology = (await api('ac/topology', '?kind=ap')).data;
    expect(topology.links).toEqual([{ from: 'gateway', to: serial, medium: 'wired', signal: null }]);
    expect(await command(apGroup.path, { action: 'delete', ids: [group] })).toMatchObject({ success: false, msg: 'msg.wirelessGroupInUse' });
  });

  test('revoked, the AP is cut off and refused; forgotten, it waits for adoption again', async () => {
    expect((await command('ac/apcmd', { action: 'revoke', serials: [serial] })).data.done).toEqual([serial]);
    await vi.waitFor(() => expect(device.closedWith).not.toBeNull(), CONDITION_WAIT);
    const again = new FakeDevice(serial, controller());
    await vi.waitFor(() => expect(again.closedWith).not.toBeNull(), CONDITION_WAIT);
    expect((await command('ac/apcmd', { action: 'forget', serials: [serial] })).data.done).toEqual([serial]);
    const third = new FakeDevice(serial, controller());
    third.connect();
    await vi.waitFor(async () => expect((await api('ac/apbind')).data.items.map((r: { serial: string }) => r.serial)).toEqual([serial]), CONDITION_WAIT);
    expect(third.configures).toHaveLength(0);
  });
});

describe('CPEs', () => {
  test('a base and a receiver of one link show linked on the topology; a CPE of another band is refused', async () => {
    const profile = await writeConfirmed(h, admin, cpeProfile, { action: 'add', name: 'north', ssid: 'north-link', key: 'bridge-passphrase', channel: 149 });
    const receiving = await writeConfirmed(h, admin, cpeProfile, { action: 'add', name: 'north-rx', mode: 'receiver', ssid: 'north-link', key: 'bridge-passphrase', channel: 149 });
    const base = new FakeDevice('02cc00000001', controller());
    const receiver = new FakeDevice('02cc00000002', controller());
    const other = new FakeDevice('02cc00000003', controller());
    base.connect('cpe', ['5G']);
    receiver.connect('cpe', ['5G']);
    other.connect('cpe', ['2G']);
    await vi.waitFor(async () => expect((await api('ac/cpelist')).data.total).toBe(3), CONDITION_WAIT);
    expect((await command('ac/cpecmd', { action: 'adopt', serials: [base.serial], group: profile })).data.done).toEqual([base.serial]);
    const bound = await command('ac/cpecmd', { action: 'adopt', serials: [receiver.serial, other.serial], group: receiving });
    expect(bound.data).toEqual({ done: [receiver.serial], refused: [{ serial: other.serial, reason: 'mixedRadios' }] });
    await vi.waitFor(() => expect(base.configures.length * receiver.configures.length).toBe(1), CONDITION_WAIT);
    expect((receiver.configures[0]!.params.config as { interfaces: Array<{ ssids: Array<Record<string, unknown>> }> }).interfaces[0]!.ssids[0]!['bss-mode']).toBe('wds-sta');
    receiver.state(0, { radios: [{ band: '5G', channel: 149 }], interfaces: [{ name: 'lan', ssids: [{ ssid: 'north-link', bssid: '02:ee:00:00:00:02', mode: 'wds-sta', band: '5G' }] }] });
    base.state(0, { radios: [{ band: '5G', channel: 149 }], interfaces: [{ name: 'lan', ssids: [{ ssid: 'north-link', bssid: '02:ee:00:00:00:01', mode: 'wds-ap', band: '5G', associations: [{ station: '02:ee:00:00:00:02', rssi: -61 }] }] }] });
    await vi.waitFor(async () => {
      const topology = (await api('ac/topology', '?kind=cpe')).data;
      expect(topology.links).toContainEqual({ from: base.serial, to: receiver.serial, medium: 'wireless', signal: -61 });
    }, CONDITION_WAIT);
    expect(await command('ac/cpechannels', { country: 'US', band: '2g' })).toMatchObject({ success: true });
    expect(await command(cpeProfile.path, { action: 'delete', ids: [profile] })).toMatchObject({ success: false, msg: 'msg.cpeProfileInUse' });
  });
});

describe('channel planning through the API', () => {
  test('save needs a plan; two APs hearing each other are planned apart and get their channels once saved', async () => {
    expect((await api('ac/scanresult')).data.state).toBe('idle');
    expect(await command('ac/startscan', { action: 'save' })).toMatchObject({ success: false, msg: 'msg.planningNoPlan' });
    const group = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Hall', enabled5g: false });
    await writeConfirmed(h, admin, wirelessSsid, { action: 'add', group, ssid: 'Hall', key: 'hall-passphrase', band: '2g' });
    const aps = [new FakeDevice('02dd00000001', controller()), new FakeDevice('02dd00000002', controller())];
    const bssid = (i: number) => `02:dd:00:00:01:0${i}`;
    aps.forEach((ap, i) => {
      ap.connect();
      // Each hears the other loud on the same channel.
      ap.answers.wifiscan = (_p, d) => ({ serial: d.serial, status: { error: 0 }, scan: [{ bssid: bssid(1 - i), ssid: 'Hall', channel: 6, signal: -45 }] });
    });
    expect((await command('ac/apcmd', { action: 'adopt', serials: aps.map((a) => a.serial), group })).data.done).toHaveLength(2);
    await vi.waitFor(() => expect(aps.every((a) => a.configures.length === 1)).toBe(true), CONDITION_WAIT);
    aps.forEach((ap, i) => ap.state(0, { radios: [{ band: '2G', channel: 6, tx_power: 20 }], interfaces: [{ name: 'lan', ssids: [{ ssid: 'Hall', bssid: bssid(i), band: '2G' }] }] }));
    await settle();
    expect(await command('ac/startscan', { action: 'start' })).toMatchObject({ success: true });
    await vi.waitFor(async () => expect((await api('ac/scanresult')).data.state).toBe('planned'), CONDITION_WAIT);
    const plan = (await api('ac/scanresult')).data.plan;
    const planned = plan.aps.filter((ap: { serial: string }) => aps.some((a) => a.serial === ap.serial)).map((ap: { radios: Array<{ channel: number }> }) => ap.radios[0]!.channel);
    expect(planned).toHaveLength(2);
    // 20 MHz wide, four channels (20 MHz) apart do not overlap (CN allows 1/5/9/13).
    expect(Math.abs(planned[0] - planned[1])).toBeGreaterThanOrEqual(4);
    expect(plan.scoreAfter).toBeLessThan(plan.scoreBefore);
    expect(aps.every((a) => a.configures.length === 1)).toBe(true);
    expect(await command('ac/startscan', { action: 'save' })).toMatchObject({ success: true });
    await vi.waitFor(() => expect(aps.every((a) => a.configures.length === 2)).toBe(true), CONDITION_WAIT);
    const sent = aps.map((a) => (a.configures[1]!.params.config as { radios: Array<{ channel: number }> }).radios[0]!.channel);
    expect(sent).toEqual(planned);
    expect((await api('ac/scanresult')).data.state).toBe('saved');
  });

  test('an AP whose last report left its radio out (hostapd still choosing a channel) is asked afresh before its scan, and planned', async () => {
    const group = await writeConfirmed(h, admin, apGroup, { action: 'add', name: 'Annex', enabled5g: false });
    await writeConfirmed(h, admin, wirelessSsid, { action: 'add', group, ssid: 'Annex', key: 'annex-passphrase', band: '2g' });
    const ap = new FakeDevice('02dd00000011', controller());
    ap.connect();
    expect((await command('ac/apcmd', { action: 'adopt', serials: [ap.serial], group })).data.done).toEqual([ap.serial]);
    await vi.waitFor(() => expect(ap.configures).toHaveLength(1), CONDITION_WAIT);
    const running = { radios: [{ band: '2G' as const, channel: 6, tx_power: 20 }], interfaces: [{ name: 'lan', ssids: [{ ssid: 'Annex', bssid: '02:dd:00:00:11:00', band: '2G' as const }] }] };
    // As the agent reports a radio without a channel: left out.
    ap.state(0, { ...running, radios: [] });
    // Asked for a report, it answers, then reports the radio on its channel.
    ap.answers.request = (_p, d) => {
      queueMicrotask(() => d.state(0, running));
      return { serial: d.serial, status: { error: 0 } };
    };
    await settle();
    expect(await command('ac/startscan', { action: 'start' })).toMatchObject({ success: true });
    await vi.waitFor(async () => expect((await api('ac/scanresult')).data.state).toBe('planned'), CONDITION_WAIT);
    const planned = (await api('ac/scanresult')).data.plan.aps.find((p: { serial: string }) => p.serial === ap.serial);
    expect(planned.radios).toHaveLength(1);
    expect(planned.radios[0]).toMatchObject({ band: '2g', previousChannel: 6 });
    expect(ap.requests.map((r) => r.method).slice(-2)).toEqual(['request', 'wifiscan']);
    // Scanned only on the band the group leaves to the planner.
    expect(ap.requests.at(-1)!.params).toMatchObject({ bands: ['2'] });
  });
});
