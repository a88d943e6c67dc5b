import { z } from 'zod';
import { statusPagingQuery } from '../status/status-network-types.js';
import { SERIAL_PATTERN } from '../ucentral/ucentral-jsonrpc.js';

/** A device serial as the console and API name it (the protocol's SERIAL_PATTERN). */
export const deviceSerialField = () => z.string().regex(SERIAL_PATTERN, { error: 'validation.wireless.serial' });
/** The devices one command or rollout names. */
const deviceSerials = () => z.array(deviceSerialField()).min(1, { error: 'validation.required' }).max(10_000);

/*
 * What the wireless controller's routes answer and accept (spec §7 `ac`, `ac/*`). Device text
 * (names a device reports, host names, SSIDs heard in scans) is untrusted and shown as text.
 */

const count = () => z.number().int().nonnegative();
/** ms since the epoch; null when never. */
const instant = () => z.number().int().nonnegative().nullable();

export const DEVICE_KINDS = ['ap', 'cpe'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];
/** pending: connected, waiting to be adopted; adopted: managed; revoked: refused until forgotten. */
export const DEVICE_STATUSES = ['pending', 'adopted', 'revoked'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];
/** How the device took its last configuration (uCentral configure result 0, 1, 2). */
export const CONFIG_OUTCOMES = ['applied', 'appliedWithChanges', 'rejected'] as const;
export type ConfigOutcome = (typeof CONFIG_OUTCOMES)[number];
/** Spec §4: a device whose health check is below this is abnormal. */
export const DEVICE_HEALTH_NORMAL_MIN = 80;

export const DEVICE_SORTS = ['name', 'serial', 'status', 'lastSeen', 'group'] as const;

export const deviceListQuerySchema = z.object({
  kind: z.enum(DEVICE_KINDS, { error: 'validation.option' }).default('ap'),
  status: z.enum(['all', ...DEVICE_STATUSES], { error: 'validation.option' }).default('all'),
  sort: z.enum(DEVICE_SORTS, { error: 'validation.option' }).default('name'),
  order: z.enum(['asc', 'desc'], { error: 'validation.option' }).default('asc'),
  ...statusPagingQuery,
});
export type DeviceListQuery = z.infer<typeof deviceListQuerySchema>;

export const radioSummarySchema = z.object({ band: z.enum(['2G', '5G']), channel: z.number().int(), width: z.number().int().nullable(), txPower: z.number().int().nullable() });

export const deviceRowSchema = z.object({
  serial: z.string(),
  name: z.string(),
  kind: z.enum(DEVICE_KINDS),
  model: z.string(),
  firmware: z.string(),
  status: z.enum(DEVICE_STATUSES),
  group: z.string().nullable(),
  groupName: z.string().nullable(),
  online: z.boolean(),
  /** Health check 0-100 (§4 normal at 80 and above); null before the first check. */
  sanity: z.number().int().min(0).max(100).nullable(),
  address: z.string(),
  lastSeen: instant(),
  uptime: count().nullable(),
  stations: count(),
  radios: z.array(radioSummarySchema),
  configOutcome: z.enum(CONFIG_OUTCOMES).nullable(),
  /** The device runs an older configuration than the one it was sent. */
  configPending: z.boolean(),
  /** Why it changed or refused parts of its configuration: `ucentral.*` keys, or the device's own words. */
  configReasons: z.array(z.string()),
});
export type DeviceRow = z.infer<typeof deviceRowSchema>;

export const deviceListSchema = z.object({
  items: z.array(deviceRowSchema),
  total: count(),
  counts: z.object({ pending: count(), adopted: count(), revoked: count(), online: count() }),
});
export type DeviceList = z.infer<typeof deviceListSchema>;

export const stationRowSchema = z.object({
  serial: z.string(),
  device: z.string(),
  ssid: z.string(),
  bssid: z.string(),
  band: z.enum(['2G', '5G']).nullable(),
  mac: z.string(),
  hostname: z.string(),
  /** null: a station on a wired 802.1X port, which has no signal. */
  rssi: z.number().int().nullable(),
  rxRate: z.number().nullable(),
  txRate: z.number().nullable(),
  rxBytes: count(),
  txBytes: count(),
  /** Seconds associated. */
  connected: count(),
});
export type StationRow = z.infer<typeof stationRowSchema>;

export const stationListQuerySchema = z.object({
  serial: z.string().max(12).default(''),
  kind: z.enum(DEVICE_KINDS, { error: 'validation.option' }).default('ap'),
  ...statusPagingQuery,
});
export const stationListSchema = z.object({ items: z.array(stationRowSchema), total: count() });
export type StationList = z.infer<typeof stationListSchema>;

/** The wireless status page (spec §2 /wirelessmanage/wirelessstatus). */
export const wirelessSummarySchema = z.object({
  devices: z.object({ total: count(), online: count(), offline: count(), pending: count(), abnormal: count() }),
  stations: z.object({ total: count(), band2g: count(), band5g: count() }),
  /** APs and stations per channel in use. */
  channels: z.array(z.object({ band: z.enum(['2G', '5G']), channel: z.number().int(), devices: count(), stations: count() })),
  /** The most loaded devices. */
  busiest: z.array(z.object({ serial: z.string(), name: z.string(), stations: count() })),
});
export type WirelessSummary = z.infer<typeof wirelessSummarySchema>;

/** Commands on devices (spec §7 POST ac/apcmd and ac/cpecmd). */
export const DEVICE_COMMANDS = ['adopt', 'bind', 'rename', 'reboot', 'blink', 'scan', 'forget', 'revoke', 'push'] as const;
export type DeviceCommand = (typeof DEVICE_COMMANDS)[number];

export const deviceCommandSchema = z
  .object({
    action: z.enum(DEVICE_COMMANDS, { error: 'validation.option' }),
    serials: deviceSerials(),
    group: z.string().max(64).optional(),
    name: z.string().max(32).optional(),
  })
  .strict();
export type DeviceCommandBody = z.infer<typeof deviceCommandSchema>;

/** Per device, what a command did: done, or the reason it was not done. */
export const COMMAND_REFUSALS = ['offline', 'notAdopted', 'timeout', 'refused', 'badResult', 'uptimeUnderHour', 'unknownDevice', 'unknownGroup', 'mixedRadios'] as const;
export type CommandRefusal = (typeof COMMAND_REFUSALS)[number];
export const deviceCommandResultSchema = z.object({
  done: z.array(z.string()),
  refused: z.array(z.object({ serial: z.string(), reason: z.enum(COMMAND_REFUSALS) })),
});
export type DeviceCommandResult = z.infer<typeof deviceCommandResultSchema>;

/** A network a device heard in its last scan (spec §7 ac/scanresult). */
export const scanRowSchema = z.object({
  serial: z.string(),
  bssid: z.string(),
  ssid: z.string(),
  channel: z.number().int(),
  width: z.number().int(),
  signal: z.number().int(),
  /** The BSS belongs to a device this controller manages. */
  managed: z.boolean(),
});
export type ScanRow = z.infer<typeof scanRowSchema>;

/**
 * The topology pages (spec §2 /wirelessmanage/topology, /cpemanage/cpetopology): the gateway,
 * the devices and how they hang together. APs hang off the gateway by wire; a CPE receiver
 * hangs off the base whose link it joined, with the link's signal.
 */
export const topologySchema = z.object({
  nodes: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['gateway', 'ap', 'cpe']),
      name: z.string(),
      online: z.boolean(),
      /** CPE mode; null for the gateway and APs. */
      role: z.enum(['base', 'receiver']).nullable(),
      stations: count(),
    }),
  ),
  links: z.array(z.object({ from: z.string(), to: z.string(), medium: z.enum(['wired', 'wireless']), signal: z.number().int().nullable() })),
});
export type Topology = z.infer<typeof topologySchema>;
export const GATEWAY_NODE_ID = 'gateway';

/** Channel planning (spec §4; /wirelessmanage/wifiplaning, `ac/startscan`, `ac/scanresult`). */
export const PLANNING_STATES = ['idle', 'allOffline', 'scanning', 'scanFailed', 'optimising', 'planFailed', 'planned', 'saving', 'saved', 'cancelled'] as const;
export type PlanningState = (typeof PLANNING_STATES)[number];
export const PLANNING_ACTIONS = ['start', 'cancel', 'save'] as const;

export const planningViewSchema = z.object({
  state: z.enum(PLANNING_STATES),
  progress: z.object({ done: count(), total: count() }),
  /** Devices whose scan failed or timed out ("some AP scans failed"). */
  failed: z.array(z.object({ serial: z.string(), name: z.string() })),
  offline: count(),
  startedAt: instant(),
  finishedAt: instant(),
  error: z.string().nullable(),
  plan: z
    .object({
      scoreBefore: z.number(),
      scoreAfter: z.number(),
      aps: z.array(
        z.object({
          serial: z.string(),
          name: z.string(),
          radios: z.array(
            z.object({ band: z.enum(['2g', '5g']), channel: z.number().int(), width: z.number().int(), previousChannel: z.number().int(), previousWidth: z.number().int() }),
          ),
        }),
      ),
    })
    .nullable(),
});
export type PlanningView = z.infer<typeof planningViewSchema>;

/** AP firmware (spec §2 /wirelessmanage/firmware, §7 ac/firmware): keys, images, the rollout. */
export const FIRMWARE_ACTIONS = ['addkey', 'delkey', 'delete', 'rollout', 'cancel'] as const;
export const FIRMWARE_REFUSALS = ['keyInvalid', 'keyExists', 'signatureInvalid', 'notSigned', 'tooLarge', 'exists', 'inUse', 'notFound', 'rolloutRunning', 'noTargets'] as const;
export type FirmwareRefusalCode = (typeof FIRMWARE_REFUSALS)[number];

const text64 = () => z.string().trim().min(1, { error: 'validation.required' }).max(64, { error: 'validation.text.length' }).regex(/^[\x20-\x7e]+$/, { error: 'validation.wireless.printable' });

export const firmwareUploadFieldsSchema = z.object({
  model: text64(),
  version: text64(),
  signature: z.string().trim().regex(/^[A-Za-z0-9+/]{86}==$/, { error: 'validation.wireless.signature' }),
});

export const firmwareActionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('addkey'), name: text64(), pem: z.string().min(1, { error: 'validation.required' }).max(4096, { error: 'validation.text.length' }) }),
  z.object({ action: z.literal('delkey'), id: z.string().min(1).max(64) }),
  z.object({ action: z.literal('delete'), id: z.string().min(1).max(64) }),
  z.object({
    action: z.literal('rollout'),
    id: z.string().min(1).max(64),
    serials: deviceSerials(),
    canary: z.number().int().min(0).max(100).default(1),
    waves: z.array(z.number().int().min(1).max(100)).min(1).max(10).default([10, 50, 100]),
    /** Seconds the upgraded APs are watched after each wave before the next one starts. */
    soak: z.number().int().min(0).max(86_400).default(120),
    /** Seconds an AP sent the upgrade has to come back on the new version before it is rolled back. */
    deadline: z.number().int().min(30).max(86_400).default(600),
  }),
  z.object({ action: z.literal('cancel') }),
]);

export const firmwareViewSchema = z.object({
  keys: z.array(z.object({ id: z.string(), name: z.string(), fingerprint: z.string(), addedAt: z.number() })),
  images: z.array(z.object({ id: z.string(), model: z.string(), version: z.string(), size: count(), sha256: z.string(), keyId: z.string(), uploadedAt: z.number() })),
  rollout: z
    .object({
      state: z.enum(['pending', 'running', 'halted', 'done', 'cancelled']),
      model: z.string(),
      version: z.string(),
      wave: count(),
      waves: count(),
      failures: count(),
      haltReason: z.string().nullable(),
      aps: z.array(z.object({ serial: z.string(), name: z.string(), status: z.string(), wave: z.number().int().nullable(), version: z.string() })),
    })
    .nullable(),
});
export type FirmwareView = z.infer<typeof firmwareViewSchema>;
