import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { channelMhz, type Association, type ScanEntry } from '@portico/schema';
import { centre80, fitChannel, type BssPlan, type ConfigPlan, type RadioPlan } from './ap-agent-config-plan.js';
import { runChecked, type CommandRunner } from './ap-agent-command.js';
import { installFiles } from './ap-agent-file-install.js';
import { hostapdConfPath, macList, macListPath, parseConfEntries, renderRadioFiles, supplicantConfPath, type RenderPaths } from './ap-agent-hostapd-config.js';
import { HostapdControl, type AclList, type StationInfo } from './ap-agent-hostapd-control.js';
import { IwControl, type IwInterface } from './ap-agent-iw.js';
import type { BssSnapshot, DriverSnapshot, HealthCheck, RadioDriver, RadioSnapshot, ScanRequest, SteeringRequest } from './ap-agent-radio-driver.js';

/**
 * The radios as hostapd runs them on Debian or OpenWrt: one hostapd per access point radio
 * (`hostapd -B -P <pid> <conf>`), one wpa_supplicant per CPE receiver radio, transmit power
 * through iw. A change is applied the lightest way that takes effect:
 * - only a MAC list changed: the running lists are edited through hostapd_cli (`deny_acl` /
 *   `accept_acl`) and the stations now refused are disconnected at once, with no reload;
 * - BSS options changed: `hostapd_cli reload`, then stations the new lists refuse are
 *   disconnected;
 * - the channel, width, country or set of BSSes changed: hostapd is restarted.
 */

/** Starts and stops the daemons the driver runs, by name; each writes its own pid file. */
export interface DaemonSupervisor {
  pidFile(name: string): string;
  isRunning(name: string): Promise<boolean>;
  start(name: string, argv: readonly string[]): Promise<void>;
  stop(name: string): Promise<void>;
}

/** Daemons that detach themselves (`-B`) and write a pid file (`-P`). */
export class PidFileSupervisor implements DaemonSupervisor {
  constructor(
    private readonly run: CommandRunner,
    private readonly pidDir: string,
    private readonly signal: (pid: number, signal: NodeJS.Signals | 0) => void = (pid, sig) => process.kill(pid, sig),
  ) {}

  pidFile(name: string): string {
    return join(this.pidDir, `${name}.pid`);
  }

  private async pid(name: string): Promise<number | null> {
    const text = await readFile(this.pidFile(name), 'utf8').catch(() => '');
    const pid = Number(text.trim());
    return Number.isSafeInteger(pid) && pid > 1 ? pid : null;
  }

  async isRunning(name: string): Promise<boolean> {
    const pid = await this.pid(name);
    if (pid === null) return false;
    try {
      this.signal(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  async start(name: string, argv: readonly string[]): Promise<void> {
    // The daemons write their pid files here; without the folder they run but cannot be found.
    await mkdir(this.pidDir, { recursive: true, mode: 0o700 });
    await runChecked(this.run, argv);
  }

  async stop(name: string): Promise<void> {
    const pid = await this.pid(name);
    if (pid !== null && (await this.isRunning(name))) {
      this.signal(pid, 'SIGTERM');
      // The radio is released once the process is gone; a new hostapd on it would fail before.
      for (let i = 0; i < 50 && (await this.isRunning(name)); i++) await new Promise((r) => setTimeout(r, 100));
    }
    await rm(this.pidFile(name), { force: true });
  }
}

interface Acl {
  list: AclList;
  macs: Set<string>;
}

const HOSTAPD_RUNNING_STATES = new Set(['ENABLED', 'ACS', 'HT_SCAN', 'DFS', 'COUNTRY_UPDATE']);

/** The radio section of a hostapd.conf and its BSS names: what a reload cannot change. */
function radioShape(content: string | undefined): string {
  if (content === undefined) return '';
  const entries = parseConfEntries(content);
  const firstBss = entries.findIndex(([key]) => key === 'ssid2');
  const radio = entries.slice(0, firstBss < 0 ? entries.length : firstBss);
  return JSON.stringify([radio, entries.filter(([key]) => key === 'bss')]);
}

function aclOf(bss: BssPlan): Acl | null {
  const acl = bss.ssid['access-control-list'];
  return acl ? { list: acl.mode === 'allow' ? 'accept' : 'deny', macs: new Set(macList(bss)) } : null;
}

/** The lists a BSS ran with, read back from the files the previous apply left. */
function previousAcl(files: Map<string, string>, confDir: string, ifname: string): Acl | null {
  for (const mode of ['deny', 'allow'] as const) {
    const content = files.get(macListPath(confDir, ifname, mode));
    if (content !== undefined) return { list: mode === 'allow' ? 'accept' : 'deny', macs: new Set(content.split('\n').filter(Boolean)) };
  }
  return null;
}

/** A station as the state report gives it; on a radio, one without a signal is not associated yet. */
function association(station: StationInfo, wired: boolean): Association | null {
  if (wired ? !station.authorized : station.signal === undefined) return null;
  return {
    station: station.mac,
    ...(station.signal === undefined ? {} : { rssi: station.signal }),
    ...(station.rxBitrate === undefined ? {} : { rx_rate: { bitrate: station.rxBitrate } }),
    ...(station.txBitrate === undefined ? {} : { tx_rate: { bitrate: station.txBitrate } }),
    rx_bytes: station.rxBytes,
    tx_bytes: station.txBytes,
    connected: station.connectedSeconds,
    inactive: Math.floor(station.inactiveMs / 1000),
  };
}

export interface HostapdDriverOptions {
  run: CommandRunner;
  paths: RenderPaths;
  supervisor: DaemonSupervisor;
  /** The radio interfaces in configuration order (settings.radios). */
  radios: ReadonlyArray<{ phy: string; interface: string }>;
}

export class HostapdRadioDriver implements RadioDriver {
  private readonly hostapd: HostapdControl;
  private readonly iw: IwControl;
  private plan: ConfigPlan | null = null;
  private readonly txPower = new Map<number, number | 'auto'>();

  constructor(private readonly options: HostapdDriverOptions) {
    this.hostapd = new HostapdControl(options.run, options.paths.hostapdControlDir);
    this.iw = new IwControl(options.run);
  }

  private async currentFiles(plan: ConfigPlan): Promise<Map<string, string>> {
    const { confDir } = this.options.paths;
    const paths = new Set<string>();
    for (const radio of [...plan.radios, ...(this.plan?.radios ?? [])]) {
      paths.add(hostapdConfPath(confDir, radio.ifname));
      paths.add(supplicantConfPath(confDir, radio.ifname));
      for (const bss of radio.bsses) for (const mode of ['deny', 'allow'] as const) paths.add(macListPath(confDir, bss.ifname, mode));
    }
    const files = new Map<string, string>();
    for (const path of paths) {
      const content = await readFile(path, 'utf8').catch(() => undefined);
      if (content !== undefined) files.set(path, content);
    }
    return files;
  }

  async apply(plan: ConfigPlan): Promise<void> {
    const { confDir } = this.options.paths;
    const rendered = renderRadioFiles(plan, this.options.paths);
    const before = await this.currentFiles(plan);
    await installFiles(confDir, rendered);
    const after = new Map(rendered.map((f) => [f.path, f.content]));
    for (const [index, device] of this.options.radios.entries()) {
      const radio = plan.radios.find((r) => r.index === index);
      const hostapdName = `hostapd-${device.interface}`;
      const supplicantName = `wpa_supplicant-${device.interface}`;
      if (radio && radio.bsses.length > 0) {
        await this.options.supervisor.stop(supplicantName);
        await this.applyAccessPoint(radio, hostapdName, before, after);
      } else if (radio?.station) {
        await this.options.supervisor.stop(hostapdName);
        await this.applyStation(radio, supplicantName, before, after);
      } else {
        await this.options.supervisor.stop(hostapdName);
        await this.options.supervisor.stop(supplicantName);
        this.txPower.delete(index);
        continue;
      }
      const power = radio.txPowerDbm ?? 'auto';
      if (radio.driver !== 'wired' && this.txPower.get(index) !== power) {
        await this.iw.setTxPower(radio.ifname, power);
        this.txPower.set(index, power);
      }
    }
    this.plan = plan;
  }

  private async applyAccessPoint(radio: RadioPlan, name: string, before: Map<string, string>, after: Map<string, string>): Promise<void> {
    const { confDir } = this.options.paths;
    const conf = hostapdConfPath(confDir, radio.ifname);
    const running = await this.options.supervisor.isRunning(name);
    const changed = before.get(conf) !== after.get(conf);
    if (!running || radioShape(before.get(conf)) !== radioShape(after.get(conf))) {
      if (running) await this.options.supervisor.stop(name);
      await this.options.supervisor.start(name, ['hostapd', '-B', '-P', this.options.supervisor.pidFile(name), conf]);
      return;
    }
    if (changed) await this.hostapd.reload(radio.ifname);
    for (const bss of radio.bsses) {
      const old = previousAcl(before, confDir, bss.ifname);
      const next = aclOf(bss);
      if (changed) await this.disconnectRefused(bss.ifname, old, next);
      else if (next) await this.editRunningAcl(bss.ifname, old, next);
    }
  }

  /** Same BSS options, new list: edit hostapd's list in place and disconnect whom it now refuses. */
  private async editRunningAcl(ifname: string, old: Acl | null, next: Acl): Promise<void> {
    const before = old?.list === next.list ? old.macs : new Set<string>();
    for (const mac of [...next.macs].filter((m) => !before.has(m))) {
      await this.hostapd.aclAdd(ifname, next.list, mac);
      if (next.list === 'deny') await this.hostapd.deauthenticate(ifname, mac);
    }
    for (const mac of [...before].filter((m) => !next.macs.has(m))) {
      await this.hostapd.aclDelete(ifname, next.list, mac);
      if (next.list === 'accept') await this.hostapd.deauthenticate(ifname, mac);
    }
  }

  /** After a reload hostapd refuses new associations; stations already on are sent away here. */
  private async disconnectRefused(ifname: string, old: Acl | null, next: Acl | null): Promise<void> {
    if (next?.list === 'deny') {
      const before = old?.list === 'deny' ? old.macs : new Set<string>();
      for (const mac of next.macs) if (!before.has(mac)) await this.hostapd.deauthenticate(ifname, mac);
    } else if (next?.list === 'accept') {
      for (const station of await this.hostapd.allStations(ifname)) {
        if (!next.macs.has(station.mac)) await this.hostapd.deauthenticate(ifname, station.mac);
      }
    }
  }

  private async applyStation(radio: RadioPlan, name: string, before: Map<string, string>, after: Map<string, string>): Promise<void> {
    const conf = supplicantConfPath(this.options.paths.confDir, radio.ifname);
    const running = await this.options.supervisor.isRunning(name);
    if (running && before.get(conf) === after.get(conf)) return;
    if (running) await this.options.supervisor.stop(name);
    // WDS: the receiver forwards the base station's LAN, which needs four-address frames.
    await this.iw.setFourAddress(radio.ifname, true);
    const argv = ['wpa_supplicant', '-B', '-P', this.options.supervisor.pidFile(name), '-i', radio.ifname, '-D', 'nl80211', '-c', conf];
    if (radio.station?.bridge) argv.push('-b', radio.station.bridge);
    await this.options.supervisor.start(name, argv);
  }

  async snapshot(): Promise<DriverSnapshot> {
    const plan = this.plan;
    if (!plan) return { radios: [], bsses: [] };
    const iw: IwInterface[] = await this.iw.interfaces().catch(() => []);
    const radios: RadioSnapshot[] = [];
    const bsses: BssSnapshot[] = [];
    for (const radio of plan.radios) {
      const link = iw.find((i) => i.name === radio.ifname);
      const snap: RadioSnapshot = { index: radio.index, band: radio.band, ...(link?.txPowerDbm === undefined ? {} : { txPowerDbm: link.txPowerDbm }) };
      radios.push(snap);
      if (radio.station) {
        if (link?.channel) Object.assign(snap, { channel: link.channel, ...(link.width ? { width: link.width } : {}) });
        if (link?.addr) bsses.push(this.bssSnapshot(radio, radio.station, link.addr, snap.channel, []));
        continue;
      }
      if (radio.bsses.length === 0) continue;
      const status = await this.hostapd.status(radio.ifname).catch(() => null);
      if (status?.channel) {
        snap.channel = status.channel;
        snap.width = status.vhtWidth === 1 ? 80 : status.vhtWidth === 2 ? 160 : status.secondaryChannel !== 0 ? 40 : 20;
      }
      for (const bss of radio.bsses) {
        const bssid = status?.bssids.get(bss.ifname) ?? iw.find((i) => i.name === bss.ifname)?.addr;
        if (!bssid) continue;
        let stations = await this.hostapd.allStations(bss.ifname).catch(() => []);
        const wired = radio.driver === 'wired';
        if (wired) stations = await this.enforceWiredAcl(bss, stations);
        const associations = stations.map((s) => association(s, wired)).filter((a): a is Association => a !== null);
        bsses.push(this.bssSnapshot(radio, bss, bssid, snap.channel, associations));
      }
    }
    return { radios, bsses };
  }

  /**
   * hostapd's wired driver takes any station that completes 802.1X: it never consults its MAC
   * lists. The lists are kept there (hostapd_cli edits them) and enforced here, each report
   * round: a refused station is deauthenticated and left out of the report.
   */
  private async enforceWiredAcl(bss: BssPlan, stations: StationInfo[]): Promise<StationInfo[]> {
    const acl = aclOf(bss);
    if (!acl) return stations;
    const kept: StationInfo[] = [];
    for (const station of stations) {
      const refused = acl.list === 'deny' ? acl.macs.has(station.mac) : !acl.macs.has(station.mac);
      if (!refused) kept.push(station);
      else if (station.authorized) await this.hostapd.deauthenticate(bss.ifname, station.mac).catch(() => undefined);
    }
    return kept;
  }

  private bssSnapshot(radio: RadioPlan, bss: BssPlan, bssid: string, channel: number | undefined, associations: Association[]): BssSnapshot {
    const steering = bss.ssid['portico-steering'];
    return {
      radioIndex: radio.index,
      ifname: bss.ifname,
      interfaceName: bss.interfaceName,
      bssid,
      ssid: bss.ssid.name,
      mode: bss.ssid['bss-mode'],
      band: radio.band,
      ...(channel === undefined ? {} : { channel }),
      associations,
      ...(steering?.['bss-transition'] ? { steeringThreshold: steering['rssi-threshold'] } : {}),
    };
  }

  async health(): Promise<HealthCheck[]> {
    const checks: HealthCheck[] = [];
    for (const radio of this.plan?.radios ?? []) {
      if (radio.station) {
        checks.push({ name: `wpa_supplicant ${radio.ifname}`, ok: await this.options.supervisor.isRunning(`wpa_supplicant-${radio.ifname}`) });
      } else if (radio.bsses.length > 0) {
        const running = await this.options.supervisor.isRunning(`hostapd-${radio.ifname}`);
        const status = running ? await this.hostapd.status(radio.ifname).catch(() => null) : null;
        checks.push({ name: `hostapd ${radio.ifname}`, ok: status !== null && HOSTAPD_RUNNING_STATES.has(status.state) });
      }
    }
    return checks;
  }

  async scan(request: ScanRequest): Promise<ScanEntry[]> {
    const found = new Map<string, ScanEntry>();
    for (const radio of this.plan?.radios ?? []) {
      if ((radio.bsses.length === 0 && !radio.station) || radio.driver === 'wired') continue;
      if (request.bands && !request.bands.includes(radio.band === '2G' ? '2' : '5')) continue;
      const band = radio.band === '2G' ? '2g' : '5g';
      const channels = (request.channels ?? []).filter((c) => (band === '2g' ? c <= 14 : c >= 32));
      if (request.channels && request.channels.length > 0 && channels.length === 0) continue;
      const entries = await this.iw.scan(radio.ifname, { freqs: channels.map((c) => channelMhz(band, c)), active: request.active });
      for (const entry of entries) found.set(entry.bssid, entry);
    }
    return [...found.values()];
  }

  async steer(request: SteeringRequest): Promise<void> {
    await this.hostapd.transition(request.ifname, request.station, request.candidates);
  }

  private radio(index: number): RadioPlan {
    const radio = this.plan?.radios.find((r) => r.index === index);
    if (!radio || (radio.bsses.length === 0 && !radio.station)) throw new Error(`radio ${index} is not running`);
    return radio;
  }

  async setTxPower(radioIndex: number, dBm: number): Promise<void> {
    const radio = this.radio(radioIndex);
    await this.iw.setTxPower(radio.ifname, dBm);
    this.txPower.set(radioIndex, dBm);
  }

  /** A channel switch announced to the stations; the width narrows if the new channel needs it. */
  async switchChannel(radioIndex: number, channel: number): Promise<void> {
    const radio = this.radio(radioIndex);
    if (radio.bsses.length === 0) throw new Error(`radio ${radioIndex} is a station`);
    const fit = fitChannel({ band: radio.band, country: radio.country, allowDfs: radio.allowDfs, channel, width: radio.width });
    if (fit.channel !== channel) throw new Error(`channel ${channel} is not usable here`);
    const band = radio.band === '2G' ? '2g' : '5g';
    const freq = channelMhz(band, channel);
    const centreFreq = fit.width === 80 ? channelMhz(band, centre80(channel)) : fit.width === 40 ? freq + fit.secondaryOffset * 10 : undefined;
    await this.hostapd.channelSwitch(radio.ifname, {
      count: 5,
      freq,
      width: fit.width,
      secondaryOffset: fit.secondaryOffset,
      ...(centreFreq ? { centreFreq } : {}),
      vht: radio.band === '5G',
    });
  }
}
