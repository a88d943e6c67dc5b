import { describe, expect, test } from 'vitest';
import { apGroup, apMacFilter, cpeProfile, deviceConfigSchema, wirelessSsid, writeSchema, type AnyEntity, type ApGroup, type ApMacFilter, type CpeProfile, type WirelessSsid } from '@portico/schema';
import { apDeviceConfig, cpeDeviceConfig } from '../src/domains/wireless/wireless-device-config.js';

/** A row as the console's form would store it (defaults filled in by the entity's schema). */
function row<T>(entity: unknown, id: string, input: object): T {
  return { ...(writeSchema(entity as AnyEntity, 'add').parse(input) as object), id } as T;
}

const GROUP_ID = '0b6f6a4e-2f36-4c1e-9f55-0a1b2c3d4e5f';
const OTHER_GROUP = '1b6f6a4e-2f36-4c1e-9f55-0a1b2c3d4e5f';

describe('an AP group as a device configuration', () => {
  const group = row<ApGroup>(apGroup, GROUP_ID, { name: 'Lobby', channel2g: 6, power5g: 17, roaming: true, roamingThreshold: -80, macFilter: 'blacklist' });
  const ssids = [
    row<WirelessSsid>(wirelessSsid, 's1', { group: GROUP_ID, ssid: 'Lobby Guest', security: 'open' }),
    row<WirelessSsid>(wirelessSsid, 's2', { group: GROUP_ID, ssid: 'Staff', security: 'wpa3sae', key: 'staff-passphrase', band: '5g', vlan: 20 }),
    row<WirelessSsid>(wirelessSsid, 's3', { group: GROUP_ID, ssid: 'Corp', security: 'wpa2enterprise', radiusHost: '192.168.1.1', radiusSecret: 'radius-secret' }),
    row<WirelessSsid>(wirelessSsid, 's4', { group: OTHER_GROUP, ssid: 'Elsewhere', key: 'other-passphrase' }),
    row<WirelessSsid>(wirelessSsid, 's5', { group: GROUP_ID, ssid: 'Off', key: 'off-passphrase', enabled: false }),
  ];
  const filters = [
    row<ApMacFilter>(apMacFilter, 'f1', { list: 'blacklist', mac: '02:AA:BB:CC:DD:01', group: GROUP_ID }),
    row<ApMacFilter>(apMacFilter, 'f2', { list: 'blacklist', mac: '02-aa-bb-cc-dd-02' }),
    row<ApMacFilter>(apMacFilter, 'f3', { list: 'blacklist', mac: '02:aa:bb:cc:dd:03', group: OTHER_GROUP }),
    row<ApMacFilter>(apMacFilter, 'f4', { list: 'whitelist', mac: '02:aa:bb:cc:dd:04', group: GROUP_ID }),
  ];

  test('is a document the protocol accepts, with the group radio profile and roaming', () => {
    const config = deviceConfigSchema.parse(apDeviceConfig(group, ssids, filters, 'lobby-ap-1'));
    expect(config.radios).toEqual([
      { band: '2G', country: 'CN', channel: 6, 'channel-width': 20, 'rts-threshold': 2347, 'allow-dfs': false },
      { band: '5G', country: 'CN', channel: 'auto', 'channel-width': 80, 'tx-power': 17, 'rts-threshold': 2347, 'allow-dfs': false },
    ]);
    expect(config.unit.name).toBe('lobby-ap-1');
    expect(config.metrics.statistics?.interval).toBe(60);
  });

  test('puts each SSID on its VLAN and bands, with its security, the black list and steering', () => {
    const config = deviceConfigSchema.parse(apDeviceConfig(group, ssids, filters));
    expect(config.interfaces.map((i) => [i.name, i.vlan?.id, i.ssids.map((s) => s.name)])).toEqual([
      ['lan', undefined, ['Lobby Guest', 'Corp']],
      ['lan20', 20, ['Staff']],
    ]);
    const [guest, corp] = config.interfaces[0]!.ssids;
    expect(guest!.encryption).toEqual({ proto: 'none', ieee80211w: 'disabled' });
    expect(guest!['wifi-bands']).toEqual(['2G', '5G']);
    expect(corp!.radius?.authentication).toEqual({ host: '192.168.1.1', port: 1812, secret: 'radius-secret' });
    const staff = config.interfaces[1]!.ssids[0]!;
    expect(staff.encryption).toEqual({ proto: 'sae', key: 'staff-passphrase', ieee80211w: 'required' });
    expect(staff['wifi-bands']).toEqual(['5G']);
    expect(guest!['access-control-list']).toEqual({ mode: 'deny', 'mac-address': ['02:aa:bb:cc:dd:01', '02:aa:bb:cc:dd:02'] });
    expect(guest!['portico-steering']).toEqual({ 'bss-transition': true, 'rssi-threshold': -80 });
  });

  test('a white-list group admits only its listed stations; a band switched off drops its SSIDs', () => {
    const white = { ...group, macFilter: 'whitelist' as const, enabled5g: false };
    const config = deviceConfigSchema.parse(apDeviceConfig(white, ssids, filters));
    expect(config.radios.map((r) => r.band)).toEqual(['2G']);
    expect(config.interfaces.flatMap((i) => i.ssids.map((s) => s.name))).toEqual(['Lobby Guest', 'Corp']);
    expect(config.interfaces[0]!.ssids[0]!['access-control-list']).toEqual({ mode: 'allow', 'mac-address': ['02:aa:bb:cc:dd:04'] });
  });
});

describe('a CPE profile as a device configuration', () => {
  test('base and receiver share the link; §9 defaults travel with it', () => {
    const base = row<CpeProfile>(cpeProfile, 'c1', { name: 'north', ssid: 'north-link', key: 'bridge-passphrase', channel: 149 });
    const config = deviceConfigSchema.parse(cpeDeviceConfig(base));
    const ssid = config.interfaces[0]!.ssids[0]!;
    expect(ssid['bss-mode']).toBe('wds-ap');
    expect(ssid['portico-reject-rssi']).toBe(-95);
    expect(config.unit['portico-reboot-time']).toBe('04:30');
    expect(config.radios[0]).toMatchObject({ band: '5G', channel: 149, 'rts-threshold': 2347 });
    const receiver = deviceConfigSchema.parse(cpeDeviceConfig({ ...base, mode: 'receiver', rebootTime: '' }));
    expect(receiver.interfaces[0]!.ssids[0]!['bss-mode']).toBe('wds-sta');
    expect(receiver.unit['portico-reboot-time']).toBeUndefined();
  });

  test('the profile refuses a channel its country does not have and 80 MHz on 2.4 GHz', () => {
    const accepted = (input: object) => writeSchema(cpeProfile as unknown as AnyEntity, 'add').safeParse(input).success;
    expect(accepted({ name: 'n', ssid: 's', key: 'bridge-passphrase', band: '2g', channel: 13, country: 'US' })).toBe(false);
    expect(accepted({ name: 'n', ssid: 's', key: 'bridge-passphrase', band: '2g', channel: 13, country: 'CN', width: 40 })).toBe(true);
    expect(accepted({ name: 'n', ssid: 's', key: 'bridge-passphrase', band: '2g', width: 80 })).toBe(false);
  });
});
