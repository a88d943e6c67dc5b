import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostapdControl, neighbourArgument, parseAllSta, parseStatus } from '../src/ap-agent-hostapd-control.js';
import { decodeIwSsid, IwControl, parseIwDev, parseIwScan } from '../src/ap-agent-iw.js';
import type { CommandRunner } from '../src/ap-agent-command.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');

function recording(answer: (argv: readonly string[]) => string = () => 'OK'): { run: CommandRunner; commands: string[][] } {
  const commands: string[][] = [];
  return {
    commands,
    run: async (argv) => {
      commands.push([...argv]);
      return { exitCode: 0, stdout: answer(argv), stderr: '' };
    },
  };
}

describe('hostapd_cli output', () => {
  it('parses all_sta into stations with signal, rates in kbit/s, traffic and times', () => {
    expect(parseAllSta(fixture('hostapd-all-sta.txt'))).toEqual([
      { mac: '02:11:22:33:44:01', authorized: true, signal: -58, rxBitrate: 866_700, txBitrate: 780_000, rxBytes: 183220, txBytes: 2219043, connectedSeconds: 3605, inactiveMs: 1250 },
      { mac: '02:11:22:33:44:02', authorized: true, signal: -81, rxBitrate: 1000, txBitrate: 6500, rxBytes: 1200, txBytes: 900, connectedSeconds: 12, inactiveMs: 58000 },
      // A station still authenticating: nothing usable but its address; a positive "signal" is not one.
      { mac: '02:11:22:33:44:03', authorized: false, rxBytes: 0, txBytes: 0, connectedSeconds: 0, inactiveMs: 0 },
    ]);
    expect(parseAllSta('')).toEqual([]);
  });

  it('parses all_sta of hostapd\'s wired driver: an 802.1X station with no signal (a capture from hostapd 2.10, trimmed)', () => {
    expect(parseAllSta(fixture('hostapd-all-sta-wired.txt'))).toEqual([
      { mac: '8a:bb:f8:c7:85:23', authorized: true, rxBytes: 0, txBytes: 0, connectedSeconds: 0, inactiveMs: 0 },
    ]);
  });

  it('parses status into state, channel, width and the BSSIDs per BSS', () => {
    const status = parseStatus(fixture('hostapd-status.txt'));
    expect(status).toEqual({
      state: 'ENABLED',
      channel: 36,
      freq: 5180,
      secondaryChannel: 1,
      vhtWidth: 1,
      bssids: new Map([
        ['wlan1', '02:aa:bb:cc:dd:10'],
        ['wlan1-1', '02:aa:bb:cc:dd:11'],
      ]),
    });
  });

  it('runs each command as one argument array on the BSS, and refuses an argument that would add parameters', async () => {
    const { run, commands } = recording();
    const control = new HostapdControl(run, '/run/hostapd');
    await control.aclAdd('wlan0', 'deny', 'AA:BB:CC:00:00:01');
    await control.deauthenticate('wlan0', 'aa:bb:cc:00:00:01');
    await control.aclDelete('wlan0-1', 'accept', 'aa:bb:cc:00:00:02');
    await control.aclClear('wlan0', 'deny');
    await control.transition('wlan0', 'aa:bb:cc:00:00:01', [{ bssid: '02:aa:bb:cc:dd:10', channel: 36, band: '5G', width: 80 }]);
    await control.channelSwitch('wlan1', { count: 5, freq: 5180, width: 80, secondaryOffset: 1, centreFreq: 5210, vht: true });
    await control.reload('wlan0');
    expect(commands).toEqual([
      ['hostapd_cli', '-p', '/run/hostapd', '-i', 'wlan0', 'deny_acl', 'ADD_MAC', 'aa:bb:cc:00:00:01'],
      ['hostapd_cli', '-p', '/run/hostapd', '-i', 'wlan0', 'deauthenticate', 'aa:bb:cc:00:00:01'],
      ['hostapd_cli', '-p', '/run/hostapd', '-i', 'wlan0-1', 'accept_acl', 'DEL_MAC', 'aa:bb:cc:00:00:02'],
      ['hostapd_cli', '-p', '/run/hostapd', '-i', 'wlan0', 'deny_acl', 'CLEAR'],
      ['hostapd_cli', '-p', '/run/hostapd', '-i', 'wlan0', 'bss_tm_req', 'aa:bb:cc:00:00:01', 'pref=1', 'disassoc_imminent=1', 'disassoc_timer=100', 'abridged=1', 'neighbor=02:aa:bb:cc:dd:10,15,115,36,9'],
      ['hostapd_cli', '-p', '/run/hostapd', '-i', 'wlan1', 'chan_switch', '5', '5180', 'sec_channel_offset=1', 'center_freq1=5210', 'bandwidth=80', 'ht', 'vht'],
      ['hostapd_cli', '-p', '/run/hostapd', '-i', 'wlan0', 'reload'],
    ]);
    await expect(control.deauthenticate('wlan0', 'aa:bb:cc:00:00:01 reason=3')).rejects.toThrow();
    await expect(control.command('wlan0 -i wlan1', ['status'])).rejects.toThrow();
    await expect(control.command('wlan0', ['set', 'ssid evil'])).rejects.toThrow();
    expect(commands).toHaveLength(7);
  });

  it('treats FAIL as a failure', async () => {
    const control = new HostapdControl(recording(() => 'FAIL').run, '/run/hostapd');
    await expect(control.reload('wlan0')).rejects.toThrow(/FAIL/);
  });

  it('writes neighbour reports with the operating class of the channel', () => {
    expect(neighbourArgument({ bssid: '02:00:00:00:00:01', channel: 6, band: '2G', width: 20 })).toBe('neighbor=02:00:00:00:00:01,15,81,6,7');
    expect(neighbourArgument({ bssid: '02:00:00:00:00:01', channel: 100, band: '5G', width: 80 })).toBe('neighbor=02:00:00:00:00:01,15,121,100,9');
    expect(neighbourArgument({ bssid: '02:00:00:00:00:01', channel: 157, band: '5G', width: 80 })).toBe('neighbor=02:00:00:00:00:01,15,125,157,9');
  });
});

describe('iw output', () => {
  it('decodes iw’s \\xNN escapes and refuses what is not safe text', () => {
    expect(decodeIwSsid('Caf\\xc3\\xa9\\x20')).toBe('Café ');
    expect(decodeIwSsid('back\\x5cslash')).toBe('back\\slash');
    expect(decodeIwSsid('evil\\x0aconf_file=/tmp/x')).toBeNull();
    expect(decodeIwSsid('bad\\xffutf8')).toBeNull();
    expect(decodeIwSsid('\\xe2\\x80\\xae')).toBeNull();
    expect(decodeIwSsid('a'.repeat(33))).toBeNull();
    expect(decodeIwSsid('raw é')).toBeNull();
  });

  it('parses a scan into entries with channel, width and signal; hostile names become empty', () => {
    expect(parseIwScan(fixture('iw-scan.txt'))).toEqual([
      { bssid: '02:00:00:00:01:00', ssid: 'Neighbour Café ', channel: 6, width: 20, signal: -41 },
      { bssid: '02:00:00:00:02:00', ssid: '咖啡', channel: 36, width: 80, signal: -67 },
      { bssid: '02:00:00:00:03:00', ssid: '', channel: 149, width: 40, signal: -80 },
      // Markup is text like any other; the console escapes what it shows.
      { bssid: '02:00:00:00:04:00', ssid: '<script>alert(1)</script>', channel: 1, width: 20, signal: -70 },
      { bssid: '02:00:00:00:05:00', ssid: '', channel: 11, width: 20, signal: -88 },
      { bssid: '02:00:00:00:06:00', ssid: '', channel: 2, width: 20, signal: -90 },
      { bssid: '02:00:00:00:07:00', ssid: '', channel: 3, width: 20, signal: -91 },
      // 6 GHz is not a band of the protocol's scan entries; a BSS without a signal is left out.
      { bssid: '02:00:00:00:0a:00', ssid: '', channel: 4, width: 20, signal: -75 },
    ]);
  });

  it('parses iw dev into interfaces per phy', () => {
    expect(parseIwDev(fixture('iw-dev.txt'))).toEqual([
      { phy: 'phy1', name: 'wlan1-1', addr: '02:aa:bb:cc:dd:11', type: 'AP', channel: 36, width: 80, txPowerDbm: 23 },
      { phy: 'phy1', name: 'wlan1', addr: '02:aa:bb:cc:dd:10', type: 'AP', channel: 36, width: 80, txPowerDbm: 23 },
      { phy: 'phy0', name: 'wlan0', addr: '02:aa:bb:cc:dd:00', type: 'AP', channel: 6, width: 20, txPowerDbm: 20 },
    ]);
  });

  it('sets transmit power in mBm and scans an access point interface with ap-force', async () => {
    const { run, commands } = recording((argv) => (argv.includes('scan') ? fixture('iw-scan.txt') : ''));
    const iw = new IwControl(run);
    await iw.setTxPower('wlan0', 17);
    await iw.setTxPower('wlan1', 'auto');
    const found = await iw.scan('wlan1', { freqs: [5180, 5200], active: false });
    expect(found).toHaveLength(8);
    expect(commands).toEqual([
      ['iw', 'dev', 'wlan0', 'set', 'txpower', 'fixed', '1700'],
      ['iw', 'dev', 'wlan1', 'set', 'txpower', 'auto'],
      ['iw', 'dev', 'wlan1', 'scan', 'freq', '5180', '5200', 'ap-force', 'passive'],
    ]);
    await expect(iw.setTxPower('-wlan0', 10)).rejects.toThrow();
  });
});
