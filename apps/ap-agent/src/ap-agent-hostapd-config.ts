import { pbkdf2Sync } from 'node:crypto';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { channelMhz, isSafeText, SSID_MAX_BYTES } from '@portico/schema';
import { centre80, type BssPlan, type ConfigPlan, type RadioPlan } from './ap-agent-config-plan.js';

/**
 * A configuration plan as hostapd and wpa_supplicant files: one hostapd.conf per access point
 * radio (its first BSS in the radio section, the others after `bss=`), the MAC list files
 * beside it, and a wpa_supplicant.conf for a CPE receiver radio. Rendering is pure and
 * deterministic: the same plan gives the same bytes, so an unchanged radio is left alone.
 *
 * Both programs read `key=value` to the end of the line with no quoting, so a newline in a
 * value would start a directive of its own. Every value is therefore re-checked here, whatever
 * the schema already refused: printable ASCII only, bounded. Text that may be anything else
 * (the SSID) is written as hex (`ssid2=<hex>`, `ssid=<hex>`), and the station's passphrase as
 * the derived 256-bit key, so no escaping rule exists to get wrong. hostapd has no
 * configuration-test flag (`hostapd -t` adds timestamps to its log), so the check is ours:
 * each file is parsed back into key/value pairs that must equal what was meant.
 */

export interface RenderedFile {
  path: string;
  content: string;
  mode: number;
}

export interface RenderPaths {
  /** Where the files go (the agent owns it: anything else there is removed). */
  confDir: string;
  hostapdControlDir: string;
  supplicantControlDir: string;
}

export class ConfigRenderError extends Error {}

type Entry = readonly [key: string, value: string];

const PRINTABLE = /^[\x20-\x7e]*$/;
const MAC = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;

/** Collects `key=value` lines, refusing any value that could leave its line. */
class ConfLines {
  readonly entries: Entry[] = [];
  constructor(private readonly header: string) {}

  set(key: string, value: string | number): void {
    const text = String(value);
    if (!/^[a-z0-9_.]+$/.test(key)) throw new ConfigRenderError(`bad key ${JSON.stringify(key)}`);
    if (!PRINTABLE.test(text) || text.length > 1024) throw new ConfigRenderError(`${key}: not a single line of printable ASCII`);
    this.entries.push([key, text]);
  }

  /** hostapd.conf: flat lines. */
  flat(): string {
    return `# ${this.header}\n${this.entries.map(([k, v]) => `${k}=${v}\n`).join('')}`;
  }

  /** wpa_supplicant.conf: `network.` keys go inside one network block. */
  supplicant(): string {
    const top = this.entries.filter(([k]) => !k.startsWith('network.'));
    const network = this.entries.filter(([k]) => k.startsWith('network.'));
    return `# ${this.header}\n${top.map(([k, v]) => `${k}=${v}\n`).join('')}network={\n${network.map(([k, v]) => `\t${k.slice(8)}=${v}\n`).join('')}}\n`;
  }
}

/** Parses a file written by ConfLines back into its entries (`network.` prefix inside a block). */
export function parseConfEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  let block = '';
  for (const raw of text.split('\n')) {
    const line = block ? raw.replace(/^\t/, '') : raw;
    if (line === '' || line.startsWith('#')) continue;
    if (/^[a-z_]+=\{$/.test(line) && !block) {
      block = `${line.slice(0, -2)}.`;
      continue;
    }
    if (line === '}' && block) {
      block = '';
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new ConfigRenderError(`line without key: ${JSON.stringify(line.slice(0, 80))}`);
    entries.push([block + line.slice(0, eq), line.slice(eq + 1)]);
  }
  if (block) throw new ConfigRenderError('unterminated block');
  return entries;
}

function checkedFile(path: string, lines: ConfLines, content: string, mode: number): RenderedFile {
  if (!isDeepStrictEqual(parseConfEntries(content), lines.entries)) throw new ConfigRenderError(`${path} does not read back as written`);
  return { path, content, mode };
}

export const hexText = (text: string) => Buffer.from(text, 'utf8').toString('hex');

/** An SSID as hex, re-checked: 1-32 bytes of UTF-8 without control characters. */
function ssidHex(name: string): string {
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length < 1 || bytes.length > SSID_MAX_BYTES || !isSafeText(name)) throw new ConfigRenderError('ssid: 1-32 bytes of text');
  return bytes.toString('hex');
}
const isAscii = (text: string) => PRINTABLE.test(text);

function passphrase(value: string | undefined): string {
  if (value === undefined || value.length < 8 || value.length > 63 || !isAscii(value)) throw new ConfigRenderError('wpa passphrase: 8-63 printable ASCII');
  return value;
}

export function hostapdConfPath(confDir: string, radioIfname: string): string {
  return join(confDir, `hostapd-${radioIfname}.conf`);
}
export function supplicantConfPath(confDir: string, radioIfname: string): string {
  return join(confDir, `wpa_supplicant-${radioIfname}.conf`);
}
export function macListPath(confDir: string, bssIfname: string, mode: 'allow' | 'deny'): string {
  return join(confDir, `${bssIfname}.${mode === 'allow' ? 'accept' : 'deny'}`);
}

/** The MAC list of a BSS, lower case, sorted, each once. */
export function macList(bss: BssPlan): string[] {
  const acl = bss.ssid['access-control-list'];
  const macs = [...new Set((acl?.['mac-address'] ?? []).map((m) => m.toLowerCase()))].sort();
  for (const mac of macs) if (!MAC.test(mac)) throw new ConfigRenderError('access list: not a MAC address');
  return macs;
}

function radioSection(lines: ConfLines, radio: RadioPlan, paths: RenderPaths): void {
  lines.set('interface', radio.ifname);
  lines.set('driver', radio.driver);
  lines.set('ctrl_interface', paths.hostapdControlDir);
  if (radio.driver === 'wired') {
    // 802.1X on a shared medium: EAPOL goes to the PAE group address, no radio settings exist.
    lines.set('use_pae_group_addr', 1);
    return;
  }
  lines.set('country_code', radio.country);
  lines.set('ieee80211d', 1);
  if (radio.band === '5G') lines.set('ieee80211h', 1);
  lines.set('hw_mode', radio.band === '5G' ? 'a' : 'g');
  lines.set('channel', radio.channel === 'auto' ? 'acs_survey' : radio.channel);
  if (radio.channel === 'auto' && radio.band === '5G' && !radio.allowDfs) lines.set('acs_exclude_dfs', 1);
  lines.set('ieee80211n', 1);
  // With ACS hostapd moves the pair to wherever it settles.
  if (radio.secondaryOffset !== 0) lines.set('ht_capab', radio.secondaryOffset > 0 ? '[HT40+]' : '[HT40-]');
  if (radio.band === '5G') {
    lines.set('ieee80211ac', 1);
    lines.set('vht_oper_chwidth', radio.width === 80 ? 1 : 0);
    if (radio.width === 80 && radio.channel !== 'auto') lines.set('vht_oper_centr_freq_seg0_idx', centre80(radio.channel));
  }
  lines.set('rts_threshold', radio.rtsThreshold);
}

function bssSection(lines: ConfLines, bss: BssPlan, paths: RenderPaths, files: RenderedFile[], wired: boolean): void {
  const ssid = bss.ssid;
  if (bss.ifname.includes('-')) {
    lines.set('bss', bss.ifname);
    lines.set('ctrl_interface', paths.hostapdControlDir);
  }
  lines.set('ssid2', ssidHex(ssid.name));
  if (!isAscii(ssid.name)) lines.set('utf8_ssid', 1);
  if (bss.bridge) lines.set('bridge', bss.bridge);
  if (ssid['hidden-ssid']) lines.set('ignore_broadcast_ssid', 1);
  if (ssid['isolate-clients']) lines.set('ap_isolate', 1);
  lines.set('max_num_sta', ssid['maximum-clients']);
  const proto = ssid.encryption.proto;
  // A wired port authenticates with 802.1X alone: no WPA keys exist on Ethernet.
  if (proto !== 'none' && !wired) {
    lines.set('wpa', 2);
    const keyMgmt = { psk2: 'WPA-PSK', sae: 'SAE', 'psk2-sae': 'WPA-PSK SAE', wpa2: 'WPA-EAP' }[proto];
    lines.set('wpa_key_mgmt', keyMgmt);
    lines.set('rsn_pairwise', 'CCMP');
    lines.set('ieee80211w', bss.mfp);
    // SAE reads wpa_passphrase when no sae_password is set; sae_password would parse `|mac=`.
    if (proto !== 'wpa2') lines.set('wpa_passphrase', passphrase(ssid.encryption.key));
    if (proto === 'sae' || proto === 'psk2-sae') lines.set('sae_require_mfp', 1);
  }
  if (proto === 'wpa2') {
    const radius = ssid.radius;
    if (!radius) throw new ConfigRenderError('802.1X without a RADIUS server');
    lines.set('ieee8021x', 1);
    lines.set('auth_server_addr', radius.authentication.host);
    lines.set('auth_server_port', radius.authentication.port);
    lines.set('auth_server_shared_secret', radius.authentication.secret);
    if (radius.accounting) {
      lines.set('acct_server_addr', radius.accounting.host);
      lines.set('acct_server_port', radius.accounting.port);
      lines.set('acct_server_shared_secret', radius.accounting.secret);
    }
  }
  const acl = ssid['access-control-list'];
  if (acl) {
    const path = macListPath(paths.confDir, bss.ifname, acl.mode);
    lines.set('macaddr_acl', acl.mode === 'allow' ? 1 : 0);
    lines.set(acl.mode === 'allow' ? 'accept_mac_file' : 'deny_mac_file', path);
    const macs = macList(bss);
    files.push({ path, content: macs.map((m) => `${m}\n`).join(''), mode: 0o644 });
  }
  if (ssid.rrm?.['neighbor-reporting'] && !wired) {
    lines.set('rrm_neighbor_report', 1);
    lines.set('rrm_beacon_report', 1);
  }
  if (ssid['portico-steering']?.['bss-transition'] && !wired) lines.set('bss_transition', 1);
  if (ssid['bss-mode'] === 'wds-ap') lines.set('wds_sta', 1);
}

function renderHostapd(radio: RadioPlan, paths: RenderPaths): RenderedFile[] {
  const files: RenderedFile[] = [];
  const lines = new ConfLines(`Portico AP agent: radio ${radio.index} (${radio.ifname})`);
  radioSection(lines, radio, paths);
  for (const bss of radio.bsses) bssSection(lines, bss, paths, files, radio.driver === 'wired');
  const path = hostapdConfPath(paths.confDir, radio.ifname);
  // Passphrases and RADIUS secrets: readable by root only.
  return [checkedFile(path, lines, lines.flat(), 0o600), ...files];
}

/** The CPE receiver: one network, SSID in hex, the passphrase as its PBKDF2 key (IEEE 802.11i). */
function renderSupplicant(radio: RadioPlan, bss: BssPlan, paths: RenderPaths): RenderedFile {
  const ssid = bss.ssid;
  const lines = new ConfLines(`Portico AP agent: radio ${radio.index} (${radio.ifname}) station`);
  lines.set('ctrl_interface', paths.supplicantControlDir);
  lines.set('country', radio.country);
  lines.set('network.ssid', ssidHex(ssid.name));
  if (ssid['hidden-ssid']) lines.set('network.scan_ssid', 1);
  if (radio.channel !== 'auto') lines.set('network.scan_freq', channelMhz(radio.band === '5G' ? '5g' : '2g', radio.channel));
  const proto = ssid.encryption.proto;
  if (proto === 'none') {
    lines.set('network.key_mgmt', 'NONE');
  } else {
    const key = passphrase(ssid.encryption.key);
    lines.set('network.key_mgmt', { psk2: 'WPA-PSK', sae: 'SAE', 'psk2-sae': 'WPA-PSK SAE' }[proto as 'psk2' | 'sae' | 'psk2-sae']);
    lines.set('network.proto', 'RSN');
    lines.set('network.pairwise', 'CCMP');
    lines.set('network.ieee80211w', bss.mfp);
    if (proto !== 'sae') lines.set('network.psk', pbkdf2Sync(key, Buffer.from(ssid.name, 'utf8'), 4096, 32, 'sha1').toString('hex'));
    // An unquoted sae_password is read as hex.
    if (proto !== 'psk2') lines.set('network.sae_password', hexText(key));
  }
  const path = supplicantConfPath(paths.confDir, radio.ifname);
  return checkedFile(path, lines, lines.supplicant(), 0o600);
}

/** Every file the plan needs, in radio order. A radio with neither BSS nor station has none. */
export function renderRadioFiles(plan: ConfigPlan, paths: RenderPaths): RenderedFile[] {
  return plan.radios.flatMap((radio) => {
    if (radio.station) return [renderSupplicant(radio, radio.station, paths)];
    return radio.bsses.length > 0 ? renderHostapd(radio, paths) : [];
  });
}
