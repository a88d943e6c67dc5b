import { inflateSync } from 'node:zlib';
import {
  CONFIG_APPLIED,
  CONFIG_APPLIED_WITH_CHANGES,
  CONTROLLER_COMMANDS,
  DEVICE_EVENTS,
  LINK_CLOSE_NORMAL,
  LINK_CLOSE_POLICY,
  LINK_CLOSE_PROTOCOL_ERROR,
  LINK_CLOSE_TOO_BIG,
  RPC_METHOD_NOT_FOUND,
  SERIAL_PATTERN,
  UCENTRAL_MAX_INFLATED_BYTES,
  compressedParamsSchema,
  exceedsUcentralDepth,
  isDeviceEventName,
  parseRpcFrame,
  rpcError,
  rpcRequest,
  type CommandParams,
  type CommandResult,
  type CommandStatus,
  type ControllerCommandName,
  type DeviceEvent,
  type DeviceEventName,
  type FrameFault,
  type RpcFrame,
  type ScanEntry,
  type UcentralLink,
} from '@portico/schema';
import { PreparedConfigCache, configureRequest, DEFAULT_STATE_INTERVAL_S, type WirelessConfigBody } from './wireless-controller-config.js';
import { SEVERITY, type WirelessLogEntry, type WirelessLogKey } from './wireless-controller-log.js';
import { DeviceSession, type WirelessDeviceLive, type WirelessStation } from './wireless-device-session.js';
import { boundedJson, type ConfigRejection, type WirelessDeviceKind, type WirelessDeviceStore } from './wireless-device-store.js';

/** The timer functions the controller uses; a test passes a fake clock's. */
export interface WirelessTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WirelessControllerDeps {
  store: WirelessDeviceStore;
  now: () => number;
  timers?: WirelessTimers;
  /**
   * The configuration an adopted device should run, from its group's settings; null when it
   * has none. Return the same object for devices that share one, and a new object when it
   * changes: the controller validates and serialises each object once.
   */
  configFor(serial: string): WirelessConfigBody | null;
  /** How long a command waits for the device's answer (default 30 s). */
  commandTimeoutMs?: number;
  onLog?(entry: WirelessLogEntry): void;
  /** Something the AP list shows changed: online, status, configuration outcome, firmware. */
  onChange?(serial: string): void;
  /** An unexpected failure while handling a device's message (the link is closed). */
  onError?(error: unknown): void;
}

export type WirelessCommandErrorCode =
  /** No such device. */
  | 'notFound'
  /** Pending or revoked: only adopted devices take commands. */
  | 'notAdopted'
  /** Not connected, or the connection closed before the answer. */
  | 'offline'
  | 'timeout'
  /** The device answered with an error, or a status it does not carry the command out with. */
  | 'refused'
  | 'badParams'
  | 'badResult'
  /** Reboot refused: the AP has been up for less than an hour (spec §5). */
  | 'recentlyBooted';

export class WirelessCommandError extends Error {
  constructor(
    readonly code: WirelessCommandErrorCode,
    readonly device?: { code: number; text: string },
  ) {
    super(`wireless command failed: ${code}`);
    this.name = 'WirelessCommandError';
  }
}

/** Commands callers may send; `configure` is the controller's own. */
export type WirelessCommandName = Exclude<ControllerCommandName, 'configure'>;
type StatusCommandName = Exclude<WirelessCommandName, 'ping'>;

/** Spec §5: an AP is not rebooted if it has been running for under one hour. */
export const REBOOT_MIN_UPTIME_S = 3600;
/** A device that sent nothing for this many state intervals is offline. */
export const MISSED_INTERVALS = 3;
const SWEEP_MS = 10_000;
/** Last seen times reach the store every this many sweeps (once a minute), batched. */
const SEEN_FLUSH_SWEEPS = 6;
/** Devices handled per turn of the event loop when a configuration is pushed. */
const PUSH_BATCH = 100;
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/** Queued store writes committed per transaction, one transaction per turn of the event loop. */
const WRITES_PER_TRANSACTION = 1000;
/** RFC 6455 §7.4.1: the server met an unexpected condition. */
const LINK_CLOSE_INTERNAL = 1011;

const FAULT_CLOSE: Record<FrameFault, number> = {
  tooLarge: LINK_CLOSE_TOO_BIG,
  notJson: LINK_CLOSE_PROTOCOL_ERROR,
  tooDeep: LINK_CLOSE_PROTOCOL_ERROR,
  notRpc: LINK_CLOSE_PROTOCOL_ERROR,
};

const EVENT_BITS = Object.fromEntries(Object.keys(DEVICE_EVENTS).map((name, i) => [name, 1 << i])) as Record<DeviceEventName, number>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Inflates `compress_64` params (zlib, base64) within the bomb guard. */
function inflateParams(params: Record<string, unknown>): { value: unknown } | { fault: FrameFault } {
  const compressed = compressedParamsSchema.safeParse(params);
  if (!compressed.success) return { fault: 'notRpc' };
  let inflated: Buffer;
  try {
    inflated = inflateSync(Buffer.from(compressed.data.compress_64, 'base64'), { maxOutputLength: UCENTRAL_MAX_INFLATED_BYTES });
  } catch (error) {
    return { fault: (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? 'tooLarge' : 'notRpc' };
  }
  let value: unknown;
  try {
    value = JSON.parse(inflated.toString('utf8'));
  } catch {
    return { fault: 'notJson' };
  }
  return exceedsUcentralDepth(value) ? { fault: 'tooDeep' } : { value };
}

function kindOf(platform: string | undefined): WirelessDeviceKind {
  return platform === 'cpe' ? 'cpe' : 'ap';
}

type EventHandlers = { [N in DeviceEventName]: (session: DeviceSession, event: DeviceEvent<N>) => void };

/**
 * The gateway side of the uCentral device protocol: one session per connected AP or CPE over
 * a UcentralLink, adoption, configuration by uuid, live state and stations, commands.
 * Everything a device sends is parsed (frame limits, schema) before it is used, and must name
 * the serial its certificate proved.
 */
export class WirelessController {
  /** Sessions whose `connect` arrived, by serial: one per device. */
  private readonly sessions = new Map<string, DeviceSession>();
  /** Links attached that have not sent `connect` yet. */
  private readonly handshaking = new Set<DeviceSession>();
  private readonly configs = new PreparedConfigCache();
  private readonly timers: WirelessTimers;
  private readonly commandTimeoutMs: number;
  private nextId = 1;
  private sweepTimer: unknown = null;
  private sweeps = 0;
  private stopped = false;
  /** Store writes of message handlers, committed together once per turn of the event loop. */
  private writes: Array<() => void> = [];
  private flushScheduled = false;

  constructor(private readonly deps: WirelessControllerDeps) {
    this.timers = deps.timers ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };
    this.commandTimeoutMs = deps.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  /** Takes a new connection; the device's first message must be `connect`. */
  attach(link: UcentralLink): void {
    const serial = link.peerSerial.toLowerCase();
    if (this.stopped || !SERIAL_PATTERN.test(serial)) {
      link.close(LINK_CLOSE_POLICY, 'not accepted');
      return;
    }
    if (this.deps.store.get(serial)?.status === 'revoked') {
      this.note(serial, 'wireless.log.refusedRevoked', SEVERITY.warning, { address: link.remoteAddress });
      link.close(LINK_CLOSE_POLICY, 'revoked');
      return;
    }
    const session = new DeviceSession(serial, link, this.deps.now(), DEFAULT_STATE_INTERVAL_S * 1000);
    this.handshaking.add(session);
    link.onMessage((text) => this.receive(session, text));
    link.onClose(() => this.closed(session));
    this.armSweep();
  }

  // ---- management (the module's routes call these, not the store, so live sessions follow) ----

  /** Adopts a device into a group; an online one is configured at once. */
  adopt(serial: string, groupId: string, name?: string): boolean {
    const key = serial.toLowerCase();
    if (!SERIAL_PATTERN.test(key)) return false;
    this.flushWrites();
    this.deps.store.adopt(key, groupId, name);
    const session = this.sessions.get(key);
    if (session && !session.adopted) {
      session.adopted = true;
      session.loadConfigState(this.deps.store.get(key)!);
      this.reconcile(session);
    }
    this.deps.onChange?.(key);
    return true;
  }

  /** Moves an adopted device to another group and pushes that group's configuration. */
  bind(serial: string, groupId: string): boolean {
    const key = serial.toLowerCase();
    if (!this.deps.store.bind(key, groupId)) return false;
    const session = this.sessions.get(key);
    if (session?.adopted) this.reconcile(session);
    this.deps.onChange?.(key);
    return true;
  }

  rename(serial: string, name: string): boolean {
    const key = serial.toLowerCase();
    const done = this.deps.store.rename(key, name);
    if (done) this.deps.onChange?.(key);
    return done;
  }

  /** Refuses the device from now on; a live connection is cut at once. */
  revoke(serial: string): boolean {
    const key = serial.toLowerCase();
    this.flushWrites();
    if (!this.deps.store.revoke(key)) return false;
    const session = this.sessions.get(key);
    if (session) {
      this.note(key, 'wireless.log.revoked', SEVERITY.warning, {});
      this.drop(session, LINK_CLOSE_POLICY, 'revoked');
    }
    this.deps.onChange?.(key);
    return true;
  }

  /** Removes the device; if it connects again it is pending again. */
  forget(serial: string): boolean {
    const key = serial.toLowerCase();
    const session = this.sessions.get(key);
    if (session) this.drop(session, LINK_CLOSE_POLICY, 'forgotten');
    this.flushWrites();
    const done = this.deps.store.forget(key);
    if (done) this.deps.onChange?.(key);
    return done;
  }

  /**
   * Re-sends `configure` to the adopted, connected devices among `serials` whose configuration
   * changed (a group's settings were saved). Works in batches, yielding to the event loop
   * between them, so pushing to thousands of devices never blocks it for long.
   */
  async pushConfig(serials: Iterable<string>): Promise<{ sent: number; current: number; skipped: number }> {
    const list = Array.from(serials, (s) => s.toLowerCase());
    const counts = { sent: 0, current: 0, skipped: 0 };
    for (let start = 0; start < list.length; start += PUSH_BATCH) {
      for (let i = start; i < Math.min(list.length, start + PUSH_BATCH); i++) {
        const session = this.sessions.get(list[i]!);
        const outcome = session?.adopted && !session.closed ? this.reconcile(session) : 'none';
        counts[outcome === 'none' ? 'skipped' : outcome]++;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return counts;
  }

  // ---- live state ----

  live(serial: string): WirelessDeviceLive | undefined {
    return this.sessions.get(serial.toLowerCase())?.view();
  }

  isOnline(serial: string): boolean {
    return this.sessions.has(serial.toLowerCase());
  }

  onlineSerials(): string[] {
    return [...this.sessions.keys()];
  }

  /** Every station of every connected adopted device, one row per station. */
  stations(): WirelessStation[] {
    const rows: WirelessStation[] = [];
    for (const session of this.sessions.values()) for (const station of session.stationRows()) rows.push(station);
    return rows;
  }

  stationsOf(serial: string): WirelessStation[] {
    return this.sessions.get(serial.toLowerCase())?.stationRows() ?? [];
  }

  /** How many stations the connected devices have, without making their rows. */
  stationCount(): number {
    let count = 0;
    for (const session of this.sessions.values()) count += session.stationCount;
    return count;
  }

  // ---- commands ----

  /** Sends a command and resolves with its validated result. */
  async command<N extends WirelessCommandName>(serial: string, name: N, params: Omit<CommandParams<N>, 'serial'>): Promise<CommandResult<N>> {
    const key = serial.toLowerCase();
    const session = this.commandable(key);
    const spec = CONTROLLER_COMMANDS[name];
    const input = spec.params.safeParse({ ...params, serial: key });
    if (!input.success) throw new WirelessCommandError('badParams');
    const id = this.nextId++;
    const raw = await this.request(session, id, rpcRequest(id, name, input.data));
    const result = spec.result.safeParse(raw);
    if (!result.success) throw new WirelessCommandError('badResult');
    return result.data as CommandResult<N>;
  }

  /** Round trip to the device; resolves with its configuration id and clock. */
  ping(serial: string): Promise<CommandResult<'ping'>> {
    return this.command(serial, 'ping', {});
  }

  /** Reboots an AP; refused while it has been up for under an hour unless `force` (firmware path). */
  async reboot(serial: string, options: { force?: boolean } = {}): Promise<CommandStatus> {
    const session = this.commandable(serial.toLowerCase());
    if (!options.force && session.uptimeAt(this.deps.now()) < REBOOT_MIN_UPTIME_S) throw new WirelessCommandError('recentlyBooted');
    // Status 1: busy, but will reboot soon.
    return this.statusCommand(serial, 'reboot', {}, [0, 1]);
  }

  /** Blinks the LEDs so the AP can be found (PROTOCOL.md: duration in milliseconds). */
  blink(serial: string, durationMs = 30_000): Promise<CommandStatus> {
    return this.statusCommand(serial, 'leds', { pattern: 'blink', duration: durationMs });
  }

  upgrade(serial: string, uri: string, signature?: string): Promise<CommandStatus> {
    return this.statusCommand(serial, 'upgrade', signature === undefined ? { uri } : { uri, FWsignature: signature });
  }

  factory(serial: string, options: { keepRedirector?: boolean } = {}): Promise<CommandStatus> {
    return this.statusCommand(serial, 'factory', { keep_redirector: options.keepRedirector ? 1 : 0 });
  }

  /** Asks for a state report now (it arrives as a `state` event). */
  requestState(serial: string): Promise<CommandStatus> {
    return this.statusCommand(serial, 'request', { message: 'state' });
  }

  /** Scans the air; the result is kept as the device's last scan (channel planning reads it). */
  async scan(serial: string, options: Omit<CommandParams<'wifiscan'>, 'serial'> = {}): Promise<readonly ScanEntry[]> {
    const result = await this.command(serial, 'wifiscan', options);
    if (result.status.error !== 0) throw new WirelessCommandError('refused', { code: result.status.error, text: result.status.text });
    const session = this.sessions.get(serial.toLowerCase());
    if (session) session.lastScan = { at: this.deps.now(), entries: result.scan };
    return result.scan;
  }

  /** Closes every link and stops every timer; store writes still queued are committed. */
  stop(): void {
    this.stopped = true;
    if (this.sweepTimer !== null) this.timers.clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    for (const session of [...this.handshaking, ...this.sessions.values()]) this.drop(session, LINK_CLOSE_NORMAL, 'controller stopping');
    this.flushWrites();
  }

  // ---- messages ----

  private receive(session: DeviceSession, text: string): void {
    if (session.closed) return;
    try {
      this.handle(session, text);
    } catch (error) {
      this.deps.onError?.(error);
      this.note(session.serial, 'wireless.log.internalError', SEVERITY.error, {});
      this.drop(session, LINK_CLOSE_INTERNAL, 'internal error');
    }
  }

  private handle(session: DeviceSession, text: string): void {
    const frame = parseRpcFrame(text);
    if ('fault' in frame) return this.fault(session, frame.fault);
    session.lastMessageAt = this.deps.now();
    const method = frame.kind === 'notification' || frame.kind === 'request' ? frame.method : '';
    if (!session.connected && method !== 'connect') {
      this.note(session.serial, 'wireless.log.connectFirst', SEVERITY.warning, { method: method || frame.kind });
      return this.drop(session, LINK_CLOSE_POLICY, 'connect first');
    }
    if (frame.kind === 'result' || frame.kind === 'error') return this.answer(session, frame);

    let params = frame.params;
    if (isRecord(params) && 'compress_64' in params) {
      const inflated = inflateParams(params);
      if ('fault' in inflated) return this.fault(session, inflated.fault);
      params = inflated.value;
    }
    if (!this.sameSerial(session, params)) return;
    if (session.connected && method === 'connect') return this.drop(session, LINK_CLOSE_PROTOCOL_ERROR, 'second connect');
    if (!isDeviceEventName(method)) {
      if (frame.kind === 'request') session.link.send(rpcError(frame.id, RPC_METHOD_NOT_FOUND, 'method not found'));
      return;
    }
    // A device awaiting adoption is only kept alive: nothing it reports is used.
    if (session.connected && !session.adopted) return;
    const parsed = DEVICE_EVENTS[method].safeParse(params);
    if (!parsed.success) return this.invalid(session, method);
    (this.handlers[method] as (s: DeviceSession, e: unknown) => void)(session, parsed.data);
  }

  /** Every message names the serial of the certificate the link was opened with. */
  private sameSerial(session: DeviceSession, params: unknown): boolean {
    const claimed = isRecord(params) && typeof params.serial === 'string' ? params.serial.toLowerCase() : '';
    if (claimed === session.serial) return true;
    this.note(session.serial, 'wireless.log.serialMismatch', SEVERITY.error, { claimed: SERIAL_PATTERN.test(claimed) ? claimed : '' });
    this.drop(session, LINK_CLOSE_POLICY, 'serial mismatch');
    return false;
  }

  private fault(session: DeviceSession, fault: FrameFault): void {
    this.note(session.serial, 'wireless.log.frameFault', SEVERITY.error, { fault });
    this.drop(session, FAULT_CLOSE[fault], fault);
  }

  /** A report that failed its schema is dropped (a hostile station name must not cut the AP off), logged once per connection. */
  private invalid(session: DeviceSession, method: DeviceEventName): void {
    if (method === 'connect') return this.drop(session, LINK_CLOSE_PROTOCOL_ERROR, 'invalid connect');
    const bit = EVENT_BITS[method];
    if (session.invalidLogged & bit) return;
    session.invalidLogged |= bit;
    this.note(session.serial, 'wireless.log.invalidReport', SEVERITY.warning, { method });
  }

  private answer(session: DeviceSession, frame: Extract<RpcFrame, { kind: 'result' | 'error' }>): void {
    if (frame.kind === 'result' && isRecord(frame.result) && 'serial' in frame.result && !this.sameSerial(session, frame.result)) return;
    const pending = session.pending?.get(frame.id);
    if (!pending) return;
    session.pending!.delete(frame.id);
    this.timers.clearTimeout(pending.timer);
    if (frame.kind === 'result') pending.resolve(frame.result);
    else pending.reject(new WirelessCommandError('refused', { code: frame.code, text: frame.message }));
  }

  private readonly handlers: EventHandlers = {
    connect: (session, event) => this.connected(session, event),
    state: (session, event) => {
      session.applyState(event.state, this.deps.now());
      this.reported(session, event.uuid);
      this.maybeSend(session);
    },
    ping: (session, event) => {
      this.reported(session, event.uuid);
      this.maybeSend(session);
    },
    healthcheck: (session, event) => {
      session.sanity = event.sanity;
      session.healthAt = this.deps.now();
      this.reported(session, event.uuid);
    },
    cfgpending: (session, event) => {
      session.pendingUuid = event.uuid;
      this.reported(session, event.active);
      this.note(session.serial, 'wireless.log.configPending', SEVERITY.info, { uuid: event.uuid, active: event.active });
    },
    log: (session, event) => this.deviceLog(session.serial, event.severity, event.log),
    crashlog: (session, event) => {
      for (const line of event.loglines) this.deviceLog(session.serial, SEVERITY.critical, line);
    },
    wifiscan: (session, event) => {
      session.lastScan = { at: this.deps.now(), entries: event.data.scan };
    },
    event: (session, event) => {
      const [, body] = event.data.event;
      this.deviceLog(session.serial, SEVERITY.info, `${body.type} ${boundedJson(body.payload, 1024)}`);
    },
  };

  private connected(session: DeviceSession, event: DeviceEvent<'connect'>): void {
    const { serial } = session;
    const now = this.deps.now();
    const record = this.deps.store.get(serial);
    if (record?.status === 'revoked') {
      this.note(serial, 'wireless.log.refusedRevoked', SEVERITY.warning, { address: session.link.remoteAddress });
      return this.drop(session, LINK_CLOSE_POLICY, 'revoked');
    }
    const previous = this.sessions.get(serial);
    if (previous) {
      this.note(serial, 'wireless.log.replaced', SEVERITY.notice, { address: previous.link.remoteAddress });
      this.drop(previous, LINK_CLOSE_POLICY, 'replaced by a new connection');
    }
    this.handshaking.delete(session);
    this.sessions.set(serial, session);
    session.connected = true;
    session.connectedAt = now;
    session.seenWritten = now;
    session.firmware = event.firmware;
    session.bands = [...new Set(Object.values(event.capabilities.wifi ?? {}).flatMap((phy) => phy.band))];
    session.adopted = record?.status === 'adopted';
    const seen = {
      serial,
      kind: kindOf(event.capabilities.platform),
      model: event.capabilities.model ?? event.capabilities.compatible ?? '',
      firmware: event.firmware,
      address: session.link.remoteAddress,
      at: now,
    };
    this.write(() => this.deps.store.recordConnect(seen));
    this.reported(session, event.uuid);
    if (record && session.adopted) {
      session.loadConfigState(record);
      this.note(serial, 'wireless.log.connected', SEVERITY.info, { address: seen.address, firmware: seen.firmware });
      this.reconcile(session);
    } else {
      this.note(serial, 'wireless.log.pendingAdoption', SEVERITY.notice, { address: seen.address, model: seen.model });
    }
    this.deps.onChange?.(serial);
  }

  /** The device said which configuration it runs. */
  private reported(session: DeviceSession, uuid: number): void {
    session.reportedUuid = uuid;
    if (session.pendingUuid === uuid) session.pendingUuid = null;
    if (uuid === session.desiredUuid && session.desired) session.stateIntervalMs = session.desired.stateIntervalMs;
    if (uuid !== session.appliedWritten) {
      session.appliedWritten = uuid;
      const { serial } = session;
      this.write(() => this.deps.store.recordApplied(serial, uuid));
    }
  }

  // ---- configuration ----

  /**
   * Brings the device's desired configuration up to date with configFor: a changed content
   * gets the next uuid of the device's counter. Sends it when the device runs another.
   */
  private reconcile(session: DeviceSession): 'sent' | 'current' | 'none' {
    const body = this.deps.configFor(session.serial);
    if (!body) {
      session.desired = null;
      return 'none';
    }
    const prepared = this.configs.prepare(body);
    if (!prepared.ok) {
      this.note(session.serial, 'wireless.log.configInvalid', SEVERITY.error, { field: prepared.field });
      return 'none';
    }
    const config = prepared.config;
    if (config.digest !== session.desiredDigest) {
      // Above what the device runs too, so it always sees a new version.
      const uuid = Math.max(session.desiredUuid, session.reportedUuid) + 1;
      session.desiredUuid = uuid;
      session.desiredDigest = config.digest;
      const { serial } = session;
      this.write(() => this.deps.store.setDesiredConfig(serial, uuid, config.digest));
    }
    session.desired = config;
    // Until the device runs it, it may still report at its old interval.
    session.stateIntervalMs =
      session.reportedUuid === session.desiredUuid ? config.stateIntervalMs : Math.max(session.stateIntervalMs, config.stateIntervalMs);
    return this.maybeSend(session) ? 'sent' : 'current';
  }

  private maybeSend(session: DeviceSession): boolean {
    const { desired, desiredUuid: uuid } = session;
    if (!desired || !session.adopted || session.closed) return false;
    if (session.reportedUuid === uuid || session.pendingUuid === uuid || session.sentUuid === uuid || session.refusedUuid === uuid) return false;
    session.sentUuid = uuid;
    const id = this.nextId++;
    this.request(session, id, configureRequest(id, session.serial, uuid, desired)).then(
      (raw) => this.configured(session, uuid, raw),
      (error: unknown) => {
        // No answer: try again with the next report. Offline: again at the next connection.
        if (session.sentUuid === uuid) session.sentUuid = 0;
        if (error instanceof WirelessCommandError && error.code === 'timeout') {
          this.note(session.serial, 'wireless.log.configNoAnswer', SEVERITY.warning, { uuid });
        }
      },
    );
    return true;
  }

  private configured(session: DeviceSession, uuid: number, raw: unknown): void {
    const { serial } = session;
    const parsed = CONTROLLER_COMMANDS.configure.result.safeParse(raw);
    if (!parsed.success || parsed.data.uuid !== uuid) {
      if (session.sentUuid === uuid) session.sentUuid = 0;
      return this.note(serial, 'wireless.log.invalidReport', SEVERITY.warning, { method: 'configure' });
    }
    const status = parsed.data.status;
    const reasons: ConfigRejection[] = status.rejected.map((r) => ({
      parameter: boundedJson(r.parameter),
      reason: r.reason,
      ...(r.substitution === undefined ? {} : { substitution: boundedJson(r.substitution) }),
    }));
    const values = { uuid, count: reasons.length, reason: reasons[0]?.reason ?? '' };
    if (status.error === CONFIG_APPLIED || status.error === CONFIG_APPLIED_WITH_CHANGES) {
      const outcome = status.error === CONFIG_APPLIED ? 'applied' : 'appliedWithChanges';
      this.write(() => this.deps.store.recordConfigOutcome(serial, uuid, outcome, reasons));
      this.reported(session, uuid);
      const key = outcome === 'applied' ? 'wireless.log.configApplied' : 'wireless.log.configAppliedWithChanges';
      this.note(serial, key, outcome === 'applied' ? SEVERITY.info : SEVERITY.notice, values);
    } else {
      // Rejected (2, or a code the protocol does not define): the device keeps its old configuration.
      session.refusedUuid = uuid;
      this.write(() => this.deps.store.recordConfigOutcome(serial, uuid, 'rejected', reasons));
      this.note(serial, 'wireless.log.configRejected', SEVERITY.error, values);
    }
    this.deps.onChange?.(serial);
  }

  // ---- requests ----

  private commandable(serial: string): DeviceSession {
    const session = this.sessions.get(serial);
    if (session) {
      if (!session.adopted) throw new WirelessCommandError('notAdopted');
      return session;
    }
    const record = this.deps.store.get(serial);
    if (!record) throw new WirelessCommandError('notFound');
    throw new WirelessCommandError(record.status === 'adopted' ? 'offline' : 'notAdopted');
  }

  private async statusCommand<N extends StatusCommandName>(
    serial: string,
    name: N,
    params: Omit<CommandParams<N>, 'serial'>,
    accepted: readonly number[] = [0],
  ): Promise<CommandStatus> {
    const result = (await this.command(serial, name, params)) as { status: CommandStatus };
    if (!accepted.includes(result.status.error)) throw new WirelessCommandError('refused', { code: result.status.error, text: result.status.text });
    return result.status;
  }

  private request(session: DeviceSession, id: number, text: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        session.pending?.delete(id);
        reject(new WirelessCommandError('timeout'));
      }, this.commandTimeoutMs);
      (session.pending ??= new Map()).set(id, { resolve, reject, timer });
      session.link.send(text);
    });
  }

  // ---- connection end, liveness ----

  private drop(session: DeviceSession, code: number, reason: string): void {
    session.link.close(code, reason);
    this.closed(session);
  }

  private closed(session: DeviceSession): void {
    if (session.closed) return;
    session.closed = true;
    this.handshaking.delete(session);
    if (session.pending) {
      for (const pending of session.pending.values()) {
        this.timers.clearTimeout(pending.timer);
        pending.reject(new WirelessCommandError('offline'));
      }
      session.pending = null;
    }
    if (this.sessions.get(session.serial) !== session) return;
    this.sessions.delete(session.serial);
    const { serial, lastMessageAt } = session;
    this.write(() => this.deps.store.recordSeen([[serial, lastMessageAt]]));
    this.note(serial, 'wireless.log.disconnected', SEVERITY.notice, {});
    this.deps.onChange?.(serial);
  }

  private armSweep(): void {
    if (this.sweepTimer !== null || this.stopped) return;
    this.sweepTimer = this.timers.setTimeout(() => this.sweep(), SWEEP_MS);
  }

  /** Closes links silent for MISSED_INTERVALS state intervals; writes last seen times once a minute. */
  private sweep(): void {
    this.sweepTimer = null;
    const now = this.deps.now();
    const flushSeen = ++this.sweeps % SEEN_FLUSH_SWEEPS === 0;
    const seen: Array<[string, number]> = [];
    const silent = (session: DeviceSession) => now - session.lastMessageAt > MISSED_INTERVALS * session.stateIntervalMs;
    for (const session of this.handshaking) if (silent(session)) this.drop(session, LINK_CLOSE_POLICY, 'no connect');
    for (const session of this.sessions.values()) {
      if (silent(session)) {
        this.note(session.serial, 'wireless.log.silent', SEVERITY.warning, { seconds: Math.round((now - session.lastMessageAt) / 1000) });
        this.drop(session, LINK_CLOSE_NORMAL, 'silent');
      } else if (flushSeen && session.lastMessageAt !== session.seenWritten) {
        session.seenWritten = session.lastMessageAt;
        seen.push([session.serial, session.lastMessageAt]);
      }
    }
    if (seen.length > 0) this.write(() => this.deps.store.recordSeen(seen));
    if (this.handshaking.size > 0 || this.sessions.size > 0) this.armSweep();
  }

  // ---- store writes, log ----

  private write(change: () => void): void {
    this.writes.push(change);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushWrites(WRITES_PER_TRANSACTION);
      if (this.writes.length > 0) this.scheduleFlush();
    });
  }

  /**
   * Commits queued writes, at most `limit` in one transaction (a connection storm queues tens of
   * thousands in one turn; committing them all at once would block the event loop). Management
   * calls flush everything first, as they read or change the same rows.
   */
  private flushWrites(limit = Infinity): void {
    while (this.writes.length > 0 && limit > 0) {
      const writes = this.writes.splice(0, Math.min(limit, WRITES_PER_TRANSACTION));
      limit -= writes.length;
      try {
        this.deps.store.batch(() => {
          for (const change of writes) change();
        });
      } catch (error) {
        this.deps.onError?.(error);
      }
    }
  }

  private note(serial: string, key: WirelessLogKey, severity: number, values: Record<string, string | number>): void {
    this.deps.onLog?.({ source: 'controller', serial, severity, time: this.deps.now(), key, values });
  }

  private deviceLog(serial: string, severity: number, text: string): void {
    this.deps.onLog?.({ source: 'device', serial, severity, time: this.deps.now(), text });
  }
}
