import type { DeviceState, ScanEntry, UcentralLink } from '@portico/schema';
import type { PreparedConfig } from './wireless-controller-config.js';
import type { WirelessDeviceRecord } from './wireless-device-store.js';

/** One associated station, flattened for the station lists. */
export interface WirelessStation {
  serial: string;
  ssid: string;
  bssid: string;
  band: '2G' | '5G' | null;
  mac: string;
  /** null on a wired port. */
  rssi: number | null;
  /** Last rates the AP reported, kbit/s as the state document gives them. */
  rxRate: number | null;
  txRate: number | null;
  rxBytes: number;
  txBytes: number;
  /** Seconds since it associated. */
  connectedSeconds: number;
  hostname: string | null;
}

export interface WirelessRadioLive {
  band: '2G' | '5G' | null;
  channel: number;
  channelWidth: number | null;
  txPower: number | null;
  noise: number | null;
}

export interface WirelessSsidLive {
  ssid: string;
  bssid: string;
  band: '2G' | '5G' | null;
  mode: 'ap' | 'wds-ap' | 'wds-sta';
  stations: number;
}

/** What the controller knows of a connected device right now. */
export interface WirelessDeviceLive {
  serial: string;
  online: boolean;
  adopted: boolean;
  address: string;
  /** The gateway's address the device reached it on, when the transport knows it. */
  gatewayAddress: string | null;
  firmware: string;
  /** Bands its radios can use (connect capabilities); empty when it did not say. */
  bands: readonly string[];
  connectedAt: number;
  lastMessageAt: number;
  /** Configuration id the device last said it runs. */
  uuid: number;
  /** A configuration the device holds but has not activated yet (cfgpending). */
  pendingUuid: number | null;
  /** 0-100 from the last healthcheck. */
  sanity: number | null;
  healthAt: number | null;
  load: readonly number[];
  memoryTotal: number | null;
  memoryFree: number | null;
  /** Uptime in seconds as of stateAt. */
  uptime: number | null;
  stateAt: number | null;
  radios: readonly WirelessRadioLive[];
  ssids: readonly WirelessSsidLive[];
  stationCount: number;
  lastScan: { at: number; entries: readonly ScanEntry[] } | null;
}

/** A request sent to the device that awaits its answer. */
export interface PendingRequest {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: unknown;
}

const NO_RADIOS: readonly WirelessRadioLive[] = [];
const NO_SSIDS: readonly WirelessSsidLive[] = [];
const NO_LOAD: readonly number[] = [];
const NO_FIGURES: readonly number[] = [];
const NO_HOSTNAMES: readonly (string | null)[] = [];

/**
 * A station is held as STATION_FIELDS numbers in one flat array per session (V8 stores an array
 * of numbers as unboxed doubles, 8 bytes each) rather than as an object with a MAC string: 64
 * bytes against about 160 (a 12-field object and a 17-character string, 64-bit V8 without
 * pointer compression), for 200,000 stations at 10,000 APs. Its SSID, BSSID and band are its
 * SSID's (by index); null figures are NaN. Rows are made only when they are read.
 */
const STATION_FIELDS = 8;
const F_MAC = 0;
const F_SSID = 1;
const F_RSSI = 2;
const F_RX_RATE = 3;
const F_TX_RATE = 4;
const F_RX_BYTES = 5;
const F_TX_BYTES = 6;
const F_CONNECTED = 7;

/** A MAC as reportMacField leaves it (`aa:bb:cc:dd:ee:ff`, lower case) as its 48-bit value; no string is made. */
function macValue(mac: string): number {
  let value = 0;
  for (let i = 0; i < 17; i++) {
    if (i % 3 === 2) continue;
    const code = mac.charCodeAt(i);
    value = value * 16 + (code <= 57 ? code - 48 : code - 87);
  }
  return value;
}

function macText(value: number): string {
  const hex = value.toString(16).padStart(12, '0');
  return `${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}:${hex.slice(6, 8)}:${hex.slice(8, 10)}:${hex.slice(10, 12)}`;
}

const orNull = (value: number): number | null => (Number.isNaN(value) ? null : value);

/**
 * One connection of one device. Kept small: 10,000 are held at once. The state document is
 * not kept as parsed: only the figures the console shows, in fixed-shape objects whose strings
 * (serial, SSID, BSSID) are shared by the station rows.
 */
export class DeviceSession {
  /** Set once its `connect` arrived (then the session is the serial's current one). */
  connected = false;
  adopted = false;
  closed = false;
  firmware = '';
  /** Bands the device's radios can use, from its connect capabilities. */
  bands: readonly string[] = [];
  connectedAt = 0;
  lastMessageAt: number;
  /** lastMessageAt when the last seen time was last written to the store. */
  seenWritten = 0;
  reportedUuid = 0;
  /** Last reported uuid written to the store as applied. */
  appliedWritten = -1;
  pendingUuid: number | null = null;
  desired: PreparedConfig | null = null;
  desiredUuid = 0;
  desiredDigest: string | null = null;
  /** A configure for this uuid went out on this connection (not sent again on it). */
  sentUuid = 0;
  /** The device refused this uuid (not sent again until the configuration changes). */
  refusedUuid = 0;
  stateIntervalMs: number;
  sanity: number | null = null;
  healthAt: number | null = null;
  load: readonly number[] = NO_LOAD;
  memoryTotal: number | null = null;
  memoryFree: number | null = null;
  uptime: number | null = null;
  stateAt: number | null = null;
  radios: readonly WirelessRadioLive[] = NO_RADIOS;
  ssids: readonly WirelessSsidLive[] = NO_SSIDS;
  /** The stations, STATION_FIELDS numbers each (see above). */
  private stationFigures: number[] = NO_FIGURES as number[];
  /** Their host names, by station; empty when none has one. */
  private hostnames: (string | null)[] = NO_HOSTNAMES as (string | null)[];
  lastScan: { at: number; entries: readonly ScanEntry[] } | null = null;
  /** Methods whose invalid reports were logged once already (bit per method). */
  invalidLogged = 0;
  pending: Map<number, PendingRequest> | null = null;

  constructor(
    readonly serial: string,
    readonly link: UcentralLink,
    at: number,
    stateIntervalMs: number,
  ) {
    this.lastMessageAt = at;
    this.stateIntervalMs = stateIntervalMs;
  }

  /** The configuration versions the store holds for the device (at connect, at adoption). */
  loadConfigState(record: Pick<WirelessDeviceRecord, 'desiredUuid' | 'desiredDigest' | 'configOutcome' | 'outcomeUuid'>): void {
    this.desiredUuid = record.desiredUuid;
    this.desiredDigest = record.desiredDigest;
    this.refusedUuid = record.configOutcome === 'rejected' ? (record.outcomeUuid ?? 0) : 0;
  }

  /** Replaces the live figures with those of a state report. */
  applyState(state: DeviceState, at: number): void {
    const unit = state.unit;
    this.load = unit.load.length > 0 ? unit.load : NO_LOAD;
    this.memoryTotal = unit.memory?.total ?? null;
    this.memoryFree = unit.memory?.free ?? null;
    this.uptime = unit.uptime;
    this.stateAt = at;
    this.radios = state.radios.map((r) => ({
      band: r.band ?? null,
      channel: r.channel,
      channelWidth: r.channel_width ?? null,
      txPower: r.tx_power ?? null,
      noise: r.noise ?? null,
    }));
    const ssids: WirelessSsidLive[] = [];
    let count = 0;
    for (const iface of state.interfaces) for (const s of iface.ssids) count += s.associations.length;
    // Sized once: an array grown by push keeps up to half its length again as spare room. A
    // report with as many stations as the last overwrites the last's figures and host names in
    // place (both private, read only by stations()): an AP's stations change slowly, and arrays
    // made anew each report would leave 10,000 old ones a round for the old generation's collector.
    const same = count * STATION_FIELDS === this.stationFigures.length;
    const figures = count === 0 ? null : same ? this.stationFigures : new Array<number>(count * STATION_FIELDS);
    const previousNames = same ? this.hostnames : NO_HOSTNAMES;
    let hostnames: (string | null)[] | null = previousNames.length > 0 ? (previousNames as (string | null)[]) : null;
    let next = 0;
    for (const iface of state.interfaces) {
      for (const s of iface.ssids) {
        const index = ssids.length;
        ssids.push({ ssid: s.ssid, bssid: s.bssid, band: s.band ?? null, mode: s.mode, stations: s.associations.length });
        for (const a of s.associations) {
          const name = a.hostname ?? null;
          if (name !== null) hostnames ??= new Array<string | null>(count).fill(null);
          // An unchanged name keeps the string held already; the report's copy dies young.
          if (hostnames && hostnames[next / STATION_FIELDS] !== name) hostnames[next / STATION_FIELDS] = name;
          figures![next + F_MAC] = macValue(a.station);
          figures![next + F_SSID] = index;
          figures![next + F_RSSI] = a.rssi ?? Number.NaN;
          figures![next + F_RX_RATE] = a.rx_rate?.bitrate ?? Number.NaN;
          figures![next + F_TX_RATE] = a.tx_rate?.bitrate ?? Number.NaN;
          figures![next + F_RX_BYTES] = a.rx_bytes;
          figures![next + F_TX_BYTES] = a.tx_bytes;
          figures![next + F_CONNECTED] = a.connected;
          next += STATION_FIELDS;
        }
      }
    }
    this.ssids = ssids;
    this.stationFigures = figures ?? (NO_FIGURES as number[]);
    this.hostnames = hostnames && hostnames.some((name) => name !== null) ? hostnames : (NO_HOSTNAMES as (string | null)[]);
  }

  get stationCount(): number {
    return this.stationFigures.length / STATION_FIELDS;
  }

  /** The stations as rows (made now: they are not held so). */
  stationRows(): WirelessStation[] {
    const figures = this.stationFigures;
    const rows: WirelessStation[] = [];
    for (let at = 0, n = 0; at < figures.length; at += STATION_FIELDS, n++) {
      const ssid = this.ssids[figures[at + F_SSID]!]!;
      rows.push({
        serial: this.serial,
        ssid: ssid.ssid,
        bssid: ssid.bssid,
        band: ssid.band,
        mac: macText(figures[at + F_MAC]!),
        rssi: orNull(figures[at + F_RSSI]!),
        rxRate: orNull(figures[at + F_RX_RATE]!),
        txRate: orNull(figures[at + F_TX_RATE]!),
        rxBytes: figures[at + F_RX_BYTES]!,
        txBytes: figures[at + F_TX_BYTES]!,
        connectedSeconds: figures[at + F_CONNECTED]!,
        hostname: this.hostnames[n] ?? null,
      });
    }
    return rows;
  }

  /** Seconds the device has been up, at least: reported uptime aged, or the connection's age. */
  uptimeAt(now: number): number {
    const connection = (now - this.connectedAt) / 1000;
    if (this.uptime === null || this.stateAt === null) return connection;
    return Math.max(connection, this.uptime + (now - this.stateAt) / 1000);
  }

  view(): WirelessDeviceLive {
    return {
      serial: this.serial,
      online: !this.closed,
      adopted: this.adopted,
      address: this.link.remoteAddress,
      gatewayAddress: this.link.localAddress ?? null,
      firmware: this.firmware,
      bands: this.bands,
      connectedAt: this.connectedAt,
      lastMessageAt: this.lastMessageAt,
      uuid: this.reportedUuid,
      pendingUuid: this.pendingUuid,
      sanity: this.sanity,
      healthAt: this.healthAt,
      load: this.load,
      memoryTotal: this.memoryTotal,
      memoryFree: this.memoryFree,
      uptime: this.uptime,
      stateAt: this.stateAt,
      radios: this.radios,
      ssids: this.ssids,
      stationCount: this.stationCount,
      lastScan: this.lastScan,
    };
  }
}
