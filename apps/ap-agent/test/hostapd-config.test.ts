import { describe, expect, it } from 'vitest';
import { isSafeText } from '@portico/schema';
import { HOSTILE_STRINGS } from '@portico/schema/testing';
import { planConfig, REJECT_REASONS, type ConfigPlan } from '../src/ap-agent-config-plan.js';
import { ConfigRenderError, parseConfEntries, renderRadioFiles } from '../src/ap-agent-hostapd-config.js';
import { agentSettings, deviceConfig, renderPaths, ssid } from './agent-fixtures.js';

const settings = agentSettings({ runDir: '/run/agent', hostapdControlDir: '/run/hostapd' });
const paths = renderPaths(settings);

function plan(...args: Parameters<typeof deviceConfig>) {
  const outcome = planConfig(deviceConfig(...args), 1, settings);
  if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.refusals)}`);
  return outcome;
}

/** The key/value pairs of a rendered file, as hostapd reads them. */
function entries(p: ConfigPlan, name: string): Array<readonly [string, string]> {
  const file = renderRadioFiles(p, paths).find((f) => f.path.endsWith(name));
  if (!file) throw new Error(`${name} not rendered`);
  return parseConfEntries(file.content);
}

const get = (list: Array<readonly [string, string]>, key: string) => list.filter(([k]) => k === key).map(([, v]) => v);
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

describe('hostapd.conf rendering', () => {
  it('renders an open SSID with the radio section, the SSID as hex and no security lines', () => {
    const conf = entries(plan([ssid({ encryption: { proto: 'none' } })]).plan, 'hostapd-wlan0.conf');
    expect(conf.slice(0, 9)).toEqual([
      ['interface', 'wlan0'],
      ['driver', 'nl80211'],
      ['ctrl_interface', '/run/hostapd'],
      ['country_code', 'CN'],
      ['ieee80211d', '1'],
      ['hw_mode', 'g'],
      ['channel', '6'],
      ['ieee80211n', '1'],
      ['rts_threshold', '2347'],
    ]);
    expect(get(conf, 'ssid2')).toEqual([hex('Office')]);
    expect(get(conf, 'bridge')).toEqual(['br-lan']);
    expect(get(conf, 'max_num_sta')).toEqual(['64']);
    for (const key of ['wpa', 'wpa_passphrase', 'wpa_key_mgmt', 'ieee80211w', 'utf8_ssid', 'ignore_broadcast_ssid']) expect(get(conf, key)).toEqual([]);
  });

  it('renders WPA2-PSK with CCMP and optional 802.11w', () => {
    const conf = entries(plan().plan, 'hostapd-wlan0.conf');
    expect(Object.fromEntries(conf.filter(([k]) => /^(wpa|rsn|ieee80211w)/.test(k)))).toEqual({
      wpa: '2',
      wpa_key_mgmt: 'WPA-PSK',
      rsn_pairwise: 'CCMP',
      ieee80211w: '1',
      wpa_passphrase: 'correct horse battery',
    });
  });

  it('renders SAE with 802.11w required and reports the substitution when the document asked less', () => {
    const outcome = plan([ssid({ encryption: { proto: 'sae', key: 'correct horse battery', ieee80211w: 'optional' } })]);
    const conf = entries(outcome.plan, 'hostapd-wlan0.conf');
    expect(get(conf, 'wpa_key_mgmt')).toEqual(['SAE']);
    expect(get(conf, 'ieee80211w')).toEqual(['2']);
    expect(get(conf, 'sae_require_mfp')).toEqual(['1']);
    expect(get(conf, 'sae_password')).toEqual([]);
    expect(outcome.substitutions).toEqual([
      {
        parameter: { 'interfaces[0].ssids[0].encryption.ieee80211w': 'optional' },
        reason: REJECT_REASONS.mfpRequired,
        substitution: { 'interfaces[0].ssids[0].encryption.ieee80211w': 'required' },
      },
    ]);
    const mixed = entries(plan([ssid({ encryption: { proto: 'psk2-sae', key: 'correct horse battery', ieee80211w: 'optional' } })]).plan, 'hostapd-wlan0.conf');
    expect(get(mixed, 'wpa_key_mgmt')).toEqual(['WPA-PSK SAE']);
    expect(get(mixed, 'ieee80211w')).toEqual(['1']);
  });

  it('renders 802.1X with the RADIUS servers and refuses a RADIUS host name hostapd cannot use', () => {
    const radius = { authentication: { host: '192.0.2.10', port: 1812, secret: 'radius-secret' }, accounting: { host: '192.0.2.10', port: 1813, secret: 'acct-secret' } };
    const conf = entries(plan([ssid({ encryption: { proto: 'wpa2', ieee80211w: 'optional' }, radius })]).plan, 'hostapd-wlan0.conf');
    expect(Object.fromEntries(conf.filter(([k]) => /^(ieee8021x|auth_|acct_|wpa_key_mgmt)/.test(k)))).toEqual({
      wpa_key_mgmt: 'WPA-EAP',
      ieee8021x: '1',
      auth_server_addr: '192.0.2.10',
      auth_server_port: '1812',
      auth_server_shared_secret: 'radius-secret',
      acct_server_addr: '192.0.2.10',
      acct_server_port: '1813',
      acct_server_shared_secret: 'acct-secret',
    });
    expect(get(conf, 'wpa_passphrase')).toEqual([]);
    const named = planConfig(deviceConfig([ssid({ encryption: { proto: 'wpa2' }, radius: { authentication: { host: 'radius.example', port: 1812, secret: 's' } } })]), 1, settings);
    expect(named).toEqual({ ok: false, refusals: [{ parameter: { 'interfaces[0].ssids[0].radius.authentication.host': 'radius.example' }, reason: REJECT_REASONS.radiusHostNotAddress }] });
  });

  it('renders a wired port as an 802.1X authenticator with hostapd\'s wired driver, and refuses what a port cannot run', () => {
    const wired = agentSettings({ runDir: '/run/agent', hostapdControlDir: '/run/hostapd', radios: [{ phy: 'phy0', interface: 'eth1', driver: 'wired' }] });
    const radius = { authentication: { host: '127.0.0.1', port: 1812, secret: 'radius-secret' } };
    const oneRadio = { radios: [{ band: '2G' as const, country: 'CN', channel: 6 }] };
    const outcome = planConfig(deviceConfig([ssid({ encryption: { proto: 'wpa2' }, radius, 'access-control-list': { mode: 'deny', 'mac-address': ['02:00:00:00:00:09'] } })], oneRadio), 1, wired);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.refusals));
    const file = renderRadioFiles(outcome.plan, renderPaths(wired)).find((f) => f.path.endsWith('hostapd-eth1.conf'))!;
    expect(Object.fromEntries(parseConfEntries(file.content))).toEqual({
      interface: 'eth1',
      driver: 'wired',
      ctrl_interface: '/run/hostapd',
      use_pae_group_addr: '1',
      ssid2: hex('Office'),
      bridge: 'br-lan',
      max_num_sta: expect.any(String),
      ieee8021x: '1',
      auth_server_addr: '127.0.0.1',
      auth_server_port: '1812',
      auth_server_shared_secret: 'radius-secret',
      macaddr_acl: '0',
      deny_mac_file: '/run/agent/conf/eth1.deny',
    });
    // PSK needs WPA keys, which Ethernet has not; a port carries one SSID.
    const psk = planConfig(deviceConfig([ssid()], oneRadio), 1, wired);
    expect(psk.ok ? [] : psk.refusals.map((r) => r.reason)).toEqual([REJECT_REASONS.wiredPort]);
    const two = planConfig(deviceConfig([ssid({ encryption: { proto: 'wpa2' }, radius }), ssid({ name: 'Two', encryption: { proto: 'wpa2' }, radius })], oneRadio), 1, wired);
    expect(two.ok ? [] : two.refusals.map((r) => r.reason)).toEqual([REJECT_REASONS.wiredPort]);
  });

  it('hides an SSID, isolates its clients and marks a non-ASCII name as UTF-8', () => {
    const conf = entries(plan([ssid({ name: '咖啡 Café', 'hidden-ssid': true, 'isolate-clients': true, 'maximum-clients': 20 })]).plan, 'hostapd-wlan0.conf');
    expect(get(conf, 'ssid2')).toEqual([hex('咖啡 Café')]);
    expect(get(conf, 'utf8_ssid')).toEqual(['1']);
    expect(get(conf, 'ignore_broadcast_ssid')).toEqual(['1']);
    expect(get(conf, 'ap_isolate')).toEqual(['1']);
    expect(get(conf, 'max_num_sta')).toEqual(['20']);
  });

  it('puts the first SSID of a radio in the radio section and the others after bss=wlanN-k', () => {
    const conf = entries(plan([ssid({ name: 'Staff' }), ssid({ name: 'Guest', encryption: { proto: 'none' } }), ssid({ name: 'IoT' })]).plan, 'hostapd-wlan0.conf');
    expect(get(conf, 'bss')).toEqual(['wlan0-1', 'wlan0-2']);
    const order = conf.filter(([k]) => k === 'bss' || k === 'ssid2').map(([k, v]) => (k === 'bss' ? v : Buffer.from(v, 'hex').toString()));
    expect(order).toEqual(['Staff', 'wlan0-1', 'Guest', 'wlan0-2', 'IoT']);
    // Each BSS keeps its own control socket directory.
    expect(get(conf, 'ctrl_interface')).toEqual(['/run/hostapd', '/run/hostapd', '/run/hostapd']);
  });

  it('renders 5 GHz at 80 MHz with the centre segment of the channel’s block and the 40 MHz pair', () => {
    const at = (channel: number, allowDfs = false) => {
      const outcome = plan([ssid({ 'wifi-bands': ['5G'] })], {
        radios: [{ band: '2G', country: 'CN', channel: 6 }, { band: '5G', country: 'CN', channel, 'channel-width': 80, 'allow-dfs': allowDfs }],
      });
      const conf = entries(outcome.plan, 'hostapd-wlan1.conf');
      return { conf, substitutions: outcome.substitutions, pick: (k: string) => get(conf, k) };
    };
    const c36 = at(36);
    expect(c36.pick('hw_mode')).toEqual(['a']);
    expect(c36.pick('ieee80211h')).toEqual(['1']);
    expect(c36.pick('ht_capab')).toEqual(['[HT40+]']);
    expect(c36.pick('ieee80211ac')).toEqual(['1']);
    expect(c36.pick('vht_oper_chwidth')).toEqual(['1']);
    expect(c36.pick('vht_oper_centr_freq_seg0_idx')).toEqual(['42']);
    expect(at(48).pick('ht_capab')).toEqual(['[HT40-]']);
    expect(at(48).pick('vht_oper_centr_freq_seg0_idx')).toEqual(['42']);
    expect(at(157).pick('vht_oper_centr_freq_seg0_idx')).toEqual(['155']);
    expect(at(60, true).pick('vht_oper_centr_freq_seg0_idx')).toEqual(['58']);
    // 165 has neither an 80 nor a 40 MHz block in CN: it runs at 20 MHz, reported.
    const c165 = at(165);
    expect(c165.pick('vht_oper_chwidth')).toEqual(['0']);
    expect(c165.pick('ht_capab')).toEqual([]);
    expect(c165.substitutions).toEqual([
      { parameter: { 'radios[1].channel-width': 80 }, reason: REJECT_REASONS.widthNotAvailable, substitution: { 'radios[1].channel-width': 20 } },
    ]);
  });

  it('substitutes auto (ACS) for a channel the country forbids or a radar channel without allow-dfs', () => {
    const forbidden = plan([ssid({ 'wifi-bands': ['5G'] })], { radios: [{ band: '2G', country: 'CN', channel: 6 }, { band: '5G', country: 'CN', channel: 100 }] });
    expect(get(entries(forbidden.plan, 'hostapd-wlan1.conf'), 'channel')).toEqual(['acs_survey']);
    expect(get(entries(forbidden.plan, 'hostapd-wlan1.conf'), 'acs_exclude_dfs')).toEqual(['1']);
    expect(forbidden.substitutions).toEqual([{ parameter: { 'radios[1].channel': 100 }, reason: REJECT_REASONS.channelNotAllowed, substitution: { 'radios[1].channel': 'auto' } }]);
    const radar = plan([ssid({ 'wifi-bands': ['5G'] })], { radios: [{ band: '2G', country: 'CN', channel: 6 }, { band: '5G', country: 'CN', channel: 52 }] });
    expect(radar.substitutions[0]!.reason).toBe(REJECT_REASONS.dfsNotAllowed);
    // 2.4 GHz 40 MHz: the secondary channel goes where it fits.
    const upper = plan([ssid()], { radios: [{ band: '2G', country: 'CN', channel: 11, 'channel-width': 40 }, { band: '5G', country: 'CN', channel: 36 }] });
    expect(get(entries(upper.plan, 'hostapd-wlan0.conf'), 'ht_capab')).toEqual(['[HT40-]']);
  });

  it('renders MAC lists beside the file with macaddr_acl 0 (deny) or 1 (allow)', () => {
    const deny = plan([ssid({ 'access-control-list': { mode: 'deny', 'mac-address': ['AA:BB:CC:00:00:02', 'aa:bb:cc:00:00:01', 'aa:bb:cc:00:00:02'] } })]).plan;
    const files = renderRadioFiles(deny, paths);
    expect(get(entries(deny, 'hostapd-wlan0.conf'), 'macaddr_acl')).toEqual(['0']);
    expect(get(entries(deny, 'hostapd-wlan0.conf'), 'deny_mac_file')).toEqual(['/run/agent/conf/wlan0.deny']);
    expect(files.find((f) => f.path === '/run/agent/conf/wlan0.deny')?.content).toBe('aa:bb:cc:00:00:01\naa:bb:cc:00:00:02\n');
    const allow = plan([ssid({ 'access-control-list': { mode: 'allow', 'mac-address': ['aa:bb:cc:00:00:01'] } })]).plan;
    expect(get(entries(allow, 'hostapd-wlan0.conf'), 'macaddr_acl')).toEqual(['1']);
    expect(get(entries(allow, 'hostapd-wlan0.conf'), 'accept_mac_file')).toEqual(['/run/agent/conf/wlan0.accept']);
  });

  it('turns on 802.11k reports and 802.11v transitions when the SSID asks', () => {
    const conf = entries(plan([ssid({ rrm: { 'neighbor-reporting': true }, 'portico-steering': { 'bss-transition': true, 'rssi-threshold': -75 } })]).plan, 'hostapd-wlan0.conf');
    expect(get(conf, 'rrm_neighbor_report')).toEqual(['1']);
    expect(get(conf, 'rrm_beacon_report')).toEqual(['1']);
    expect(get(conf, 'bss_transition')).toEqual(['1']);
  });

  it('renders a CPE base as a WDS access point and a CPE receiver as a wpa_supplicant station', () => {
    const base = entries(plan([ssid({ 'bss-mode': 'wds-ap', 'wifi-bands': ['5G'] })]).plan, 'hostapd-wlan1.conf');
    expect(get(base, 'wds_sta')).toEqual(['1']);
    const receiver = plan([ssid({ name: 'IEEE', 'bss-mode': 'wds-sta', 'wifi-bands': ['5G'], encryption: { proto: 'psk2', key: 'password' } })]).plan;
    expect(renderRadioFiles(receiver, paths).map((f) => f.path)).toEqual(['/run/agent/conf/wpa_supplicant-wlan1.conf']);
    const file = renderRadioFiles(receiver, paths)[0]!;
    expect(file.content).toContain('network={\n\tssid=49454545\n');
    expect(file.mode).toBe(0o600);
    expect(Object.fromEntries(parseConfEntries(file.content))).toEqual({
      ctrl_interface: '/var/run/wpa_supplicant',
      country: 'CN',
      'network.ssid': hex('IEEE'),
      'network.scan_freq': '5180',
      'network.key_mgmt': 'WPA-PSK',
      'network.proto': 'RSN',
      'network.pairwise': 'CCMP',
      'network.ieee80211w': '1',
      // IEEE 802.11i-2004 H.4.1 test vector: passphrase "password", SSID "IEEE".
      'network.psk': 'f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e',
    });
    const wpa3 = plan([ssid({ 'bss-mode': 'wds-sta', 'wifi-bands': ['5G'], encryption: { proto: 'psk2-sae', key: 'pass "word" |mac=1' } })]).plan;
    const station = Object.fromEntries(parseConfEntries(renderRadioFiles(wpa3, paths)[0]!.content));
    expect(station['network.sae_password']).toBe(hex('pass "word" |mac=1'));
    expect(station['network.key_mgmt']).toBe('WPA-PSK SAE');
  });

  it('refuses a receiver sharing its radio, an SSID on a band without a radio, and an unmapped VLAN', () => {
    const shared = planConfig(deviceConfig([ssid({ 'bss-mode': 'wds-sta', 'wifi-bands': ['5G'] }), ssid({ name: 'Guest', 'wifi-bands': ['5G'] })]), 1, settings);
    expect(shared.ok ? [] : shared.refusals.map((r) => r.reason)).toEqual([REJECT_REASONS.stationNotAlone]);
    const noRadio = planConfig(deviceConfig([ssid({ 'wifi-bands': ['5G'] })], { radios: [{ band: '2G', country: 'CN', channel: 6 }] }), 1, settings);
    expect(noRadio.ok ? [] : noRadio.refusals.map((r) => r.reason)).toEqual([REJECT_REASONS.noRadioForBand]);
    const vlan = planConfig(deviceConfig(undefined, { interfaces: [{ name: 'guest', role: 'downstream', vlan: { id: 30 }, ssids: [ssid()] }] }), 1, settings);
    expect(vlan.ok ? [] : vlan.refusals.map((r) => r.reason)).toEqual([REJECT_REASONS.vlanWithoutBridge]);
    const mapped = planConfig(deviceConfig(undefined, { interfaces: [{ name: 'guest', role: 'downstream', vlan: { id: 30 }, ssids: [ssid()] }] }), 1, agentSettings({ vlanBridges: { '30': 'br-guest' } }));
    expect(mapped.ok && mapped.plan.radios[0]!.bsses[0]!.bridge).toBe('br-guest');
  });

  it('is deterministic', () => {
    const p = plan([ssid(), ssid({ name: 'Guest', 'wifi-bands': ['2G', '5G'] })]).plan;
    expect(renderRadioFiles(p, paths)).toEqual(renderRadioFiles(structuredClone(p), paths));
  });

  it('never lets a hostile value leave its line, even one the schema would have refused', () => {
    const base = plan([ssid({ encryption: { proto: 'wpa2' }, radius: { authentication: { host: '192.0.2.10', port: 1812, secret: 'radius-secret' } } })]).plan;
    const withValue = (mutate: (p: ConfigPlan) => void) => {
      const p = structuredClone(base);
      mutate(p);
      return p;
    };
    for (const value of [...HOSTILE_STRINGS, 'secret\nwpa_passphrase=evil', 'x\rctrl_interface=/tmp']) {
      // The SSID is hex, so always one line that reads back as the name, or refused as text.
      const named = withValue((p) => (p.radios[0]!.bsses[0]!.ssid.name = value));
      const fits = isSafeText(value) && Buffer.byteLength(value) >= 1 && Buffer.byteLength(value) <= 32;
      if (fits) expect(get(entries(named, 'hostapd-wlan0.conf'), 'ssid2')).toEqual([hex(value)]);
      else expect(() => renderRadioFiles(named, paths)).toThrow(ConfigRenderError);
      // A secret is written as it is, or refused: never a second directive.
      const secret = withValue((p) => (p.radios[0]!.bsses[0]!.ssid.radius!.authentication.secret = value));
      let written: Array<readonly [string, string]> | null = null;
      try {
        written = entries(secret, 'hostapd-wlan0.conf');
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigRenderError);
      }
      if (written) {
        expect(get(written, 'auth_server_shared_secret')).toEqual([value]);
        expect(written.map(([k]) => k)).toEqual(entries(base, 'hostapd-wlan0.conf').map(([k]) => k));
      }
    }
    const psk = structuredClone(plan().plan);
    psk.radios[0]!.bsses[0]!.ssid.encryption.key = 'twelve chars\nwpa=0';
    expect(() => renderRadioFiles(psk, paths)).toThrow(ConfigRenderError);
    const acl = structuredClone(plan([ssid({ 'access-control-list': { mode: 'deny', 'mac-address': ['aa:bb:cc:00:00:01'] } })]).plan);
    acl.radios[0]!.bsses[0]!.ssid['access-control-list']!['mac-address'] = ['aa:bb:cc:00:00:01\nbb:bb:bb:bb:bb:bb'];
    expect(() => renderRadioFiles(acl, paths)).toThrow(ConfigRenderError);
  });
});
