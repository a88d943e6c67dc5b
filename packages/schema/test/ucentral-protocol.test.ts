import { describe, expect, it } from 'vitest';
import {
  CONTROLLER_COMMANDS,
  DEVICE_EVENTS,
  UCENTRAL_MAX_DEPTH,
  UCENTRAL_MAX_MESSAGE_BYTES,
  deviceConfigSchema,
  parseRpcFrame,
  rpcRequest,
} from '../src/index.js';

const serial = '0a1b2c3d4e5f';

describe('uCentral frames', () => {
  it('tells notifications, requests, results and errors apart', () => {
    expect(parseRpcFrame(JSON.stringify({ jsonrpc: '2.0', method: 'ping', params: { serial, uuid: 1 } }))).toMatchObject({ kind: 'notification', method: 'ping' });
    expect(parseRpcFrame(rpcRequest(7, 'reboot', { serial }))).toMatchObject({ kind: 'request', id: 7, method: 'reboot' });
    expect(parseRpcFrame(JSON.stringify({ jsonrpc: '2.0', id: 7, result: { serial } }))).toMatchObject({ kind: 'result', id: 7 });
    expect(parseRpcFrame(JSON.stringify({ jsonrpc: '2.0', id: 8, error: { code: -32601, message: 'x\ny' } }))).toEqual({ kind: 'error', id: 8, code: -32601, message: '' });
  });

  it('refuses oversize, malformed, deep and non-RPC messages', () => {
    expect(parseRpcFrame('x'.repeat(UCENTRAL_MAX_MESSAGE_BYTES + 1))).toEqual({ fault: 'tooLarge' });
    expect(parseRpcFrame('{"jsonrpc":"2.0",')).toEqual({ fault: 'notJson' });
    const deep = '['.repeat(UCENTRAL_MAX_DEPTH + 2) + ']'.repeat(UCENTRAL_MAX_DEPTH + 2);
    expect(parseRpcFrame(`{"jsonrpc":"2.0","method":"log","params":${deep}}`)).toEqual({ fault: 'tooDeep' });
    expect(parseRpcFrame('{"jsonrpc":"1.0","method":"log"}')).toEqual({ fault: 'notRpc' });
    expect(parseRpcFrame('{"jsonrpc":"2.0","method":"<script>"}')).toEqual({ fault: 'notRpc' });
    expect(parseRpcFrame('{"jsonrpc":"2.0","id":-1,"result":{}}')).toEqual({ fault: 'notRpc' });
    expect(parseRpcFrame('[1,2]')).toEqual({ fault: 'notRpc' });
  });
});

describe('uCentral events', () => {
  it('accepts a connect and a state report, normalising serial and MACs', () => {
    const connect = DEVICE_EVENTS.connect.parse({ serial: '0A1B2C3D4E5F', uuid: 0, firmware: 'portico-agent 1.0', capabilities: { platform: 'ap' } });
    expect(connect.serial).toBe(serial);
    const state = DEVICE_EVENTS.state.parse({
      serial,
      uuid: 3,
      state: {
        radios: [{ channel: 6, tx_power: 20 }],
        interfaces: [{ name: 'lan', ssids: [{ ssid: 'Café', bssid: '02:00:00:00:01:00', associations: [{ station: '02:AA:00:00:00:01', rssi: -52 }] }] }],
      },
    });
    expect(state.state.interfaces[0]!.ssids[0]!.associations[0]!.station).toBe('02:aa:00:00:00:01');
  });

  it('refuses markup-free but hostile text and out-of-range values', () => {
    expect(DEVICE_EVENTS.log.safeParse({ serial, log: 'line\u0000two', severity: 3 }).success).toBe(false);
    expect(DEVICE_EVENTS.log.safeParse({ serial, log: 'ok', severity: 9 }).success).toBe(false);
    expect(DEVICE_EVENTS.ping.safeParse({ serial: '../../etc', uuid: 1 }).success).toBe(false);
    const ssid = { ssid: 'x\u202eevil', bssid: '02:00:00:00:01:00' };
    expect(DEVICE_EVENTS.state.safeParse({ serial, uuid: 1, state: { interfaces: [{ name: 'lan', ssids: [ssid] }] } }).success).toBe(false);
    const stations = Array.from({ length: 257 }, (_, i) => ({ station: `02:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`, rssi: -60 }));
    const crowded = { ssid: 'a', bssid: '02:00:00:00:01:00', associations: stations };
    expect(DEVICE_EVENTS.state.safeParse({ serial, uuid: 1, state: { interfaces: [{ name: 'lan', ssids: [crowded] }] } }).success).toBe(false);
  });
});

describe('uCentral configuration', () => {
  const base = {
    uuid: 5,
    radios: [{ band: '2G', country: 'CN', channel: 6 }],
    interfaces: [{ name: 'lan', role: 'downstream', ssids: [{ name: 'Office', 'wifi-bands': ['2G'], encryption: { proto: 'psk2', key: 'correct horse' } }] }],
  };

  it('fills the schema defaults (RTS 2347, width 20)', () => {
    const config = deviceConfigSchema.parse(base);
    expect(config.radios[0]).toMatchObject({ 'rts-threshold': 2347, 'channel-width': 20, 'allow-dfs': false });
    expect(CONTROLLER_COMMANDS.configure.params.parse({ serial, uuid: 5, config }).when).toBe(0);
  });

  it('refuses an SSID over 32 bytes, a PSK SSID without key and an 802.1X SSID without RADIUS', () => {
    const ssid = base.interfaces[0]!.ssids[0]!;
    const withSsid = (patch: object) => ({ ...base, interfaces: [{ ...base.interfaces[0], ssids: [{ ...ssid, ...patch }] }] });
    expect(deviceConfigSchema.safeParse(withSsid({ name: '网'.repeat(11) })).success).toBe(false);
    expect(deviceConfigSchema.safeParse(withSsid({ encryption: { proto: 'psk2' } })).success).toBe(false);
    expect(deviceConfigSchema.safeParse(withSsid({ encryption: { proto: 'wpa2' } })).success).toBe(false);
    expect(deviceConfigSchema.safeParse(withSsid({ 'portico-steering': { 'bss-transition': true, 'rssi-threshold': -96 } })).success).toBe(false);
  });
});

describe('in-memory link pair', () => {
  it('delivers in order, reports the close to both ends and drops later messages', async () => {
    const { linkPair } = await import('../src/index.js');
    const { device, controller } = linkPair(serial);
    const got: string[] = [];
    const closes: string[] = [];
    controller.onMessage((t) => got.push(t));
    device.onClose((code) => closes.push(`device ${code}`));
    controller.onClose((code) => closes.push(`controller ${code}`));
    device.send('a');
    device.send('b');
    await new Promise((r) => setTimeout(r, 0));
    controller.close(1008, 'revoked');
    device.send('c');
    await new Promise((r) => setTimeout(r, 0));
    expect(got).toEqual(['a', 'b']);
    expect(closes.sort()).toEqual(['controller 1008', 'device 1008']);
    expect(controller.peerSerial).toBe(serial);
  });
});
