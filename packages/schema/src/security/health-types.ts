import { z } from 'zod';
import { HEALTH_MONITOR_INTERVAL } from '../constants/security-defaults.js';

/*
 * Security → health monitoring and examination (spec §2 /security/health, /security/examination;
 * §3 "Health report"; §4 health check results; §7 `sysconf/health`, `sysconf/check`; §8 health
 * findings). These describe daemon answers. Whatever a finding carries came from the wire, so
 * the daemon keeps only addresses it formatted itself (dotted IPv4, colon MAC).
 */

/** What the health monitor finds on a LAN (spec §8). */
export const HEALTH_FINDING_KINDS = ['dhcpServer', 'pppoeServer', 'loop', 'ipConflict'] as const;
export type HealthFindingKind = (typeof HEALTH_FINDING_KINDS)[number];

const count = () => z.number().int().nonnegative();
const percent = () => z.number().min(0).max(100);
const ms = () => z.number().int().nonnegative();

export const healthFindingSchema = z.object({
  kind: z.enum(HEALTH_FINDING_KINDS),
  /** The configured interface (e.g. `lan`) the finding is on. */
  interface: z.string(),
  /** For a loop: the port the probe came back in on; else empty. */
  port: z.string(),
  /** The other DHCP server's address, or the address in conflict; empty for PPPoE and loops. */
  ip: z.string(),
  /** The other server's or the conflicting holder's MAC; empty for loops. */
  mac: z.string(),
  /** A conflict between two other devices: the second MAC claiming `ip`; else empty. */
  otherMac: z.string(),
  firstSeen: ms(),
  lastSeen: ms(),
});
export type HealthFinding = z.infer<typeof healthFindingSchema>;

export const healthEventSchema = z.object({
  id: count(),
  time: ms(),
  kind: z.enum(HEALTH_FINDING_KINDS),
  interface: z.string(),
  port: z.string(),
  ip: z.string(),
  mac: z.string(),
  otherMac: z.string(),
});
export type HealthEvent = z.infer<typeof healthEventSchema>;

export const healthDiskSchema = z.object({ partition: z.string(), total: count(), used: count(), free: count(), usage: percent() });
export const healthMemorySchema = z.object({ total: count(), used: count(), cache: count(), free: count(), usage: percent() });
export const healthNetworkSchema = z.object({
  /** The WAN whose upstream DNS server was asked. */
  interface: z.string(),
  domain: z.string(),
  server: z.string(),
  /** Milliseconds; null when there was no answer. */
  dnsTime: ms().nullable(),
  httpTime: ms().nullable(),
});
export const healthLinkSchema = z.object({
  interface: z.string(),
  device: z.string(),
  /** Bytes per second over the last interval. */
  rxRate: count(),
  txRate: count(),
  /** Counters since 0:00 today (spec §9); packet counters are null where the driver cannot read them. */
  rxBytes: count(),
  txBytes: count(),
  rxPackets: count().nullable(),
  txPackets: count().nullable(),
  rxDropped: count().nullable(),
  txDropped: count().nullable(),
  since: ms(),
});
export type HealthLink = z.infer<typeof healthLinkSchema>;

/** Whether the LAN probes run: `unsupported` where the driver has no packet access (sim). */
export const HEALTH_PROBE_STATES = ['running', 'unsupported'] as const;

export const healthReportSchema = z
  .object({
    interval: z.literal(HEALTH_MONITOR_INTERVAL),
    probes: z.enum(HEALTH_PROBE_STATES),
    /** When the last monitoring round ended; null before the first. */
    sampled: ms().nullable(),
    disk: z.array(healthDiskSchema),
    memory: healthMemorySchema.nullable(),
    network: z.array(healthNetworkSchema),
    links: z.array(healthLinkSchema),
    findings: z.array(healthFindingSchema),
    events: z.object({ items: z.array(healthEventSchema), total: count() }),
  })
  .meta({ id: 'HealthReport' });
export type HealthReport = z.infer<typeof healthReportSchema>;

/** Results of a health check item (spec §4). */
export const CHECK_RESULTS = ['ok', 'fail', 'warning', 'unknown'] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];

/**
 * The items of the routing health check and the state each reports (spec §4): its label is
 * `healthCheck.item.<key>`, its state `healthCheck.state.<state>`.
 */
export const CHECK_ITEMS = ['line', 'ipv6', 'sdlan', 'disk', 'memory', 'dns', 'http', 'dhcpServer', 'pppoeServer', 'loop', 'ipConflict'] as const;
export type CheckItemKey = (typeof CHECK_ITEMS)[number];
export const CHECK_STATES = [
  'lineOk',
  'lineInterrupted',
  'ipv6Running',
  'ipv6NotObtained',
  'sdlanNotEnabled',
  'diskInUse',
  'diskUnused',
  'diskAlmostFull',
  'memoryOk',
  'memoryHigh',
  'answered',
  'noAnswer',
  'noUpstream',
  'none',
  'found',
  'notProbed',
] as const;
export type CheckState = (typeof CHECK_STATES)[number];

export const CHECK_MODES = ['full', 'quick'] as const;
export type CheckMode = (typeof CHECK_MODES)[number];

export const checkItemSchema = z.object({
  key: z.enum(CHECK_ITEMS),
  result: z.enum(CHECK_RESULTS),
  state: z.enum(CHECK_STATES),
  /** The item's subject (a WAN's name, a partition), shown beside it; empty for none. */
  subject: z.string(),
  /** A measured value the state speaks of (milliseconds, percent, a count); null for none. */
  value: z.number().nullable(),
});
export type CheckItem = z.infer<typeof checkItemSchema>;

export const healthCheckSchema = z
  .object({
    running: z.boolean(),
    mode: z.enum(CHECK_MODES).nullable(),
    started: ms().nullable(),
    finished: ms().nullable(),
    /** Whether the last check was stopped before its end. */
    stopped: z.boolean(),
    /** Items found so far, in check order: one step may give several (a line per WAN). */
    items: z.array(checkItemSchema),
    /** Steps of this check done, of `total`. */
    done: count(),
    total: count(),
  })
  .meta({ id: 'HealthCheck' });
export type HealthCheck = z.infer<typeof healthCheckSchema>;

/** POST sysconf/check: start a full or quick check (again), stop the running one, or read it. */
export const healthCheckCommandSchema = z.discriminatedUnion(
  'action',
  [
    z.object({ action: z.literal('get') }).strict(),
    z.object({ action: z.literal('start'), mode: z.enum(CHECK_MODES, { error: 'validation.option' }) }).strict(),
    z.object({ action: z.literal('stop') }).strict(),
  ],
  { error: 'validation.option' },
);
