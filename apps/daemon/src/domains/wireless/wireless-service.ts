import { isIP } from 'node:net';
import {
  DEVICE_HEALTH_NORMAL_MIN,
  GATEWAY_NODE_ID,
  type CommandRefusal,
  type DeviceCommandBody,
  type DeviceCommandResult,
  type DeviceKind,
  type DeviceList,
  type DeviceListQuery,
  type DeviceRow,
  type FirmwareView,
  type PlanningView,
  type StationList,
  type StationRow,
  type Topology,
  type WirelessSummary,
  isSafeText,
} from '@portico/schema';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand, type CommandRunner } from '../../engine/command-runner.js';
import type { AppContext } from '../../app-context.js';
import type { RuntimeService } from '../../config/domain-module.js';
import { WirelessController, WirelessCommandError, type WirelessCommandErrorCode } from './controller/wireless-controller.js';
import type { WirelessConfigBody } from './controller/wireless-controller-config.js';
import type { WirelessLogEntry } from './controller/wireless-controller-log.js';
import { WirelessDeviceStore, type WirelessDeviceRecord } from './controller/wireless-device-store.js';
import type { WirelessDeviceLive } from './controller/wireless-device-session.js';
import { WirelessChannelOverrides } from './wireless-channel-overrides.js';
import { planChannels, type ChannelPlan, type PlanAp, type PlanRadio, type PlanWidth, type ScanNeighbour } from './wireless-channel-planner.js';
import { createChannelPlanning, type ChannelPlanning } from './wireless-channel-planning.js';
import { apDeviceConfig, cpeDeviceConfig } from './wireless-device-config.js';
import { readWirelessRows, wirelessRowsVersion, type WirelessRows } from './wireless-rows.js';
import { WirelessFirmwareStore, FirmwareRefused } from './wireless-firmware.js';
import { WirelessDevicePki, WirelessPkiError } from './controller/wireless-device-pki.js';
import { startDeviceListener, type DeviceListener, type DeviceRefusal } from './wireless-device-listener.js';
import { createFirmwareRollout, type FirmwareRollout, type RolloutOptions } from './wireless-firmware-rollout.js';

/** A test's replacements: rollout timings (soak, return deadline, retries). */
export interface WirelessDeps {
  rolloutTiming?: Pick<RolloutOptions, 'soakMs' | 'returnDeadlineMs' | 'retry'>;
  /** Runs OpenSSL for the device CA. */
  run?: CommandRunner;
}

/** A device certificate as the administrator downloads it for an AP. */
export interface DeviceCertificateBundle {
  serial: string;
  /** PEM EC P-256 private key: /etc/portico-agent/key.pem on the AP. */
  key: string;
  /** PEM client certificate (CN = serial): cert.pem. */
  certificate: string;
  /** PEM device CA: ca.pem, which the AP checks the controller's certificate against. */
  ca: string;
}

/** The topology pages draw at most this many devices. */
const TOPOLOGY_MAX = 1000;
/** The status page lists this many of the busiest devices. */
const BUSIEST = 10;
/** Wireless log entries kept in memory for the wireless log (newest last). */
/** How often a device's connection may make the controller look at its names again. */
const NAMES_CHECK_MS = 2000;
const LOG_KEEP = 2000;
/** How often a running rollout reads the upgraded APs' health. */
const ROLLOUT_HEALTH_MS = 10_000;

const REFUSAL_OF: Record<WirelessCommandErrorCode, CommandRefusal> = {
  notFound: 'unknownDevice',
  notAdopted: 'notAdopted',
  offline: 'offline',
  timeout: 'timeout',
  refused: 'refused',
  badParams: 'refused',
  badResult: 'badResult',
  recentlyBooted: 'uptimeUnderHour',
};

function refusalOf(error: unknown): CommandRefusal {
  if (error instanceof WirelessCommandError) return REFUSAL_OF[error.code];
  throw error;
}

function bandOf(channel: number): '2g' | '5g' {
  return channel <= 14 ? '2g' : '5g';
}

/** The band a radio reports, or the one its channel lies in when it does not say. */
function radioBand(radio: { band: '2G' | '5G' | null; channel: number }): '2G' | '5G' {
  return radio.band ?? (bandOf(radio.channel) === '2g' ? '2G' : '5G');
}

function planWidth(width: number | null): PlanWidth {
  return width === 40 || width === 80 ? width : 20;
}

/**
 * The wireless controller as the daemon runs it: the device store, the protocol controller
 * fed with configurations built from the console's rows, channel planning and the views the
 * routes answer with.
 */
export class WirelessService implements RuntimeService {
  readonly store: WirelessDeviceStore;
  readonly controller: WirelessController;
  readonly overrides: WirelessChannelOverrides;
  readonly planning: ChannelPlanning<ChannelPlan>;
  readonly firmware: WirelessFirmwareStore;
  private rollout: { run: FirmwareRollout; model: string; version: string; health: ReturnType<typeof setInterval> } | null = null;
  readonly log: WirelessLogEntry[] = [];
  private cache = new Map<string, WirelessConfigBody>();
  private cacheVersion = '';
  private pushQueued = false;
  private stopped = false;
  /** The device CA and the controller's TLS certificate (stateDir/wireless-pki, 0700). */
  readonly pki: WirelessDevicePki;
  private devices: DeviceListener | null = null;
  private listening: Promise<unknown> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly report: (error: unknown) => void,
    private readonly deps: WirelessDeps = {},
  ) {
    this.store = new WirelessDeviceStore(ctx.db);
    this.overrides = new WirelessChannelOverrides(ctx.db);
    this.controller = new WirelessController({
      store: this.store,
      now: ctx.now,
      configFor: (serial) => this.configFor(serial),
      onLog: (entry) => {
        this.log.push(entry);
        if (this.log.length > LOG_KEEP) this.log.splice(0, this.log.length - LOG_KEEP);
      },
      onError: report,
      onChange: (serial) => this.deviceChanged(serial),
    });
    this.pki = new WirelessDevicePki(join(ctx.settings.stateDir, 'wireless-pki'), deps.run ?? runCommand);
    this.firmware = new WirelessFirmwareStore(ctx.db, join(ctx.settings.stateDir, 'wireless-firmware'), ctx.now);
    this.planning = createChannelPlanning<PlanAp, ChannelPlan>({
      now: ctx.now,
      // A fresh state report first: the plan starts from the channels the radios run now. The
      // last periodic report may predate a restart (a radio still choosing its channel is left
      // out of a report), and an AP without its radios in the live view would not be planned.
      // The report follows the request's answer on the same link, ahead of the scan's result.
      requestScan: async (serial) => {
        await this.controller.requestState(serial).catch(() => undefined);
        // Only the bands the plan is for: a scan of every channel of both bands takes longest.
        const bands = this.plannedBands(serial);
        return this.planAp(serial, await this.controller.scan(serial, bands.length > 0 ? { bands } : {}));
      },
      plan: (scans) => planChannels([...scans.values()]),
      applyPlan: async (plan) => {
        this.overrides.save(plan.aps.map((ap) => ({ serial: ap.id, radios: ap.radios.map((r) => ({ band: r.band as '2g' | '5g', channel: r.channel, width: r.width })) })));
        await this.controller.pushConfig(plan.aps.map((ap) => ap.id));
      },
    });
  }

  /** The configuration a device runs: its group (AP) or profile (CPE) as the rows say now. */
  configFor(serial: string): WirelessConfigBody | null {
    const record = this.store.get(serial);
    if (!record || record.status !== 'adopted' || !record.groupId) return null;
    const rows = this.currentRows();
    const version = `${this.rowsVersion}:${this.overrides.version}`;
    if (version !== this.cacheVersion) {
      // New objects for a new version: the controller serialises each object once.
      this.cache = new Map();
      this.cacheVersion = version;
    }
    const planned = record.kind === 'ap' ? this.overrides.of(serial) : [];
    const key = `${record.kind}:${record.groupId}:${JSON.stringify(planned)}`;
    let config = this.cache.get(key);
    if (!config) {
      const built = this.build(rows, record, planned);
      if (!built) return null;
      const { uuid: _uuid, ...body } = built;
      config = body;
      this.cache.set(key, config);
    }
    return config;
  }

  private rows: WirelessRows | null = null;
  private rowsVersion = '';

  /** The console's wireless rows, read again only when one of them changed. */
  private currentRows(): WirelessRows {
    const version = wirelessRowsVersion(this.ctx.db);
    if (!this.rows || version !== this.rowsVersion) {
      this.rows = readWirelessRows(this.ctx.db);
      this.rowsVersion = version;
    }
    return this.rows;
  }

  private build(rows: WirelessRows, record: WirelessDeviceRecord, planned: ReturnType<WirelessChannelOverrides['of']>) {
    if (record.kind === 'cpe') {
      const profile = rows.profiles.get(record.groupId!);
      return profile ? cpeDeviceConfig(profile) : null;
    }
    const group = rows.groups.get(record.groupId!);
    return group ? apDeviceConfig(group, rows.ssids, rows.filters, undefined, planned) : null;
  }

  /** The name of a group (APs) or profile (CPEs). */
  private groupName(groupId: string | null): string | null {
    if (!groupId) return null;
    const rows = this.currentRows();
    return rows.groups.get(groupId)?.name ?? rows.profiles.get(groupId)?.name ?? null;
  }

  /** Every adopted device bound to one of the groups or profiles. */
  devicesIn(groupIds: readonly string[]): string[] {
    return groupIds.flatMap((id) => this.store.serialsInGroup(id));
  }

  /** A wireless row changed: every device whose configuration changed gets it, once per turn. */
  rowsChanged(): void {
    if (this.pushQueued || this.stopped) return;
    this.pushQueued = true;
    setImmediate(() => {
      this.pushQueued = false;
      if (this.stopped) return;
      const rows = this.currentRows();
      const serials = this.devicesIn([...rows.groups.keys(), ...rows.profiles.keys()]);
      this.controller.pushConfig(serials).catch(this.report);
    });
  }

  deviceRow(record: WirelessDeviceRecord): DeviceRow {
    const live = this.controller.live(record.serial);
    const pending = live?.pendingUuid != null || (record.status === 'adopted' && record.desiredUuid !== 0 && record.appliedUuid !== record.desiredUuid && !(record.outcomeUuid === record.desiredUuid && record.configOutcome === 'rejected'));
    return {
      serial: record.serial,
      name: record.name,
      kind: record.kind,
      model: record.model,
      firmware: live?.firmware || record.firmware,
      status: record.status,
      group: record.groupId,
      groupName: this.groupName(record.groupId),
      online: live?.online ?? false,
      sanity: live?.sanity ?? null,
      address: live?.address || record.lastAddress,
      lastSeen: live?.online ? this.ctx.now() : record.lastSeen,
      uptime: live?.uptime ?? null,
      stations: live?.stationCount ?? 0,
      radios: (live?.radios ?? []).map((r) => ({ band: radioBand(r), channel: r.channel, width: r.channelWidth, txPower: r.txPower })),
      configOutcome: record.configOutcome,
      configPending: pending,
      configReasons: record.configReasons.map((r) => r.reason),
    };
  }

  list(query: DeviceListQuery): DeviceList {
    const page = this.store.page({
      offset: (query.page - 1) * query.page_size,
      limit: query.page_size,
      sort: query.sort,
      order: query.order,
      search: query.q,
      kind: query.kind,
      ...(query.status === 'all' ? {} : { status: query.status }),
    });
    const total = (status: 'pending' | 'adopted' | 'revoked') => this.store.page({ offset: 0, limit: 1, kind: query.kind, status }).total;
    const online = this.controller.onlineSerials().filter((serial) => this.store.get(serial)?.kind === query.kind).length;
    return {
      items: page.rows.map((record) => this.deviceRow(record)),
      total: page.total,
      counts: { pending: total('pending'), adopted: total('adopted'), revoked: total('revoked'), online },
    };
  }

  detail(serial: string): (DeviceRow & { reasons: WirelessDeviceRecord['configReasons'] }) | null {
    const record = this.store.get(serial);
    if (!record) return null;
    return { ...this.deviceRow(record), reasons: record.configReasons };
  }

  private onlineOf(kind: DeviceKind): Array<{ record: WirelessDeviceRecord; live: WirelessDeviceLive }> {
    const out: Array<{ record: WirelessDeviceRecord; live: WirelessDeviceLive }> = [];
    for (const serial of this.controller.onlineSerials()) {
      const record = this.store.get(serial);
      const live = this.controller.live(serial);
      if (record?.kind === kind && live) out.push({ record, live });
    }
    return out;
  }

  stations(kind: DeviceKind, serial: string, q: string, page: number, pageSize: number): StationList {
    const names = new Map(this.onlineOf(kind).map(({ record }) => [record.serial, record.name]));
    const needle = q.trim().toLowerCase();
    const rows: StationRow[] = [];
    for (const station of serial ? this.controller.stationsOf(serial) : this.controller.stations()) {
      if (!names.has(station.serial)) continue;
      const row: StationRow = {
        serial: station.serial,
        device: names.get(station.serial) ?? '',
        ssid: station.ssid,
        bssid: station.bssid,
        band: station.band,
        mac: station.mac,
        hostname: station.hostname ?? '',
        rssi: station.rssi,
        rxRate: station.rxRate,
        txRate: station.txRate,
        rxBytes: station.rxBytes,
        txBytes: station.txBytes,
        connected: station.connectedSeconds,
      };
      if (needle && ![row.mac, row.hostname, row.ssid, row.device, row.serial].some((text) => text.toLowerCase().includes(needle))) continue;
      rows.push(row);
    }
    rows.sort((a, b) => a.device.localeCompare(b.device) || a.mac.localeCompare(b.mac));
    return { items: rows.slice((page - 1) * pageSize, page * pageSize), total: rows.length };
  }

  summary(): WirelessSummary {
    const online = this.onlineOf('ap');
    const all = this.store.page({ offset: 0, limit: 1, kind: 'ap', status: 'adopted' }).total;
    const pending = this.store.page({ offset: 0, limit: 1, kind: 'ap', status: 'pending' }).total;
    const channels = new Map<string, { band: '2G' | '5G'; channel: number; devices: number; stations: number }>();
    let band2g = 0;
    let band5g = 0;
    for (const { live } of online) {
      for (const radio of live.radios) {
        const band = radioBand(radio);
        const key = `${band}-${radio.channel}`;
        const entry = channels.get(key) ?? { band, channel: radio.channel, devices: 0, stations: 0 };
        entry.devices++;
        channels.set(key, entry);
      }
      // A station's band is its SSID's: counted per SSID, no station row is made.
      for (const ssid of live.ssids) {
        const band = ssid.band;
        if (band === '2G') band2g += ssid.stations;
        else if (band === '5G') band5g += ssid.stations;
        const radio = live.radios.find((r) => radioBand(r) === band);
        if (radio) channels.get(`${band}-${radio.channel}`)!.stations += ssid.stations;
      }
    }
    const adoptedOnline = online.filter(({ record }) => record.status === 'adopted');
    return {
      devices: {
        total: all,
        online: adoptedOnline.length,
        offline: Math.max(0, all - adoptedOnline.length),
        pending,
        abnormal: adoptedOnline.filter(({ live }) => live.sanity !== null && live.sanity < DEVICE_HEALTH_NORMAL_MIN).length,
      },
      stations: { total: online.reduce((n, { live }) => n + live.stationCount, 0), band2g, band5g },
      channels: [...channels.values()].sort((a, b) => a.band.localeCompare(b.band) || a.channel - b.channel),
      busiest: adoptedOnline
        .sort((a, b) => b.live.stationCount - a.live.stationCount)
        .slice(0, BUSIEST)
        .map(({ record, live }) => ({ serial: record.serial, name: record.name, stations: live.stationCount })),
    };
  }

  topology(kind: DeviceKind): Topology {
    const page = this.store.page({ offset: 0, limit: TOPOLOGY_MAX, kind, status: 'adopted' });
    const nodes: Topology['nodes'] = [{ id: GATEWAY_NODE_ID, kind: 'gateway', name: '', online: true, role: null, stations: 0 }];
    const links: Topology['links'] = [];
    const byBssid = new Map<string, string>();
    const roles = new Map<string, 'base' | 'receiver' | null>();
    for (const record of page.rows) {
      const live = this.controller.live(record.serial);
      const modes = new Set((live?.ssids ?? []).map((s) => s.mode));
      const role = kind === 'cpe' ? (modes.has('wds-sta') ? 'receiver' : modes.has('wds-ap') ? 'base' : null) : null;
      roles.set(record.serial, role);
      for (const ssid of live?.ssids ?? []) byBssid.set(ssid.bssid, record.serial);
      nodes.push({ id: record.serial, kind, name: record.name, online: live?.online ?? false, role, stations: live?.stationCount ?? 0 });
    }
    const linked = new Set<string>();
    if (kind === 'cpe') {
      // A base's stations include its receivers: their link interface is the receiver's BSS.
      for (const record of page.rows) {
        if (roles.get(record.serial) !== 'base') continue;
        for (const station of this.controller.stationsOf(record.serial)) {
          const receiver = byBssid.get(station.mac);
          if (!receiver || receiver === record.serial || linked.has(receiver)) continue;
          links.push({ from: record.serial, to: receiver, medium: 'wireless', signal: station.rssi });
          linked.add(receiver);
        }
      }
    }
    for (const record of page.rows) {
      if (linked.has(record.serial) || roles.get(record.serial) === 'receiver') continue;
      links.push({ from: GATEWAY_NODE_ID, to: record.serial, medium: 'wired', signal: null });
    }
    return { nodes, links };
  }

  /** The bands whose channel the AP's group leaves to the planner, as wifiscan names them. */
  private plannedBands(serial: string): Array<'2' | '5'> {
    const record = this.store.get(serial);
    const group = record?.groupId ? this.currentRows().groups.get(record.groupId) : undefined;
    if (!group) return [];
    const bands: Array<'2' | '5'> = [];
    if (group.enabled2g && group.channel2g === 'auto') bands.push('2');
    if (group.enabled5g && group.channel5g === 'auto') bands.push('5');
    return bands;
  }

  /** What the planner needs of one AP: its radios on `auto` channels and the scan it sent. */
  private planAp(serial: string, scan: readonly { bssid: string; channel: number; width: number; signal: number }[]): PlanAp {
    const record = this.store.get(serial);
    const live = this.controller.live(serial);
    const group = record?.groupId ? this.currentRows().groups.get(record.groupId) : undefined;
    if (!record || !live || !group) throw new WirelessCommandError('notAdopted');
    const radios: PlanRadio[] = [];
    for (const radio of live.radios) {
      const band = radioBand(radio) === '2G' ? '2g' : '5g';
      if ((band === '2g' ? group.channel2g : group.channel5g) !== 'auto') continue;
      radios.push({
        band,
        bssids: live.ssids.filter((s) => (s.band === '2G' ? '2g' : s.band === '5G' ? '5g' : band) === band).map((s) => s.bssid),
        channel: radio.channel,
        width: planWidth(radio.channelWidth),
        dfsAllowed: band === '5g' && group.allowDfs,
        txPowerDbm: Math.min(30, Math.max(1, radio.txPower ?? 20)),
      });
    }
    const neighbours: Record<string, ScanNeighbour[]> = { '2g': [], '5g': [] };
    for (const entry of scan) neighbours[bandOf(entry.channel)]!.push({ bssid: entry.bssid, channel: entry.channel, width: entry.width, signalDbm: entry.signal });
    return { id: serial, country: group.country, radios, scan: neighbours };
  }

  /** Every adopted device of a kind, a page at a time (the store pages at most 500). */
  private adopted(kind: DeviceKind): WirelessDeviceRecord[] {
    const out: WirelessDeviceRecord[] = [];
    for (;;) {
      const page = this.store.page({ offset: out.length, limit: 500, kind, status: 'adopted', sort: 'serial' });
      out.push(...page.rows);
      if (page.rows.length === 0 || out.length >= page.total) return out;
    }
  }

  startPlanning() {
    return this.planning.start(this.adopted('ap').map((record) => ({ id: record.serial, online: this.controller.isOnline(record.serial) })));
  }

  planningView(): PlanningView {
    const snapshot = this.planning.snapshot();
    const name = (serial: string) => this.store.get(serial)?.name ?? '';
    return {
      state: snapshot.state,
      progress: snapshot.progress,
      failed: snapshot.failedApIds.map((serial) => ({ serial, name: name(serial) })),
      offline: snapshot.offlineApIds.length,
      startedAt: snapshot.startedAt,
      finishedAt: snapshot.finishedAt,
      error: snapshot.error ? (snapshot.error.detail ?? snapshot.error.code) : null,
      plan: snapshot.plan && {
        scoreBefore: snapshot.plan.scoreBefore,
        scoreAfter: snapshot.plan.scoreAfter,
        aps: snapshot.plan.aps.map((ap) => ({
          serial: ap.id,
          name: name(ap.id),
          radios: ap.radios.map((r) => ({ band: r.band as '2g' | '5g', channel: r.channel, width: r.width, previousChannel: r.previousChannel, previousWidth: r.previousWidth })),
        })),
      },
    };
  }

  /** Runs a command on each device; what was done and, per device, why not. */
  async command(kind: DeviceKind, body: DeviceCommandBody): Promise<DeviceCommandResult> {
    const done: string[] = [];
    const refused: DeviceCommandResult['refused'] = [];
    const rows = this.currentRows();
    const targets = body.serials.filter((serial) => {
      const record = this.store.get(serial);
      if (record?.kind === kind) return true;
      refused.push({ serial, reason: 'unknownDevice' });
      return false;
    });
    const one = async (serial: string, action: () => unknown) => {
      try {
        const ok = await action();
        if (ok === false) refused.push({ serial, reason: 'unknownDevice' });
        else done.push(serial);
      } catch (error) {
        refused.push({ serial, reason: refusalOf(error) });
      }
    };
    switch (body.action) {
      case 'adopt':
      case 'bind': {
        const group = body.group ?? '';
        const profile = rows.profiles.get(group);
        if (kind === 'ap' ? !rows.groups.has(group) : !profile) {
          for (const serial of targets) refused.push({ serial, reason: 'unknownGroup' });
          break;
        }
        // Spec §5: CPEs of another band cannot take this profile with the others.
        const fits = (serial: string) => {
          if (!profile) return true;
          const live = this.controller.live(serial);
          const bands = live?.bands.length ? live.bands : (live?.radios ?? []).map(radioBand);
          return bands.length === 0 || bands.includes(profile.band === '2g' ? '2G' : '5G');
        };
        for (const serial of targets) {
          if (!fits(serial)) refused.push({ serial, reason: 'mixedRadios' });
          else await one(serial, () => (body.action === 'adopt' ? this.controller.adopt(serial, group) : this.controller.bind(serial, group)));
        }
        break;
      }
      case 'rename': {
        const name = (body.name ?? '').trim();
        if (!name || !isSafeText(name) || [...name].length > 32) {
          for (const serial of targets) refused.push({ serial, reason: 'refused' });
          break;
        }
        for (const serial of targets) await one(serial, () => this.controller.rename(serial, name));
        break;
      }
      case 'forget':
        for (const serial of targets) {
          await one(serial, () => {
            this.overrides.forget(serial);
            return this.controller.forget(serial);
          });
        }
        break;
      case 'revoke':
        for (const serial of targets) await one(serial, () => this.controller.revoke(serial));
        break;
      case 'push': {
        const adopted = targets.filter((serial) => this.store.get(serial)?.status === 'adopted');
        for (const serial of targets) if (!adopted.includes(serial)) refused.push({ serial, reason: 'notAdopted' });
        await this.controller.pushConfig(adopted);
        done.push(...adopted);
        break;
      }
      case 'reboot':
        await Promise.all(targets.map((serial) => one(serial, () => this.controller.reboot(serial))));
        break;
      case 'blink':
        await Promise.all(targets.map((serial) => one(serial, () => this.controller.blink(serial))));
        break;
      case 'scan':
        await Promise.all(targets.map((serial) => one(serial, () => this.controller.scan(serial))));
        break;
    }
    return { done, refused };
  }

  /** A device connected or changed: a rollout waiting for it to come back on its new firmware hears of it. */
  private deviceChanged(serial: string): void {
    const live = this.controller.live(serial);
    if (this.rollout && live?.online) this.rollout.run.apReconnected(serial, live.firmware);
  }

  firmwareView(): FirmwareView {
    const snapshot = this.rollout?.run.snapshot();
    return {
      keys: this.firmware.keys(),
      images: this.firmware.images().map(({ signature: _signature, ...image }) => image),
      rollout:
        snapshot && this.rollout
          ? {
              state: snapshot.state,
              model: this.rollout.model,
              version: this.rollout.version,
              wave: snapshot.waveIndex,
              waves: snapshot.waves.length,
              failures: snapshot.failures,
              haltReason: snapshot.haltReason,
              aps: snapshot.aps.map((ap) => ({ serial: ap.id, name: this.store.get(ap.id)?.name ?? '', status: ap.status, wave: ap.wave, version: ap.version })),
            }
          : null,
    };
  }

  /**
   * Upgrades the given APs to an image in waves (canary first). Each device fetches the image
   * through a link of its own, on the address it reached the controller on, with the scheme
   * of `baseUrl` (the console's, as the administrator reached it) and the port the daemon took
   * that request on (`listenPort`, see deviceBase); a device whose address is not known gets
   * `baseUrl` itself.
   */
  startRollout(
    imageId: string,
    serials: readonly string[],
    options: { canary: number; waves: number[]; soakSeconds?: number; deadlineSeconds?: number },
    baseUrl: string,
    listenPort?: number,
  ): DeviceCommandResult {
    const image = this.firmware.image(imageId);
    if (!image) throw new FirmwareRefused('notFound');
    if (this.rollout && ['pending', 'running'].includes(this.rollout.run.snapshot().state)) throw new FirmwareRefused('inUse');
    const refused: DeviceCommandResult['refused'] = [];
    const aps: Array<{ id: string; version: string }> = [];
    for (const serial of serials) {
      const record = this.store.get(serial);
      if (!record) refused.push({ serial, reason: 'unknownDevice' });
      else if (record.status !== 'adopted') refused.push({ serial, reason: 'notAdopted' });
      else if (record.model !== image.model) refused.push({ serial, reason: 'refused' });
      else aps.push({ id: serial, version: this.controller.live(serial)?.firmware || record.firmware });
    }
    if (aps.length === 0) return { done: [], refused };
    const upgradeTo = (serial: string, target: { sha256: string; signature: string }) =>
      this.controller
        .upgrade(serial, `${deviceBase(baseUrl, this.controller.live(serial)?.gatewayAddress, listenPort)}/api/ac/firmware/image/${target.sha256}?${this.firmware.linkToken(serial, target.sha256)}`, target.signature)
        .then(() => undefined);
    const previous = new Map(aps.map((ap) => [ap.id, ap.version]));
    const run = createFirmwareRollout(
      {
        targetVersion: image.version,
        aps,
        canaryCount: options.canary,
        wavePercents: options.waves,
        ...(options.soakSeconds !== undefined ? { soakMs: options.soakSeconds * 1000 } : {}),
        ...(options.deadlineSeconds !== undefined ? { returnDeadlineMs: options.deadlineSeconds * 1000 } : {}),
        ...this.deps.rolloutTiming,
      },
      {
        upgrade: (serial) => upgradeTo(serial, image),
        // Back to what it ran, when that image is here; otherwise the rollout counts it as failed.
        rollback: async (serial) => {
          const old = this.firmware.imageFor(image.model, previous.get(serial) ?? '');
          if (!old) throw new FirmwareRefused('notFound');
          await upgradeTo(serial, old);
        },
      },
    );
    if (this.rollout) clearInterval(this.rollout.health);
    const health = setInterval(() => {
      for (const ap of run.snapshot().aps) {
        const sanity = this.controller.live(ap.id)?.sanity;
        if (sanity !== null && sanity !== undefined) run.apHealth(ap.id, sanity);
      }
    }, ROLLOUT_HEALTH_MS);
    health.unref();
    this.rollout = { run, model: image.model, version: image.version, health };
    run.start();
    return { done: aps.map((ap) => ap.id), refused };
  }

  cancelRollout(): boolean {
    return this.rollout?.run.cancel() ?? false;
  }

  /**
   * Opens the device listener (TLS WebSocket, mutual TLS with the device CA) on `port`: the CA
   * is created on first use and the controller's server certificate (re)issued when the names
   * devices reach it by changed. With `currentNames`, the names are looked at again when a
   * device connects (at most every few seconds): an address the gateway gained later (a LAN
   * network added) gets a certificate naming it, so devices dialling it get in at their next
   * attempt. Resolves with the port bound.
   */
  listenDevices(options: {
    port: number;
    host: string;
    names: readonly string[];
    currentNames?: () => readonly string[];
    onRefused?: (address: string, reason: DeviceRefusal) => void;
  }): Promise<number> {
    const started = (async () => {
      const authority = await this.pki.ensureAuthority();
      await this.ensureServerCertificate(options.names);
      if (this.stopped) return 0;
      this.devices = await startDeviceListener({
        port: options.port,
        host: options.host,
        key: await readFile(this.pki.serverKeyFile),
        cert: await readFile(this.pki.serverCertFile),
        ca: authority.toString(),
        isRevoked: (serial) => this.store.get(serial)?.status === 'revoked',
        onLink: (link) => this.controller.attach(link),
        onRefused: (address, reason) => {
          options.onRefused?.(address, reason);
        },
        ...(options.currentNames ? { onConnection: () => this.namesMayHaveChanged(options.currentNames!) } : {}),
        onError: this.report,
      });
      if (this.stopped) await this.devices.close();
      return this.devices.port;
    })();
    this.listening = started.catch(() => undefined);
    return started;
  }

  private namesCheckedAt = Number.NEGATIVE_INFINITY;
  private reissuing: Promise<void> | null = null;

  /** On a device's connection: re-issues the server certificate when the gateway's names changed. */
  private namesMayHaveChanged(currentNames: () => readonly string[]): void {
    const now = this.ctx.now();
    if (this.reissuing || now - this.namesCheckedAt < NAMES_CHECK_MS) return;
    this.namesCheckedAt = now;
    this.reissuing = (async () => {
      if (!(await this.ensureServerCertificate(currentNames())) || !this.devices) return;
      this.devices.setCertificate(await readFile(this.pki.serverKeyFile), await readFile(this.pki.serverCertFile));
    })()
      .catch(this.report)
      .finally(() => {
        this.reissuing = null;
      });
  }

  /** Issues the server certificate for `names` unless the one on disk names exactly these; answers whether it did. */
  private async ensureServerCertificate(names: readonly string[]): Promise<boolean> {
    const namesFile = join(this.ctx.settings.stateDir, 'wireless-pki', 'controller.names');
    const wanted = [...new Set(names)].join('\n');
    const issuedFor = await readFile(namesFile, 'utf8').catch(() => null);
    if (issuedFor === wanted && (await readFile(this.pki.serverCertFile).catch(() => null))) return false;
    await this.pki.issueServer([...new Set(names)]);
    await writeFile(namesFile, wanted, { mode: 0o600 });
    return true;
  }

  /** Test hook: the re-issue a connection started, if any. */
  get serverCertificateRefresh(): Promise<void> | null {
    return this.reissuing;
  }

  /** The device listener's port while it is open. */
  get devicePort(): number | null {
    return this.devices?.port ?? null;
  }

  /**
   * A client certificate for the AP with this serial, with its new key and the device CA: what
   * the AP's agent is installed with. Refused for a revoked serial (forget it first).
   */
  async issueDeviceCertificate(serial: string): Promise<DeviceCertificateBundle> {
    if (this.store.get(serial)?.status === 'revoked') throw new WirelessPkiError('revoked');
    const authority = await this.pki.ensureAuthority();
    const issued = await this.pki.issueDevice(serial);
    return { serial, key: issued.key, certificate: issued.certificate, ca: authority.toString() };
  }

  /** The certificate of a device's own request, with the device CA: no key in the answer. */
  async signDeviceRequest(serial: string, csr: string): Promise<Omit<DeviceCertificateBundle, 'key'>> {
    if (this.store.get(serial)?.status === 'revoked') throw new WirelessPkiError('revoked');
    const authority = await this.pki.ensureAuthority();
    const certificate = await this.pki.signDevice(serial, csr);
    return { serial, certificate, ca: authority.toString() };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listening;
    await this.devices?.close();
    this.devices = null;
    if (this.rollout) {
      clearInterval(this.rollout.health);
      this.rollout.run.cancel();
    }
    this.planning.cancel();
    this.controller.stop();
  }
}

/**
 * `baseUrl` with its host replaced by the gateway address a device reached it on, and its port
 * by `listenPort` when given: the port the daemon itself accepted the console's request on. The
 * port in the administrator's Host header may be a relay's or a proxy's, which only the
 * administrator can reach; on its own address the gateway answers on its own listener.
 */
export function deviceBase(baseUrl: string, gatewayAddress: string | null | undefined, listenPort?: number): string {
  if (!gatewayAddress || isIP(gatewayAddress) === 0) return baseUrl;
  const url = new URL(baseUrl);
  url.hostname = isIP(gatewayAddress) === 6 ? `[${gatewayAddress}]` : gatewayAddress;
  if (listenPort !== undefined && Number.isInteger(listenPort) && listenPort > 0 && listenPort < 65536) url.port = String(listenPort);
  return url.origin;
}
