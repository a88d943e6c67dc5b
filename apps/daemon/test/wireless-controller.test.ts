import { deflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LINK_CLOSE_POLICY,
  LINK_CLOSE_PROTOCOL_ERROR,
  LINK_CLOSE_TOO_BIG,
  RPC_METHOD_NOT_FOUND,
  UCENTRAL_MAX_DEPTH,
  UCENTRAL_MAX_INFLATED_BYTES,
  UCENTRAL_MAX_MESSAGE_BYTES,
  rpcError,
  rpcNotification,
} from '@portico/schema';
import { migrateModule, openDatabase } from '../src/plugins/db-open.js';
import { WIRELESS_DEVICE_MIGRATIONS, WirelessDeviceStore } from '../src/domains/wireless/controller/wireless-device-store.js';
import { WirelessCommandError, WirelessController, type WirelessTimers } from '../src/domains/wireless/controller/wireless-controller.js';
import type { WirelessConfigBody } from '../src/domains/wireless/controller/wireless-controller-config.js';
import type { WirelessLogEntry } from '../src/domains/wireless/controller/wireless-controller-log.js';
import { FakeDevice, serialOf, settle, stationMac } from './fixtures/wireless/wireless-fake-device.js';

/** A clock the test moves: timers fire in order as it advances. */
function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  let nextHandle = 1;
  const due = new Map<number, { at: number; run: () => void }>();
  const timers: WirelessTimers = {
    setTimeout(run, ms) {
      const handle = nextHandle++;
      due.set(handle, { at: now + ms, run });
      return handle;
    },
    clearTimeout(handle) {
      due.delete(handle as number);
    },
  };
  return {
    now: () => now,
    timers,
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = [...due.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        due.delete(next[0]);
        now = next[1].at;
        next[1].run();
      }
      now = end;
    },
  };
}

const officeConfig = (channel = 6, interval = 60): WirelessConfigBody => ({
  radios: [{ band: '2G', country: 'CN', channel }],
  interfaces: [{ name: 'lan', role: 'downstream', ssids: [{ name: 'Office', 'wifi-bands': ['2G'], encryption: { proto: 'psk2', key: 'correct horse' } }] }],
  metrics: { statistics: { interval } },
});

describe('wireless controller', () => {
  let clock: ReturnType<typeof fakeClock>;
  let store: WirelessDeviceStore;
  let controller: WirelessController;
  let logs: WirelessLogEntry[];
  let groupConfig: Map<string, WirelessConfigBody>;
  const serial = serialOf(1);

  beforeEach(() => {
    clock = fakeClock();
    const db = openDatabase(':memory:');
    migrateModule(db, 'wireless', WIRELESS_DEVICE_MIGRATIONS);
    store = new WirelessDeviceStore(db);
    logs = [];
    groupConfig = new Map([['g1', officeConfig()]]);
    controller = new WirelessController({
      store,
      now: clock.now,
      timers: clock.timers,
      configFor: (s) => {
        const group = store.get(s)?.groupId;
        return (group && groupConfig.get(group)) || null;
      },
      commandTimeoutMs: 30_000,
      onLog: (entry) => logs.push(entry),
    });
  });

  afterEach(() => controller.stop());

  const logKeys = () => logs.flatMap((l) => (l.source === 'controller' ? [l.key] : []));

  async function adoptedDevice(s = serial): Promise<FakeDevice> {
    store.adopt(s, 'g1');
    const device = new FakeDevice(s, controller);
    device.connect();
    await settle();
    return device;
  }

  /** The device connects (again), running configuration `uuid`, answering configure with `configCode`. */
  async function connectRunning(uuid: number, configCode = 0): Promise<FakeDevice> {
    const device = new FakeDevice(serial, controller);
    device.uuid = uuid;
    device.configCode = configCode;
    device.connect();
    await settle();
    return device;
  }

  /** The group's settings change (a new channel) and are pushed to the device. */
  async function changeGroupChannel(channel: number): Promise<void> {
    groupConfig.set('g1', officeConfig(channel));
    await controller.pushConfig([serial]);
    await settle();
  }

  describe('adoption and configuration', () => {
    it('records an unknown device as pending and sends it nothing until it is adopted', async () => {
      const device = new FakeDevice(serial, controller);
      device.connect('cpe');
      device.state(3);
      await settle();
      expect(store.get(serial)).toMatchObject({ status: 'pending', kind: 'cpe', model: 'PX-1', firmware: 'portico-ap 1.0', lastAddress: expect.stringMatching(/^192\.0\.2\./) });
      expect(device.requests).toEqual([]);
      expect(controller.isOnline(serial)).toBe(true);
      expect(controller.stationsOf(serial)).toEqual([]);
      await expect(controller.ping(serial)).rejects.toMatchObject({ code: 'notAdopted' });
      await expect(controller.reboot(serial, { force: true })).rejects.toMatchObject({ code: 'notAdopted' });
      expect(logKeys()).toContain('wireless.log.pendingAdoption');

      controller.adopt(serial, 'g1', 'Lobby');
      await settle();
      expect(device.configures).toHaveLength(1);
      const sent = device.configures[0]!.params;
      expect(sent).toMatchObject({ serial, uuid: 1, when: 0 });
      expect(sent.config).toMatchObject({ uuid: 1, radios: [{ channel: 6, 'rts-threshold': 2347 }] });
      expect(store.get(serial)).toMatchObject({ status: 'adopted', name: 'Lobby', desiredUuid: 1, appliedUuid: 1, configOutcome: 'applied', outcomeUuid: 1 });
      expect(logKeys()).toContain('wireless.log.configApplied');

      // Reports on the applied configuration bring nothing new; a changed group does, once.
      device.state(1);
      device.send('ping', { uuid: 1 });
      await settle();
      expect(device.configures).toHaveLength(1);
      groupConfig.set('g1', officeConfig(11));
      expect(await controller.pushConfig([serial])).toEqual({ sent: 1, current: 0, skipped: 0 });
      await settle();
      expect(device.configures.map((r) => r.params.uuid)).toEqual([1, 2]);
      expect(await controller.pushConfig([serial])).toEqual({ sent: 0, current: 1, skipped: 0 });
    });

    it('configures an adopted device at connect above the uuid it runs, and keeps the counter across connections', async () => {
      store.adopt(serial, 'g1');
      const device = await connectRunning(41);
      expect(device.configures.map((r) => r.params.uuid)).toEqual([42]);
      device.link.close();
      await settle();
      expect(controller.isOnline(serial)).toBe(false);

      const back = await connectRunning(42);
      expect(back.configures).toEqual([]);
      await changeGroupChannel(1);
      expect(back.configures.map((r) => r.params.uuid)).toEqual([43]);
    });

    it('stores substitutions when the device applied with changes', async () => {
      store.adopt(serial, 'g1');
      await connectRunning(0, 1);
      expect(store.get(serial)).toMatchObject({
        configOutcome: 'appliedWithChanges',
        appliedUuid: 1,
        configReasons: [{ parameter: '{"channel":13}', reason: 'channel not allowed', substitution: '{"channel":11}' }],
      });
    });

    it('keeps the old configuration when the device rejects, and does not resend the rejected one', async () => {
      store.adopt(serial, 'g1');
      const device = await connectRunning(7, 2);
      expect(store.get(serial)).toMatchObject({ desiredUuid: 8, appliedUuid: 7, configOutcome: 'rejected', outcomeUuid: 8, configReasons: [{ reason: 'channel not allowed' }] });
      device.state(0);
      device.send('ping', { uuid: 7 });
      await settle();
      expect(device.configures).toHaveLength(1);

      // Not on the next connection either; a changed configuration is a new version and goes out.
      device.link.close();
      const again = await connectRunning(7);
      expect(again.configures).toEqual([]);
      await changeGroupChannel(1);
      expect(again.configures.map((r) => r.params.uuid)).toEqual([9]);
      expect(store.get(serial)).toMatchObject({ appliedUuid: 9, configOutcome: 'applied' });
    });

    it('records a configuration the device holds but has not activated', async () => {
      const device = await adoptedDevice();
      device.send('cfgpending', { active: 1, uuid: 5 });
      await settle();
      expect(controller.live(serial)).toMatchObject({ uuid: 1, pendingUuid: 5 });
      expect(logKeys()).toContain('wireless.log.configPending');
    });

    it('sends nothing for a configuration that fails validation and says so in the log', async () => {
      groupConfig.set('g1', { radios: [], interfaces: [{ name: 'bad name!', role: 'downstream' }] });
      const device = await adoptedDevice();
      expect(device.configures).toEqual([]);
      expect(logs.find((l) => l.source === 'controller' && l.key === 'wireless.log.configInvalid')).toMatchObject({ values: { field: 'interfaces.0.name' } });
    });
  });

  describe('identity and refusal', () => {
    it('closes a link whose messages name another serial, on connect and afterwards', async () => {
      const impostor = new FakeDevice(serialOf(2), controller, serial);
      impostor.connect();
      await settle();
      expect(impostor.closedWith).toBe(LINK_CLOSE_POLICY);
      expect(store.get(serialOf(2))).toBeUndefined();
      expect(store.get(serial)).toBeUndefined();

      const device = await adoptedDevice();
      device.link.send(rpcNotification('state', { serial: serialOf(3), uuid: 1, state: {} }));
      await settle();
      expect(device.closedWith).toBe(LINK_CLOSE_POLICY);
      expect(controller.isOnline(serial)).toBe(false);
      expect(logKeys().filter((k) => k === 'wireless.log.serialMismatch')).toHaveLength(2);
    });

    it('closes a link whose answer names another serial', async () => {
      const device = await adoptedDevice();
      device.answers.ping = () => ({ serial: serialOf(9), uuid: 1 });
      await expect(controller.ping(serial)).rejects.toMatchObject({ code: 'offline' });
      expect(device.closedWith).toBe(LINK_CLOSE_POLICY);
    });

    it('requires connect first', async () => {
      const device = new FakeDevice(serial, controller);
      device.state(1);
      await settle();
      expect(device.closedWith).toBe(LINK_CLOSE_POLICY);
      expect(logKeys()).toContain('wireless.log.connectFirst');
      expect(store.get(serial)).toBeUndefined();
    });

    it('refuses a revoked device and cuts a live one at once, failing its pending commands', async () => {
      const device = await adoptedDevice();
      device.silent = true;
      const pending = controller.ping(serial);
      await settle();
      expect(controller.revoke(serial)).toBe(true);
      await expect(pending).rejects.toMatchObject({ code: 'offline' });
      await settle();
      expect(device.closedWith).toBe(LINK_CLOSE_POLICY);
      expect(controller.isOnline(serial)).toBe(false);

      const again = new FakeDevice(serial, controller);
      again.connect();
      await settle();
      expect(again.closedWith).toBe(LINK_CLOSE_POLICY);
      expect(again.requests).toEqual([]);
      expect(store.get(serial)!.status).toBe('revoked');
      expect(logKeys()).toContain('wireless.log.refusedRevoked');
    });

    it('replaces the session of a serial that connects again, closing the old link', async () => {
      const first = await adoptedDevice();
      const second = await connectRunning(1);
      expect(first.closedWith).toBe(LINK_CLOSE_POLICY);
      expect(second.closedWith).toBeNull();
      expect(controller.onlineSerials()).toEqual([serial]);
      await expect(controller.ping(serial)).resolves.toMatchObject({ uuid: 1 });
    });
  });

  describe('frame faults', () => {
    async function connectedThenSend(text: string): Promise<FakeDevice> {
      const device = await adoptedDevice();
      device.link.send(text);
      await settle();
      return device;
    }

    it('closes with the code of the fault', async () => {
      expect((await connectedThenSend('x'.repeat(UCENTRAL_MAX_MESSAGE_BYTES + 1))).closedWith).toBe(LINK_CLOSE_TOO_BIG);
      controller.forget(serial);
      expect((await connectedThenSend('{"jsonrpc":"2.0",')).closedWith).toBe(LINK_CLOSE_PROTOCOL_ERROR);
      controller.forget(serial);
      const deep = '['.repeat(UCENTRAL_MAX_DEPTH + 2) + ']'.repeat(UCENTRAL_MAX_DEPTH + 2);
      expect((await connectedThenSend(`{"jsonrpc":"2.0","method":"log","params":${deep}}`)).closedWith).toBe(LINK_CLOSE_PROTOCOL_ERROR);
      expect(logs.filter((l) => l.source === 'controller' && l.key === 'wireless.log.frameFault').map((l) => l.source === 'controller' && l.values.fault)).toEqual([
        'tooLarge',
        'notJson',
        'tooDeep',
      ]);
    });

    it('inflates compressed params within the limit and refuses a bomb', async () => {
      const device = await adoptedDevice();
      const state = { serial, uuid: 1, state: { interfaces: [{ name: 'lan', ssids: [{ ssid: 'Office', bssid: '02:dd:00:00:00:01', associations: [{ station: stationMac(1), rssi: -50 }] }] }] } };
      const packed = deflateSync(Buffer.from(JSON.stringify(state))).toString('base64');
      device.link.send(rpcNotification('state', { compress_64: packed }));
      await settle();
      expect(controller.stationsOf(serial).map((s) => s.mac)).toEqual([stationMac(1)]);

      // 16 MB of spaces deflate to a few KB: over the inflate limit.
      const bomb = deflateSync(Buffer.alloc(UCENTRAL_MAX_INFLATED_BYTES * 16, 0x20)).toString('base64');
      expect(bomb.length).toBeLessThan(UCENTRAL_MAX_MESSAGE_BYTES);
      device.link.send(rpcNotification('state', { compress_64: bomb, compress_sz: 10 }));
      await settle();
      expect(device.closedWith).toBe(LINK_CLOSE_TOO_BIG);

      const other = await adoptedDevice(serialOf(4));
      const deepPacked = deflateSync(Buffer.from('['.repeat(100) + ']'.repeat(100))).toString('base64');
      other.link.send(rpcNotification('state', { compress_64: deepPacked }));
      await settle();
      expect(other.closedWith).toBe(LINK_CLOSE_PROTOCOL_ERROR);
    });

    it('drops an invalid report without cutting the AP off, logging it once', async () => {
      const device = await adoptedDevice();
      const hostile = { interfaces: [{ name: 'lan', ssids: [{ ssid: 'Office', bssid: '02:dd:00:00:00:01', associations: [{ station: stationMac(1), rssi: -50, hostname: 'evil\u202ename' }] }] }] };
      device.send('state', { uuid: 1, state: hostile });
      device.send('state', { uuid: 1, state: hostile });
      await settle();
      expect(device.closedWith).toBeNull();
      expect(controller.stationsOf(serial)).toEqual([]);
      expect(logKeys().filter((k) => k === 'wireless.log.invalidReport')).toHaveLength(1);
    });

    it('answers an unknown method with an error when it has an id and ignores it otherwise', async () => {
      const device = await adoptedDevice();
      const replies: string[] = [];
      device.link.onMessage((text) => replies.push(text));
      device.send('alarm', { data: {} });
      device.link.send(JSON.stringify({ jsonrpc: '2.0', method: 'venue_broadcast', params: { serial }, id: 77 }));
      await settle();
      expect(replies.map((r) => JSON.parse(r))).toEqual([{ jsonrpc: '2.0', error: { code: RPC_METHOD_NOT_FOUND, message: 'method not found' }, id: 77 }]);
      expect(device.closedWith).toBeNull();
    });
  });

  describe('commands', () => {
    it('resolves with the validated result and refuses a device error or a malformed result', async () => {
      const device = await adoptedDevice();
      await expect(controller.ping(serial)).resolves.toEqual({ serial, uuid: 1, deviceUTCTime: 1 });
      expect(device.requests.at(-1)).toMatchObject({ method: 'ping', params: { serial } });
      await expect(controller.blink(serial)).resolves.toMatchObject({ error: 0 });
      expect(device.requests.at(-1)!.params).toEqual({ serial, when: 0, pattern: 'blink', duration: 30_000 });
      await expect(controller.upgrade(serial, 'https://192.0.2.1/fw.bin', 'sig')).resolves.toMatchObject({ error: 0 });
      expect(device.requests.at(-1)!.params).toMatchObject({ uri: 'https://192.0.2.1/fw.bin', FWsignature: 'sig' });
      await expect(controller.factory(serial)).resolves.toMatchObject({ error: 0 });
      await expect(controller.requestState(serial)).resolves.toMatchObject({ error: 0 });
      expect(device.requests.at(-1)!.params).toMatchObject({ message: 'state' });

      device.answers.leds = (_p, d) => ({ serial: d.serial, status: { error: 1, text: 'no LEDs' } });
      await expect(controller.blink(serial)).rejects.toMatchObject({ code: 'refused', device: { code: 1, text: 'no LEDs' } });
      device.answers.ping = () => ({ uuid: 'x' });
      await expect(controller.ping(serial)).rejects.toMatchObject({ code: 'badResult' });
      await expect(controller.upgrade(serial, 'not a uri')).rejects.toMatchObject({ code: 'badParams' });

      // A JSON-RPC error answer.
      device.silent = true;
      const pending = controller.ping(serial);
      await settle();
      device.link.send(rpcError(device.requests.at(-1)!.id, -32000, 'busy'));
      await expect(pending).rejects.toMatchObject({ code: 'refused', device: { code: -32000, text: 'busy' } });
    });

    it('times out on the injected clock, and fails at once when the device is offline or unknown', async () => {
      const device = await adoptedDevice();
      device.silent = true;
      const pending = controller.ping(serial);
      await settle();
      clock.advance(29_999);
      await settle();
      let settled = false;
      pending.catch(() => {}).finally(() => (settled = true));
      await settle();
      expect(settled).toBe(false);
      clock.advance(1);
      await expect(pending).rejects.toMatchObject({ code: 'timeout' });
      await expect(pending).rejects.toBeInstanceOf(WirelessCommandError);

      const closing = controller.ping(serial);
      device.link.close();
      await expect(closing).rejects.toMatchObject({ code: 'offline' });
      await expect(controller.ping(serial)).rejects.toMatchObject({ code: 'offline' });
      await expect(controller.ping(serialOf(99))).rejects.toMatchObject({ code: 'notFound' });
    });

    it('does not reboot an AP up for under an hour unless forced', async () => {
      const device = await adoptedDevice();
      device.uptime = 3000;
      device.state(0);
      await settle();
      await expect(controller.reboot(serial)).rejects.toMatchObject({ code: 'recentlyBooted' });
      expect(device.requests.some((r) => r.method === 'reboot')).toBe(false);
      await expect(controller.reboot(serial, { force: true })).resolves.toMatchObject({ error: 0 });
      // Eleven minutes later (kept alive by pings) the reported uptime has aged past an hour.
      for (let i = 0; i < 13; i++) {
        clock.advance(50_000);
        device.send('ping', { uuid: 1 });
        await settle();
      }
      await expect(controller.reboot(serial)).resolves.toMatchObject({ error: 0 });
      expect(device.requests.filter((r) => r.method === 'reboot')).toHaveLength(2);
    });

    it('keeps the last scan, from the command and from a wifiscan event', async () => {
      const device = await adoptedDevice();
      await expect(controller.scan(serial, { bands: ['2'] })).resolves.toEqual([{ bssid: '02:cc:00:00:00:01', ssid: 'Neighbour', channel: 11, width: 20, signal: -70 }]);
      expect(controller.live(serial)!.lastScan!.entries).toHaveLength(1);
      device.send('wifiscan', { data: { scan: [] } });
      await settle();
      expect(controller.live(serial)!.lastScan!.entries).toEqual([]);
    });
  });

  describe('live state', () => {
    it('lists the stations of a state report, flattened and per AP', async () => {
      const device = await adoptedDevice();
      const other = await adoptedDevice(serialOf(2));
      device.state(3);
      other.state(2);
      await settle();
      expect(controller.stationsOf(serial)).toHaveLength(3);
      expect(controller.stationsOf(serial)[1]).toEqual({
        serial,
        ssid: 'Office',
        bssid: '02:dd:00:00:00:01',
        band: '2G',
        mac: stationMac(1),
        rssi: -41,
        rxRate: 866_700,
        txRate: 433_300,
        rxBytes: 1000,
        txBytes: 2000,
        connectedSeconds: 61,
        hostname: 'phone-1',
      });
      expect(controller.stations()).toHaveLength(5);
      expect(controller.live(serial)).toMatchObject({
        online: true,
        adopted: true,
        uuid: 1,
        load: [0.1, 0.2, 0.3],
        memoryTotal: 256_000,
        uptime: 7200,
        radios: [{ band: '2G', channel: 6, txPower: 20 }],
        ssids: [{ ssid: 'Office', stations: 3 }],
        stationCount: 3,
      });
      device.state(0);
      await settle();
      expect(controller.stationsOf(serial)).toEqual([]);
      device.link.close();
      await settle();
      expect(controller.stations()).toHaveLength(2);
    });

    it('gives back each station as reported: MACs of any value, absent figures, host names on some only, per SSID', async () => {
      const device = await adoptedDevice();
      device.send('state', {
        uuid: 1,
        state: {
          interfaces: [
            {
              name: 'lan',
              ssids: [
                { ssid: 'A', bssid: '02:dd:00:00:00:01', band: '2G', associations: [{ station: '00:00:00:00:00:00' }, { station: 'FF:FF:FF:FF:FF:FE', rssi: -120, hostname: '' }] },
                { ssid: 'B', bssid: '02:dd:00:00:00:02', mode: 'wds-ap', associations: [{ station: '0a:1b:2c:3d:4e:5f', rx_rate: {}, tx_bytes: Number.MAX_SAFE_INTEGER, hostname: 'cpe' }] },
              ],
            },
          ],
        },
      });
      await settle();
      const base = { serial, rssi: null, rxRate: null, txRate: null, rxBytes: 0, txBytes: 0, connectedSeconds: 0, hostname: null };
      expect(controller.stationsOf(serial)).toEqual([
        { ...base, ssid: 'A', bssid: '02:dd:00:00:00:01', band: '2G', mac: '00:00:00:00:00:00' },
        { ...base, ssid: 'A', bssid: '02:dd:00:00:00:01', band: '2G', mac: 'ff:ff:ff:ff:ff:fe', rssi: -120, hostname: '' },
        { ...base, ssid: 'B', bssid: '02:dd:00:00:00:02', band: null, mac: '0a:1b:2c:3d:4e:5f', txBytes: Number.MAX_SAFE_INTEGER, hostname: 'cpe' },
      ]);
      expect(controller.stationCount()).toBe(3);
    });

    it('a later report replaces every figure and host name, with as many stations as before or not', async () => {
      const device = await adoptedDevice();
      const report = (stations: Array<{ station: string; rssi?: number; hostname?: string }>) =>
        device.send('state', { uuid: 1, state: { interfaces: [{ name: 'lan', ssids: [{ ssid: 'A', bssid: '02:dd:00:00:00:01', associations: stations }] }] } });
      const seen = () => controller.stationsOf(serial).map((s) => [s.mac, s.rssi, s.hostname]);
      report([{ station: stationMac(1), rssi: -50, hostname: 'one' }, { station: stationMac(2), rssi: -60, hostname: 'two' }]);
      await settle();
      expect(seen()).toEqual([
        [stationMac(1), -50, 'one'],
        [stationMac(2), -60, 'two'],
      ]);
      // As many stations: one left, another came, a name dropped, a figure changed.
      report([{ station: stationMac(3), rssi: -40 }, { station: stationMac(2), rssi: -61, hostname: 'two' }]);
      await settle();
      expect(seen()).toEqual([
        [stationMac(3), -40, null],
        [stationMac(2), -61, 'two'],
      ]);
      report([{ station: stationMac(3) }, { station: stationMac(4) }]);
      await settle();
      expect(seen()).toEqual([
        [stationMac(3), null, null],
        [stationMac(4), null, null],
      ]);
      report([{ station: stationMac(5), hostname: 'five' }]);
      await settle();
      expect(seen()).toEqual([[stationMac(5), null, 'five']]);
      report([]);
      await settle();
      expect(seen()).toEqual([]);
    });

    it('keeps health, device logs, crash logs and events', async () => {
      const device = await adoptedDevice();
      device.send('healthcheck', { uuid: 1, sanity: 73 });
      device.send('log', { log: 'hostapd: wlan0 up', severity: 5 });
      device.send('crashlog', { uuid: 1, loglines: ['oops 1', 'oops 2'] });
      device.send('event', { data: { event: [1, { type: 'client.join', payload: { client: stationMac(1) } }] } });
      await settle();
      expect(controller.live(serial)!.sanity).toBe(73);
      expect(logs.filter((l) => l.source === 'device').map((l) => [l.severity, l.source === 'device' && l.text])).toEqual([
        [5, 'hostapd: wlan0 up'],
        [2, 'oops 1'],
        [2, 'oops 2'],
        [6, `client.join {"client":"${stationMac(1)}"}`],
      ]);
    });

    it('marks a device offline after three state intervals without a message', async () => {
      const device = await adoptedDevice();
      const quiet = await adoptedDevice(serialOf(2));
      for (let i = 0; i < 6; i++) {
        clock.advance(50_000);
        device.send('ping', { uuid: 1 });
        await settle();
      }
      expect(controller.isOnline(serial)).toBe(true);
      expect(controller.isOnline(serialOf(2))).toBe(false);
      expect(quiet.closedWith).not.toBeNull();
      expect(logKeys()).toContain('wireless.log.silent');
      // Last seen reaches the store within the minute.
      expect(store.get(serial)!.lastSeen).toBeGreaterThan(clock.now() - 120_000);
    });

    it('follows the interval of the configuration the device runs', async () => {
      groupConfig.set('g1', officeConfig(6, 300));
      await adoptedDevice();
      clock.advance(600_000);
      await settle();
      expect(controller.isOnline(serial)).toBe(true);
      clock.advance(310_000);
      await settle();
      expect(controller.isOnline(serial)).toBe(false);
    });
  });

  it('pushes a group change to 2,000 devices, each getting exactly one configure', async () => {
    const devices: FakeDevice[] = [];
    store.batch(() => {
      for (let i = 0; i < 2000; i++) store.adopt(serialOf(1000 + i), 'g1');
    });
    for (let i = 0; i < 2000; i++) {
      const device = new FakeDevice(serialOf(1000 + i), controller);
      device.connect();
      devices.push(device);
    }
    await settle();
    expect(devices.every((d) => d.configures.length === 1 && d.uuid === 1)).toBe(true);

    groupConfig.set('g1', officeConfig(11));
    const outcome = await controller.pushConfig(store.serialsInGroup('g1'));
    expect(outcome).toEqual({ sent: 2000, current: 0, skipped: 0 });
    await settle();
    expect(devices.map((d) => d.configures.length)).toEqual(devices.map(() => 2));
    expect(devices.every((d) => d.uuid === 2 && (d.configures[1]!.params.config as { radios: Array<{ channel: number }> }).radios[0]!.channel === 11)).toBe(true);
    // The store follows in batches of writes.
    await expect.poll(() => store.get(serialOf(2999))).toMatchObject({ desiredUuid: 2, appliedUuid: 2, configOutcome: 'applied' });
    expect(store.page({ offset: 0, limit: 1, status: 'adopted', search: '' }).total).toBe(2000);
  });

  it('stops: closes every link and leaves no timer', async () => {
    const device = await adoptedDevice();
    const handshake = new FakeDevice(serialOf(2), controller);
    controller.stop();
    await settle();
    expect(device.closedWith).not.toBeNull();
    expect(handshake.closedWith).not.toBeNull();
    expect(controller.onlineSerials()).toEqual([]);
  });
});
