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
const NO_STATIONS: readonly WirelessStation[] = [];
const NO_LOAD: readonly number[] = [];

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
  stations: readonly WirelessStation[] = NO_STATIONS;
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
    const stations: WirelessStation[] = [];
    for (const iface of state.interfaces) {
      for (const s of iface.ssids) {
        const band = s.band ?? null;
        ssids.push({ ssid: s.ssid, bssid: s.bssid, band, mode: s.mode, stations: s.associations.length });
        for (const a of s.associations) {
          stations.push({
            serial: this.serial,
            ssid: s.ssid,
            bssid: s.bssid,
            band,
            mac: a.station,
            rssi: a.rssi ?? null,
            rxRate: a.rx_rate?.bitrate ?? null,
            txRate: a.tx_rate?.bitrate ?? null,
            rxBytes: a.rx_bytes,
            txBytes: a.tx_bytes,
            connectedSeconds: a.connected,
            hostname: a.hostname ?? null,
          });
        }
      }
    }
    this.ssids = ssids;
    this.stations = stations.length > 0 ? stations : NO_STATIONS;
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
      stationCount: this.stations.length,
      lastScan: this.lastScan,
    };
  }
}
