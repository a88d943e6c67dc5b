import { freemem, loadavg, totalmem, uptime } from 'node:os';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import {
  CONFIG_APPLIED,
  CONFIG_APPLIED_WITH_CHANGES,
  CONFIG_REJECTED,
  CONTROLLER_COMMANDS,
  DEVICE_EVENTS,
  LINK_CLOSE_NORMAL,
  LINK_CLOSE_PROTOCOL_ERROR,
  RPC_INVALID_PARAMS,
  RPC_METHOD_NOT_FOUND,
  configUuidField,
  deviceConfigSchema,
  isControllerCommandName,
  isSafeText,
  parseRpcFrame,
  reportMacField,
  rpcError,
  rpcNotification,
  rpcResult,
  serialField,
  type ControllerCommandName,
  type DeviceConfig,
  type DeviceEventName,
  type DeviceStateInput,
  type UcentralLink,
} from '@portico/schema';
import { planConfig, REJECT_REASONS, type ConfigPlan, type Rejection } from './ap-agent-config-plan.js';
import type { ConfigStore } from './ap-agent-config-store.js';
import { FirmwareError, fetchVerifiedFirmware } from './ap-agent-firmware.js';
import type { DriverSnapshot, RadioDriver, SteeringRequest } from './ap-agent-radio-driver.js';
import type { AgentSettings } from './ap-agent-settings.js';
import type { SystemActions } from './ap-agent-system.js';

/**
 * The device side of the uCentral protocol on one UcentralLink at a time: `connect` first, then
 * `state` every statistics interval and `healthcheck` every health interval, and an answer to
 * every controller command. When the link closes the session dials again through the link
 * factory, waiting longer after each failure. The radios do not depend on the link: the applied
 * configuration is kept on disk and brought up at start, and steering runs on every statistics
 * round whether or not the controller is there.
 *
 * Status texts are i18n keys (`ucentral.status.*`, `ucentral.reject.*`): the controller's
 * console shows them.
 */

export interface AgentClock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: AgentClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export type LinkFactory = () => Promise<UcentralLink>;

export interface AgentIdentity {
  serial: string;
  firmware: string;
  model: string;
  platform: 'ap' | 'cpe';
}

export type UnitState = NonNullable<DeviceStateInput['unit']>;

export interface SessionOptions {
  identity: AgentIdentity;
  settings: AgentSettings;
  driver: RadioDriver;
  store: ConfigStore;
  system: SystemActions;
  connect: LinkFactory;
  firmwareKey: KeyObject | null;
  clock?: AgentClock;
  /** 0..1; spreads reconnections of many units over the back-off window. */
  random?: () => number;
  unit?: () => UnitState;
  log?: (severity: number, message: string) => void;
}

export const DEFAULT_STATISTICS_INTERVAL_S = 60;
export const DEFAULT_HEALTH_INTERVAL_S = 300;
/** A station is asked to move at most once in this time. */
export const STEERING_HOLD_MS = 60_000;
/** Time for an answer to leave before the unit reboots or flashes. */
const ACTION_GRACE_MS = 1000;
/** syslog severities the `log` event uses. */
const LOG_ERR = 3;
const LOG_WARNING = 4;

type Answer = { result: unknown; after?: () => void } | { error: number; message: string };

const configureEnvelope = z.object({
  serial: serialField(),
  uuid: configUuidField(),
  when: z.number().int().nonnegative().default(0),
  config: z.unknown(),
});

const RRM_PARAMS = {
  roam: z.object({ station: reportMacField() }),
  'tx-power': z.object({ level: z.number().int().min(1).max(30) }),
  'channel-switch': z.object({ channel: z.number().int().min(1).max(196) }),
} as const;

function status(error: number, text = '', extra: Record<string, unknown> = {}) {
  return { error, text, ...extra };
}

/** Zod issues as `rejected` entries; a message that is not an i18n key becomes the generic one. */
function issuesAsRejections(issues: readonly z.core.$ZodIssue[]): Rejection[] {
  return issues.slice(0, 64).map((issue) => ({
    parameter: { [issue.path.map(String).join('.') || 'config']: null },
    reason: /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)+$/.test(issue.message) ? issue.message : REJECT_REASONS.invalid,
  }));
}

function defaultUnit(now: number): UnitState {
  return { load: loadavg(), memory: { total: totalmem(), free: freemem() }, uptime: Math.floor(uptime()), localtime: Math.floor(now / 1000) };
}

export class AgentSession {
  private readonly clock: AgentClock;
  private readonly random: () => number;
  private link: UcentralLink | null = null;
  private applied: { uuid: number; config: DeviceConfig; plan: ConfigPlan } | null = null;
  private pending: { uuid: number; timer: unknown } | null = null;
  private statisticsTimer: unknown = null;
  private healthTimer: unknown = null;
  private reconnectTimer: unknown = null;
  private failures = 0;
  private roundRunning = false;
  private stopped = false;
  private readonly steeredAt = new Map<string, number>();
  /** Channels of networks the last scan heard, for roaming candidates that are not ours. */
  private readonly heard = new Map<string, { channel: number; band: '2G' | '5G' }>();
  private driverTurn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SessionOptions) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
  }

  get appliedUuid(): number {
    return this.applied?.uuid ?? 0;
  }

  /** Brings the radios up from the stored configuration, then dials the controller. */
  async start(): Promise<void> {
    const stored = await this.options.store.load().catch((error: unknown) => {
      this.log(LOG_ERR, `cannot read the applied configuration: ${String(error)}`);
      return null;
    });
    if (stored) {
      const config = deviceConfigSchema.safeParse(stored.config);
      const outcome = config.success ? planConfig(config.data, stored.uuid, this.options.settings) : null;
      if (config.success && outcome?.ok) {
        try {
          await this.withDriver(() => this.options.driver.apply(outcome.plan));
          this.applied = { uuid: stored.uuid, config: config.data, plan: outcome.plan };
        } catch (error) {
          this.log(LOG_ERR, `stored configuration ${stored.uuid} did not apply: ${String(error)}`);
        }
      }
    }
    this.scheduleStatistics();
    void this.dial();
  }

  /** Closes the link and stops every timer; the radios keep running. */
  stop(): void {
    this.stopped = true;
    for (const timer of [this.statisticsTimer, this.healthTimer, this.reconnectTimer, this.pending?.timer]) if (timer) this.clock.clearTimeout(timer);
    this.link?.close(LINK_CLOSE_NORMAL, 'stopping');
    this.link = null;
  }

  /** One driver operation at a time: an apply never interleaves with a snapshot or a steer. */
  private withDriver<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.driverTurn.then(fn, fn);
    this.driverTurn = turn.catch(() => undefined);
    return turn;
  }

  private log(severity: number, message: string): void {
    this.options.log?.(severity, message);
    const text = [...message].filter((c) => isSafeText(c)).join('').slice(0, 2048);
    if (this.link) this.emit('log', { serial: this.options.identity.serial, log: text, severity });
  }

  private emit(name: DeviceEventName, params: Record<string, unknown>): void {
    const parsed = DEVICE_EVENTS[name].safeParse(params);
    if (!parsed.success) {
      this.options.log?.(LOG_ERR, `${name} not sent: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`);
      return;
    }
    this.link?.send(rpcNotification(name, parsed.data));
  }

  private async dial(): Promise<void> {
    this.reconnectTimer = null;
    if (this.stopped) return;
    let link: UcentralLink;
    try {
      link = await this.options.connect();
    } catch (error) {
      this.options.log?.(LOG_WARNING, `controller unreachable: ${String(error)}`);
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) {
      link.close(LINK_CLOSE_NORMAL, 'stopping');
      return;
    }
    this.failures = 0;
    this.link = link;
    link.onMessage((text) => void this.onMessage(link, text));
    link.onClose(() => this.onLinkClosed(link));
    const { identity } = this.options;
    this.emit('connect', {
      serial: identity.serial,
      uuid: this.appliedUuid,
      firmware: identity.firmware,
      capabilities: { platform: identity.platform, model: identity.model, compatible: identity.model },
    });
    if (this.pending) this.emitPending();
    this.scheduleHealth();
  }

  private onLinkClosed(link: UcentralLink): void {
    if (this.link !== link) return;
    this.link = null;
    if (this.healthTimer) this.clock.clearTimeout(this.healthTimer);
    this.healthTimer = null;
    this.scheduleReconnect();
  }

  /** Exponential back-off from minMs to maxMs, each wait spread over its upper half. */
  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const { minMs, maxMs } = this.options.settings.reconnect;
    const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    this.reconnectTimer = this.clock.setTimeout(() => void this.dial(), Math.round(ceiling * (0.5 + this.random() / 2)));
  }

  private statisticsIntervalMs(): number {
    return (this.applied?.config.metrics.statistics?.interval ?? DEFAULT_STATISTICS_INTERVAL_S) * 1000;
  }

  private healthIntervalMs(): number {
    return (this.applied?.config.metrics.health?.interval ?? DEFAULT_HEALTH_INTERVAL_S) * 1000;
  }

  private scheduleStatistics(): void {
    if (this.statisticsTimer) this.clock.clearTimeout(this.statisticsTimer);
    if (this.stopped) return;
    this.statisticsTimer = this.clock.setTimeout(() => void this.statisticsRound(), this.statisticsIntervalMs());
  }

  private scheduleHealth(): void {
    if (this.healthTimer) this.clock.clearTimeout(this.healthTimer);
    if (this.stopped || !this.link) return;
    this.healthTimer = this.clock.setTimeout(() => {
      this.scheduleHealth();
      void this.sendHealth();
    }, this.healthIntervalMs());
  }

  /** The next round is due one interval after this one started; a slow round is not run twice. */
  private async statisticsRound(): Promise<void> {
    this.scheduleStatistics();
    if (this.roundRunning) return;
    this.roundRunning = true;
    try {
      const snapshot = await this.withDriver(() => this.options.driver.snapshot());
      this.sendState(snapshot);
      await this.steer(snapshot);
      if (this.pending) this.emitPending();
    } catch (error) {
      this.log(LOG_ERR, `statistics round failed: ${String(error)}`);
    } finally {
      this.roundRunning = false;
    }
  }

  private sendState(snapshot: DriverSnapshot, requestUuid?: string): void {
    const interfaces = new Map<string, unknown[]>();
    for (const bss of snapshot.bsses) {
      const list = interfaces.get(bss.interfaceName) ?? [];
      list.push({ ssid: bss.ssid, bssid: bss.bssid, mode: bss.mode, band: bss.band, associations: bss.associations });
      interfaces.set(bss.interfaceName, list);
    }
    const state: DeviceStateInput = {
      unit: (this.options.unit ?? (() => defaultUnit(this.clock.now())))(),
      radios: snapshot.radios
        .filter((r) => r.channel !== undefined)
        .map((r) => ({
          band: r.band,
          channel: r.channel!,
          ...(r.width === undefined ? {} : { channel_width: r.width }),
          ...(r.txPowerDbm === undefined ? {} : { tx_power: r.txPowerDbm }),
        })),
      interfaces: [...interfaces].map(([name, ssids]) => ({ name, ssids })) as DeviceStateInput['interfaces'],
    };
    this.emit('state', { serial: this.options.identity.serial, uuid: this.appliedUuid, ...(requestUuid ? { request_uuid: requestUuid } : {}), state });
  }

  private async sendHealth(requestUuid?: string): Promise<void> {
    try {
      const checks = await this.withDriver(() => this.options.driver.health());
      const ok = checks.filter((c) => c.ok).length;
      const sanity = checks.length === 0 ? 100 : Math.round((100 * ok) / checks.length);
      this.emit('healthcheck', { serial: this.options.identity.serial, uuid: this.appliedUuid, sanity, ...(requestUuid ? { request_uuid: requestUuid } : {}) });
    } catch (error) {
      this.log(LOG_ERR, `health check failed: ${String(error)}`);
    }
  }

  private emitPending(): void {
    if (!this.pending) return;
    this.emit('cfgpending', { serial: this.options.identity.serial, active: this.appliedUuid, uuid: this.pending.uuid });
  }

  /** 802.11v: stations under their SSID's threshold are offered the unit's other BSSes of that SSID. */
  private async steer(snapshot: DriverSnapshot): Promise<void> {
    const now = this.clock.now();
    for (const [mac, at] of this.steeredAt) if (now - at >= STEERING_HOLD_MS) this.steeredAt.delete(mac);
    for (const bss of snapshot.bsses) {
      if (bss.steeringThreshold === undefined) continue;
      for (const station of bss.associations) {
        if (station.rssi === undefined || station.rssi >= bss.steeringThreshold || this.steeredAt.has(station.station)) continue;
        this.steeredAt.set(station.station, now);
        const candidates = snapshot.bsses
          .filter((other) => other.ssid === bss.ssid && other.bssid !== bss.bssid && other.mode !== 'wds-sta' && other.channel !== undefined)
          .map((other) => ({
            bssid: other.bssid,
            channel: other.channel!,
            band: other.band,
            width: snapshot.radios.find((r) => r.index === other.radioIndex)?.width ?? 20,
          }));
        await this.withDriver(() => this.options.driver.steer({ ifname: bss.ifname, station: station.station, candidates })).catch((error: unknown) =>
          this.log(LOG_WARNING, `steering ${station.station} failed: ${String(error)}`),
        );
      }
    }
  }

  private async onMessage(link: UcentralLink, text: string): Promise<void> {
    const frame = parseRpcFrame(text);
    if ('fault' in frame) {
      link.close(LINK_CLOSE_PROTOCOL_ERROR, frame.fault);
      return;
    }
    // The controller answers nothing the device sends; only requests need a reply.
    if (frame.kind !== 'request') return;
    let answer: Answer;
    try {
      answer = isControllerCommandName(frame.method)
        ? await this.handle(frame.method, frame.params)
        : { error: RPC_METHOD_NOT_FOUND, message: 'method not found' };
    } catch (error) {
      this.log(LOG_ERR, `${frame.method} failed: ${String(error)}`);
      answer = { error: RPC_INVALID_PARAMS, message: 'command failed' };
    }
    if ('error' in answer) {
      link.send(rpcError(frame.id, answer.error, answer.message));
      return;
    }
    link.send(rpcResult(frame.id, answer.result));
    answer.after?.();
  }

  private parse<N extends ControllerCommandName>(name: N, params: unknown): z.infer<(typeof CONTROLLER_COMMANDS)[N]['params']> | null {
    const parsed = CONTROLLER_COMMANDS[name].params.safeParse(params);
    if (!parsed.success || (parsed.data as { serial: string }).serial !== this.options.identity.serial) return null;
    return parsed.data as z.infer<(typeof CONTROLLER_COMMANDS)[N]['params']>;
  }

  /** Runs `fn` at `when` (UTC seconds; 0 or past: after the answer has left). */
  private at(when: number, fn: () => Promise<void>, what: string): number {
    const nowS = Math.floor(this.clock.now() / 1000);
    const delay = Math.max(0, when * 1000 - this.clock.now()) + ACTION_GRACE_MS;
    this.clock.setTimeout(() => void fn().catch((error: unknown) => this.log(LOG_ERR, `${what} failed: ${String(error)}`)), delay);
    return Math.max(when, nowS);
  }

  private async handle(name: ControllerCommandName, params: unknown): Promise<Answer> {
    const serial = this.options.identity.serial;
    const invalid: Answer = { error: RPC_INVALID_PARAMS, message: 'invalid params' };
    switch (name) {
      case 'configure':
        return this.configure(params);
      case 'ping': {
        if (!this.parse('ping', params)) return invalid;
        return { result: { serial, uuid: this.appliedUuid, deviceUTCTime: this.clock.now() } };
      }
      case 'reboot': {
        const p = this.parse('reboot', params);
        if (!p) return invalid;
        const when = Math.max(p.when, Math.floor(this.clock.now() / 1000));
        return { result: { serial, status: status(0, '', { when }) }, after: () => void this.at(when, () => this.options.system.reboot(), 'reboot') };
      }
      case 'factory': {
        const p = this.parse('factory', params);
        if (!p) return invalid;
        const when = Math.max(p.when, Math.floor(this.clock.now() / 1000));
        return { result: { serial, status: status(0, '', { when }) }, after: () => void this.at(when, () => this.options.system.factoryReset(p.keep_redirector === 1), 'factory reset') };
      }
      case 'upgrade':
        return this.upgrade(params);
      case 'leds': {
        const p = this.parse('leds', params);
        if (!p) return invalid;
        const leds = this.options.system.leds;
        if (!leds) return { result: { serial, status: status(1, 'ucentral.status.noLeds') } };
        if (p.when * 1000 > this.clock.now()) {
          const when = this.at(p.when, () => leds(p.pattern, p.duration), 'leds');
          return { result: { serial, status: status(0, '', { when }) } };
        }
        await leds(p.pattern, p.duration);
        return { result: { serial, status: status(0) } };
      }
      case 'wifiscan': {
        const p = this.parse('wifiscan', params);
        if (!p) return invalid;
        try {
          const scan = await this.withDriver(() =>
            this.options.driver.scan({ active: p.active === 1, ...(p.bands ? { bands: p.bands } : {}), ...(p.channels ? { channels: p.channels } : {}) }),
          );
          for (const entry of scan) this.heard.set(entry.bssid, { channel: entry.channel, band: entry.channel <= 14 ? '2G' : '5G' });
          return { result: { serial, status: status(0), scan } };
        } catch (error) {
          this.log(LOG_WARNING, `scan failed: ${String(error)}`);
          return { result: { serial, status: status(1, 'ucentral.status.scanFailed'), scan: [] } };
        }
      }
      case 'request': {
        const p = this.parse('request', params);
        if (!p) return invalid;
        const send =
          p.message === 'state'
            ? async () => this.sendState(await this.withDriver(() => this.options.driver.snapshot()), p.request_uuid)
            : () => this.sendHealth(p.request_uuid);
        if (p.when * 1000 > this.clock.now()) {
          const when = this.at(p.when, send, 'request');
          return { result: { serial, status: status(0, '', { when }) } };
        }
        return { result: { serial, status: status(0) }, after: () => void send().catch((error: unknown) => this.log(LOG_ERR, `request failed: ${String(error)}`)) };
      }
      case 'rrm':
        return this.rrm(params);
      case 'trace': {
        if (!this.parse('trace', params)) return invalid;
        return { result: { serial, status: status(2, 'ucentral.status.unsupported') } };
      }
    }
  }

  private async configure(params: unknown): Promise<Answer> {
    const envelope = configureEnvelope.safeParse(params);
    if (!envelope.success || envelope.data.serial !== this.options.identity.serial) return { error: RPC_INVALID_PARAMS, message: 'invalid params' };
    const { serial, uuid, when } = envelope.data;
    const answer = (error: number, rejected: Rejection[], extra: Record<string, unknown> = {}): Answer => ({
      result: { serial, uuid, status: status(error, error === CONFIG_REJECTED ? 'ucentral.status.configRejected' : '', { ...extra, rejected: rejected.slice(0, 64) }) },
    });
    const config = deviceConfigSchema.safeParse(envelope.data.config);
    if (!config.success) return answer(CONFIG_REJECTED, issuesAsRejections(config.error.issues));
    const outcome = planConfig(config.data, uuid, this.options.settings);
    if (!outcome.ok) return answer(CONFIG_REJECTED, outcome.refusals);
    const code = outcome.substitutions.length > 0 ? CONFIG_APPLIED_WITH_CHANGES : CONFIG_APPLIED;
    const apply = () => this.applyConfig(uuid, envelope.data.config, config.data, outcome.plan);
    if (this.pending) this.clock.clearTimeout(this.pending.timer);
    this.pending = null;
    if (when * 1000 > this.clock.now()) {
      // Once applied, a state report tells the controller the new uuid without waiting a round.
      const applyThenReport = async () => {
        await apply();
        this.sendState(await this.withDriver(() => this.options.driver.snapshot()));
      };
      const timer = this.clock.setTimeout(
        () => void applyThenReport().catch((error: unknown) => this.log(LOG_ERR, `configuration ${uuid} did not apply: ${String(error)}`)),
        when * 1000 - this.clock.now(),
      );
      this.pending = { uuid, timer };
      return { ...(answer(code, outcome.substitutions, { when }) as { result: unknown }), after: () => this.emitPending() };
    }
    try {
      await apply();
    } catch (error) {
      this.log(LOG_ERR, `configuration ${uuid} did not apply: ${String(error)}`);
      return answer(CONFIG_REJECTED, [{ parameter: { config: uuid }, reason: REJECT_REASONS.applyFailed }]);
    }
    return answer(code, outcome.substitutions);
  }

  /** Applies, then keeps the document; a failed apply puts the previous plan back. */
  private async applyConfig(uuid: number, raw: unknown, config: DeviceConfig, plan: ConfigPlan): Promise<void> {
    if (this.pending?.uuid === uuid) this.pending = null;
    const previous = this.applied;
    try {
      await this.withDriver(() => this.options.driver.apply(plan));
    } catch (error) {
      if (previous) await this.withDriver(() => this.options.driver.apply(previous.plan)).catch(() => undefined);
      throw error;
    }
    await this.options.store.save({ uuid, config: raw });
    this.applied = { uuid, config, plan };
    this.scheduleStatistics();
    if (this.link) this.scheduleHealth();
  }

  private async upgrade(params: unknown): Promise<Answer> {
    const p = this.parse('upgrade', params);
    if (!p) return { error: RPC_INVALID_PARAMS, message: 'invalid params' };
    const serial = this.options.identity.serial;
    const { settings } = this.options;
    let image: string;
    try {
      image = await fetchVerifiedFirmware(p.uri, p.FWsignature, this.options.firmwareKey, { dir: join(settings.stateDir, 'firmware'), maxBytes: settings.firmware.maxBytes });
    } catch (error) {
      const refusal = error instanceof FirmwareError ? error.refusal : 'downloadFailed';
      this.log(LOG_WARNING, `upgrade refused: ${error instanceof Error ? error.message : String(error)}`);
      // PROTOCOL.md: 1 bad firmware, 2 missing signature.
      return { result: { serial, status: status(refusal === 'missingSignature' ? 2 : 1, `ucentral.status.firmware.${refusal}`) } };
    }
    const when = Math.max(p.when, Math.floor(this.clock.now() / 1000));
    return { result: { serial, status: status(0, '', { when }) }, after: () => void this.at(when, () => this.options.system.upgrade(image), 'upgrade') };
  }

  private async rrm(params: unknown): Promise<Answer> {
    const p = this.parse('rrm', params);
    if (!p) return { error: RPC_INVALID_PARAMS, message: 'invalid params' };
    const serial = this.options.identity.serial;
    let failed = 0;
    for (const action of p.actions) {
      try {
        await this.rrmAction(action.type, action.bss.map((b) => b.toLowerCase()), action.params);
      } catch (error) {
        failed++;
        this.log(LOG_WARNING, `rrm ${action.type} failed: ${String(error)}`);
      }
    }
    return { result: { serial, status: failed === 0 ? status(0) : status(failed === p.actions.length ? 2 : 1, 'ucentral.status.rrmFailed') } };
  }

  private async rrmAction(type: 'roam' | 'tx-power' | 'beacon-request' | 'channel-switch', bss: string[], params: unknown): Promise<void> {
    if (type === 'beacon-request') throw new Error('beacon requests are not supported');
    const driver = this.options.driver;
    const snapshot = await this.withDriver(() => driver.snapshot());
    const radiosOf = (bssids: string[]) => [...new Set(snapshot.bsses.filter((b) => bssids.includes(b.bssid)).map((b) => b.radioIndex))];
    if (type === 'roam') {
      const { station } = RRM_PARAMS.roam.parse(params);
      const from = snapshot.bsses.find((b) => b.associations.some((a) => a.station === station));
      if (!from) throw new Error(`${station} is not associated`);
      const targets = bss.length > 0 ? bss : snapshot.bsses.filter((b) => b.ssid === from.ssid && b.bssid !== from.bssid).map((b) => b.bssid);
      const candidates: SteeringRequest['candidates'] = targets.flatMap((bssid) => {
        const local = snapshot.bsses.find((b) => b.bssid === bssid);
        if (local?.channel !== undefined) {
          return [{ bssid, channel: local.channel, band: local.band, width: snapshot.radios.find((r) => r.index === local.radioIndex)?.width ?? 20 }];
        }
        const heard = this.heard.get(bssid);
        return heard ? [{ bssid, ...heard, width: 20 }] : [];
      });
      await this.withDriver(() => driver.steer({ ifname: from.ifname, station, candidates }));
    } else if (type === 'tx-power') {
      const { level } = RRM_PARAMS['tx-power'].parse(params);
      const radios = bss.length > 0 ? radiosOf(bss) : snapshot.radios.map((r) => r.index);
      if (radios.length === 0) throw new Error('no radio carries those BSSIDs');
      for (const index of radios) await this.withDriver(() => driver.setTxPower(index, level));
    } else {
      const { channel } = RRM_PARAMS['channel-switch'].parse(params);
      const band = channel <= 14 ? '2G' : '5G';
      const radios = bss.length > 0 ? radiosOf(bss).slice(0, 1) : snapshot.radios.filter((r) => r.band === band).map((r) => r.index);
      if (radios.length === 0) throw new Error('no radio for that channel');
      for (const index of radios) await this.withDriver(() => driver.switchChannel(index, channel));
    }
  }
}
