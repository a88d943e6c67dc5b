import { isSafeText, scanEntrySchema, SSID_MAX_BYTES, type ScanEntry } from '@portico/schema';
import { CommandFailure, runChecked, type CommandRunner } from './ap-agent-command.js';

/**
 * `iw` for what hostapd does not do: transmit power, scans and the interface list. iw prints
 * SSIDs with every byte outside printable ASCII (and backslash, and an edge space) as `\xNN`;
 * the raw bytes are rebuilt, read as UTF-8 and checked like any text from the air. A network
 * whose name is not safe text is still reported, with an empty SSID: its channel matters to
 * channel planning, its name may not reach a page or a file.
 */

const MAC = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;
const IFNAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/;

/** Undoes iw's escaping; null when the result is not an SSID we may show. */
export function decodeIwSsid(escaped: string): string | null {
  const bytes: number[] = [];
  for (let i = 0; i < escaped.length; i++) {
    const hex = escaped[i] === '\\' && escaped[i + 1] === 'x' ? escaped.slice(i + 2, i + 4) : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 3;
      continue;
    }
    const code = escaped.charCodeAt(i);
    if (code > 0x7e) return null;
    bytes.push(code);
  }
  if (bytes.length > SSID_MAX_BYTES) return null;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
  return isSafeText(text) ? text : null;
}

/** 20 MHz channel number of a 2.4 or 5 GHz centre frequency; null elsewhere (6 GHz, 60 GHz). */
export function frequencyChannel(mhz: number): { band: '2G' | '5G'; channel: number } | null {
  if (mhz === 2484) return { band: '2G', channel: 14 };
  if (mhz >= 2412 && mhz <= 2472 && (mhz - 2407) % 5 === 0) return { band: '2G', channel: (mhz - 2407) / 5 };
  if (mhz >= 5160 && mhz <= 5885 && mhz % 5 === 0) return { band: '5G', channel: (mhz - 5000) / 5 };
  return null;
}

interface ScanDraft {
  bssid: string;
  freq?: number;
  signal?: number;
  ssid: string;
  htWidth: 20 | 40;
  vhtWidth?: 80 | 160;
}

function finishScanEntry(draft: ScanDraft): ScanEntry | null {
  const where = draft.freq === undefined ? null : frequencyChannel(draft.freq);
  if (!where || draft.signal === undefined) return null;
  const parsed = scanEntrySchema.safeParse({
    bssid: draft.bssid,
    ssid: draft.ssid,
    channel: where.channel,
    width: draft.vhtWidth ?? draft.htWidth,
    signal: Math.round(draft.signal),
  });
  return parsed.success ? parsed.data : null;
}

/** Parses `iw dev <if> scan`: one entry per `BSS` block that has a frequency and a signal. */
export function parseIwScan(text: string): ScanEntry[] {
  const entries: ScanEntry[] = [];
  let draft: ScanDraft | null = null;
  let section = '';
  const flush = () => {
    const entry = draft && finishScanEntry(draft);
    if (entry) entries.push(entry);
  };
  for (const raw of text.split('\n')) {
    const header = /^BSS ([0-9a-fA-F:]{17})(?:\(on [^)]*\))?/.exec(raw);
    if (header) {
      flush();
      const bssid = header[1]!.toLowerCase();
      draft = MAC.test(bssid) ? { bssid, ssid: '', htWidth: 20 } : null;
      section = '';
      continue;
    }
    if (!draft) continue;
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if (/^\t[^\t]/.test(raw)) section = line.replace(/:.*$/, '');
    if ((m = /^freq: ([0-9]+(?:\.[0-9]+)?)$/.exec(line))) draft.freq = Math.round(Number(m[1]));
    else if ((m = /^signal: (-?[0-9]+(?:\.[0-9]+)?) dBm$/.exec(line))) draft.signal = Number(m[1]);
    else if (/^\tSSID: /.test(raw) || raw === '\tSSID:') draft.ssid = decodeIwSsid(raw.slice('\tSSID: '.length)) ?? '';
    else if (section === 'HT operation' && (m = /^\* STA channel width: (.*)$/.exec(line))) draft.htWidth = m[1] === 'any' ? 40 : 20;
    else if (section === 'VHT operation' && (m = /^\* channel width: ([0-9])/.exec(line))) {
      // 1: 80 MHz, 2: 160 MHz, 3: 80+80 MHz; 0 leaves the HT width.
      if (m[1] === '1') draft.vhtWidth = 80;
      else if (m[1] === '2' || m[1] === '3') draft.vhtWidth = 160;
    }
  }
  flush();
  return entries;
}

export interface IwInterface {
  phy: string;
  name: string;
  addr?: string;
  type?: string;
  channel?: number;
  width?: number;
  txPowerDbm?: number;
}

/** Parses `iw dev`: the wireless interfaces per phy with address, type, channel and power. */
export function parseIwDev(text: string): IwInterface[] {
  const list: IwInterface[] = [];
  let phy = '';
  let current: IwInterface | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^phy#([0-9]+)$/.exec(line))) {
      phy = `phy${m[1]}`;
      current = null;
    } else if ((m = /^Interface (\S+)$/.exec(line))) {
      current = IFNAME.test(m[1]!) ? { phy, name: m[1]! } : null;
      if (current) list.push(current);
    } else if (!current) {
      continue;
    } else if ((m = /^addr ([0-9a-fA-F:]{17})$/.exec(line)) && MAC.test(m[1]!.toLowerCase())) {
      current.addr = m[1]!.toLowerCase();
    } else if ((m = /^type (\S+)$/.exec(line))) {
      current.type = m[1]!;
    } else if ((m = /^channel ([0-9]+) \([0-9.]+ MHz\)(?:, width: ([0-9]+) MHz)?/.exec(line))) {
      current.channel = Number(m[1]);
      if (m[2]) current.width = Number(m[2]);
    } else if ((m = /^txpower (-?[0-9]+(?:\.[0-9]+)?) dBm$/.exec(line))) {
      current.txPowerDbm = Math.round(Number(m[1]));
    }
  }
  return list;
}

function checkedIfname(name: string): string {
  if (!IFNAME.test(name)) throw new Error('not an interface name');
  return name;
}

/** A scan the radio refused as busy (hostapd's ACS survey or another scan running) is tried again. */
export const SCAN_BUSY_TRIES = 5;
const SCAN_BUSY_RETRY_MS = 1000;

export class IwControl {
  constructor(
    private readonly run: CommandRunner,
    private readonly busyRetryMs = SCAN_BUSY_RETRY_MS,
  ) {}

  async interfaces(): Promise<IwInterface[]> {
    return parseIwDev(await runChecked(this.run, ['iw', 'dev']));
  }

  /** Fixed power in mBm (dBm × 100), or the driver's choice. */
  async setTxPower(ifname: string, dBm: number | 'auto'): Promise<void> {
    const argv = ['iw', 'dev', checkedIfname(ifname), 'set', 'txpower'];
    if (dBm === 'auto') argv.push('auto');
    else {
      if (!Number.isInteger(dBm) || dBm < 0 || dBm > 40) throw new Error('transmit power out of range');
      argv.push('fixed', String(dBm * 100));
    }
    await runChecked(this.run, argv);
  }

  /** WDS on a station interface (the CPE receiver bridges the base station's LAN). */
  async setFourAddress(ifname: string, on: boolean): Promise<void> {
    await runChecked(this.run, ['iw', 'dev', checkedIfname(ifname), 'set', '4addr', on ? 'on' : 'off']);
  }

  /** Scans from an interface, an access point's too (`ap-force`), on the given frequencies or all. */
  async scan(ifname: string, options: { freqs?: readonly number[]; active: boolean }): Promise<ScanEntry[]> {
    const argv = ['iw', 'dev', checkedIfname(ifname), 'scan'];
    if (options.freqs && options.freqs.length > 0) argv.push('freq', ...options.freqs.map((f) => String(Math.trunc(f))));
    argv.push('ap-force');
    if (!options.active) argv.push('passive');
    for (let attempt = 1; ; attempt += 1) {
      try {
        return parseIwScan(await runChecked(this.run, argv));
      } catch (error) {
        // nl80211 answers EBUSY while the radio scans for someone else; that ends by itself.
        const busy = error instanceof CommandFailure && /\(-16\)/.test(error.output.stderr);
        if (!busy || attempt >= SCAN_BUSY_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.busyRetryMs));
      }
    }
  }
}
