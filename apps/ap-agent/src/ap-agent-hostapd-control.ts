import { runChecked, CommandFailure, type CommandRunner } from './ap-agent-command.js';

/**
 * Run-time control of a running hostapd through `hostapd_cli -p <dir> -i <bss> <command> …`.
 * hostapd_cli joins its arguments with spaces into one control message, so an argument holding
 * a space would add parameters of its own: every argument is checked to be one plain token
 * before anything runs. hostapd answers `FAIL` (exit status 0) when it refuses a command.
 */

const MAC = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;
const TOKEN = /^[A-Za-z0-9_.:,=+\-[\]]{1,200}$/;

export interface StationInfo {
  mac: string;
  /** dBm; undefined when the driver reports none (a wired port). */
  signal?: number;
  /** 802.1X (or the open/PSK equivalent) let it through: `[AUTHORIZED]` among its flags. */
  authorized: boolean;
  /** kbit/s. */
  rxBitrate?: number;
  txBitrate?: number;
  rxBytes: number;
  txBytes: number;
  connectedSeconds: number;
  inactiveMs: number;
}

export interface HostapdStatus {
  state: string;
  channel?: number;
  freq?: number;
  /** +1 / -1 with a 40 MHz secondary channel, 0 without. */
  secondaryChannel: number;
  /** vht_oper_chwidth: 0 20/40 MHz, 1 80 MHz, 2 160 MHz. */
  vhtWidth: number;
  /** BSS interface name → BSSID. */
  bssids: Map<string, string>;
}

export type AclList = 'deny' | 'accept';

/** One neighbour of a BSS Transition Management request (802.11v / 802.11k neighbour report). */
export interface TransitionCandidate {
  bssid: string;
  channel: number;
  band: '2G' | '5G';
  width: number;
}

function counter(value: string | undefined): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** hostapd reports rates in 100 kbit/s units (`rx_rate_info=1300 vhtmcs 7 …`). */
function rate(value: string | undefined): number | undefined {
  const n = Number(value?.split(' ')[0]);
  return Number.isSafeInteger(n) && n >= 0 ? n * 100 : undefined;
}

/** Parses `all_sta`: each station is its MAC on a line of its own, then key=value lines. */
export function parseAllSta(text: string): StationInfo[] {
  const stations: StationInfo[] = [];
  let current: Map<string, string> | null = null;
  let mac = '';
  const flush = () => {
    if (!current) return;
    const signal = Number(current.get('signal'));
    stations.push({
      mac,
      authorized: (current.get('flags') ?? '').includes('[AUTHORIZED]'),
      ...(Number.isInteger(signal) && signal >= -120 && signal <= 0 ? { signal } : {}),
      ...(rate(current.get('rx_rate_info')) === undefined ? {} : { rxBitrate: rate(current.get('rx_rate_info')) }),
      ...(rate(current.get('tx_rate_info')) === undefined ? {} : { txBitrate: rate(current.get('tx_rate_info')) }),
      rxBytes: counter(current.get('rx_bytes')),
      txBytes: counter(current.get('tx_bytes')),
      connectedSeconds: counter(current.get('connected_time')),
      inactiveMs: counter(current.get('inactive_msec')),
    });
  };
  for (const line of text.split('\n').map((l) => l.trim())) {
    const lower = line.toLowerCase();
    if (MAC.test(lower)) {
      flush();
      mac = lower;
      current = new Map();
      continue;
    }
    const eq = line.indexOf('=');
    if (current && eq > 0) current.set(line.slice(0, eq), line.slice(eq + 1));
  }
  flush();
  return stations;
}

/** Parses `status`: the radio's state, channel and the BSSes it runs. */
export function parseStatus(text: string): HostapdStatus {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const int = (key: string) => {
    const n = Number(values.get(key));
    return Number.isInteger(n) ? n : undefined;
  };
  const bssids = new Map<string, string>();
  for (let i = 0; values.has(`bss[${i}]`); i++) {
    const name = values.get(`bss[${i}]`)!;
    const bssid = values.get(`bssid[${i}]`)?.toLowerCase();
    if (bssid && MAC.test(bssid)) bssids.set(name, bssid);
  }
  const channel = int('channel');
  const freq = int('freq');
  return {
    state: values.get('state') ?? 'UNKNOWN',
    ...(channel !== undefined && channel >= 1 && channel <= 196 ? { channel } : {}),
    ...(freq !== undefined && freq > 0 ? { freq } : {}),
    secondaryChannel: int('secondary_channel') ?? 0,
    vhtWidth: int('vht_oper_chwidth') ?? 0,
    bssids,
  };
}

/** The 802.11 global operating class of a 20 MHz channel (IEEE 802.11 Annex E, table E-4). */
export function operatingClass(band: '2G' | '5G', channel: number): number {
  if (band === '2G') return 81;
  if (channel <= 48) return 115;
  if (channel <= 64) return 118;
  if (channel <= 144) return 121;
  return 125;
}

/**
 * `neighbor=<BSSID>,<BSSID information>,<operating class>,<channel>,<PHY type>`. The BSSID
 * information says the candidate is reachable, has the same security and key scope (bits 0-3);
 * PHY type 9 is VHT, 7 HT.
 */
export function neighbourArgument(candidate: TransitionCandidate): string {
  const phy = candidate.band === '5G' ? 9 : 7;
  return `neighbor=${candidate.bssid},15,${operatingClass(candidate.band, candidate.channel)},${candidate.channel},${phy}`;
}

export class HostapdControl {
  constructor(
    private readonly run: CommandRunner,
    private readonly controlDir: string,
  ) {}

  /** Runs one command on a BSS and returns hostapd's answer; throws on FAIL or a dead daemon. */
  async command(bss: string, args: readonly string[]): Promise<string> {
    for (const arg of [bss, ...args]) if (!TOKEN.test(arg)) throw new Error(`hostapd_cli argument refused: ${JSON.stringify(arg.slice(0, 40))}`);
    const argv = ['hostapd_cli', '-p', this.controlDir, '-i', bss, ...args];
    const stdout = await runChecked(this.run, argv);
    if (stdout.trim() === 'FAIL' || stdout.trim().startsWith('UNKNOWN COMMAND')) throw new CommandFailure(argv, { exitCode: 0, stdout, stderr: '' });
    return stdout;
  }

  async allStations(bss: string): Promise<StationInfo[]> {
    return parseAllSta(await this.command(bss, ['all_sta']));
  }

  async status(bss: string): Promise<HostapdStatus> {
    return parseStatus(await this.command(bss, ['status']));
  }

  async deauthenticate(bss: string, mac: string): Promise<void> {
    await this.command(bss, ['deauthenticate', checkedMac(mac)]);
  }

  /** Changes the running deny or accept list without a reload. */
  async aclAdd(bss: string, list: AclList, mac: string): Promise<void> {
    await this.command(bss, [`${list}_acl`, 'ADD_MAC', checkedMac(mac)]);
  }

  async aclDelete(bss: string, list: AclList, mac: string): Promise<void> {
    await this.command(bss, [`${list}_acl`, 'DEL_MAC', checkedMac(mac)]);
  }

  async aclClear(bss: string, list: AclList): Promise<void> {
    await this.command(bss, [`${list}_acl`, 'CLEAR']);
  }

  /**
   * Asks a station to move (802.11v BSS Transition Management): preferred candidates listed,
   * disassociation imminent after `disassocTimer` beacon intervals if it stays.
   */
  async transition(bss: string, mac: string, candidates: readonly TransitionCandidate[], disassocTimer = 100): Promise<void> {
    const args = ['bss_tm_req', checkedMac(mac), 'pref=1', 'disassoc_imminent=1', `disassoc_timer=${disassocTimer}`, 'abridged=1'];
    for (const candidate of candidates) args.push(neighbourArgument({ ...candidate, bssid: checkedMac(candidate.bssid) }));
    await this.command(bss, args);
  }

  /** Re-reads the configuration file (security, lists, SSID options; not channel or BSS set). */
  async reload(bss: string): Promise<void> {
    await this.command(bss, ['reload']);
  }

  /**
   * Moves the radio with a Channel Switch Announcement counted down over `count` beacons.
   * `centreFreq` is the 40/80 MHz centre frequency, absent at 20 MHz.
   */
  async channelSwitch(bss: string, request: { count: number; freq: number; width: 20 | 40 | 80; secondaryOffset: number; centreFreq?: number; vht: boolean }): Promise<void> {
    const args = ['chan_switch', String(request.count), String(request.freq)];
    if (request.width > 20) {
      args.push(`sec_channel_offset=${request.secondaryOffset}`);
      if (request.centreFreq) args.push(`center_freq1=${request.centreFreq}`);
    }
    args.push(`bandwidth=${request.width}`, 'ht');
    if (request.vht) args.push('vht');
    await this.command(bss, args);
  }
}

function checkedMac(mac: string): string {
  const lower = mac.toLowerCase();
  if (!MAC.test(lower)) throw new Error('not a MAC address');
  return lower;
}
