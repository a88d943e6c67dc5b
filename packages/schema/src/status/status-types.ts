import { z } from 'zod';
import { CHART_RANGE_KEYS, CHART_RANGES, type ChartRange } from '../constants/chart-ranges.js';

/*
 * Live status data (spec §3 "Dashboard" and "Statistics"): what the dashboard, the monitoring
 * pages and the load charts read. These schemas describe daemon answers, so they are lenient
 * about text (host names come from the network and may hold anything) and strict about numbers.
 */

/**
 * Sample step of each chart range in seconds (spec §9 ranges). Each series holds
 * span / step points: 60 to 180, enough for a smooth line and small enough to send every poll.
 */
export const CHART_RANGE_STEPS: { readonly [K in ChartRange]: number } = {
  '5m': 5,
  '30m': 15,
  '1h': 30,
  '24h': 600,
  '1w': 3600,
  '1mo': 14400,
};

/** Number of points a complete series of this range holds. */
export function chartRangePointCount(range: ChartRange): number {
  return CHART_RANGES[range] / CHART_RANGE_STEPS[range];
}

export const chartRangeSchema = z.enum(CHART_RANGE_KEYS as [ChartRange, ...ChartRange[]], { error: 'validation.option' });

const percent = () => z.number().min(0).max(100);
const count = () => z.number().int().nonnegative();
/** Byte counters and byte rates (bytes per second). */
const bytes = () => z.number().int().nonnegative();
const seconds = () => z.number().int().nonnegative();
/** Device local time with its UTC offset, e.g. 2025-03-01T21:04:05+08:00. */
const localTime = () => z.iso.datetime({ offset: true });

export const INTERFACE_ROLES = ['lan', 'wan', 'bond'] as const;
export type InterfaceRole = (typeof INTERFACE_ROLES)[number];
export const LINK_STATES = ['up', 'down'] as const;
export type LinkState = (typeof LINK_STATES)[number];
export const INTERFACE_PROTOS = ['static', 'dhcp', 'pppoe'] as const;
export type InterfaceProto = (typeof INTERFACE_PROTOS)[number];
/** Hotspot state of a client: waiting at the portal, signed in, or not subject to the portal. */
export const CLIENT_AUTH_STATES = ['preauth', 'auth', 'none'] as const;
export type ClientAuthState = (typeof CLIENT_AUTH_STATES)[number];

/** Most clients listed in the dashboard's top-flow table. */
export const TOPFLOW_COUNT = 5;

export const topFlowSchema = z.object({
  ip: z.string(),
  flow: bytes().meta({ description: 'Bytes moved by this client (up and down) in its current session' }),
});
export type TopFlow = z.infer<typeof topFlowSchema>;

export const dashboardSchema = z
  .object({
    board: z.object({
      sn: z.string(),
      model: z.string(),
      version: z.string(),
    }),
    system: z.object({
      localtime: localTime(),
      uptime: seconds(),
      cpu: percent(),
      memory: percent(),
      memory_total: bytes(),
      memory_used: bytes(),
      conn_max: count(),
      conn_count: count(),
      disk: percent(),
      flash: percent(),
      wanconnect: count().meta({ description: 'Connected WAN links; the device is online when above zero (spec §4)' }),
    }),
    user: z.object({
      online: count(),
      preauth: count().meta({ description: 'Online clients waiting at the portal' }),
      auth: count().meta({ description: 'Online clients signed in through the portal' }),
      total: count().meta({ description: 'Distinct clients seen in the last 24 hours' }),
      topflows: z.array(topFlowSchema).max(TOPFLOW_COUNT),
    }),
  })
  .meta({ id: 'Dashboard' });
export type Dashboard = z.infer<typeof dashboardSchema>;

export const loadPointSchema = z.object({
  t: z.number().int().nonnegative().meta({ description: 'Start of the sample interval, ms since the epoch' }),
  cpu: percent(),
  memory: percent(),
  load1: z.number().nonnegative(),
  rx_rate: bytes().meta({ description: 'WAN download, bytes per second' }),
  tx_rate: bytes().meta({ description: 'WAN upload, bytes per second' }),
  conn_count: count(),
});
export type LoadPoint = z.infer<typeof loadPointSchema>;

export const loadSeriesSchema = z
  .object({
    range: chartRangeSchema,
    step: z.number().int().positive().meta({ description: 'Seconds between points' }),
    points: z.array(loadPointSchema),
  })
  .meta({ id: 'LoadSeries' });
export type LoadSeries = z.infer<typeof loadSeriesSchema>;

export const netifSchema = z.object({
  ifname: z.string(),
  role: z.enum(INTERFACE_ROLES),
  status: z.enum(LINK_STATES),
  proto: z.enum(INTERFACE_PROTOS),
  /** Empty when the interface has no IPv4 address. */
  ipaddr: z.string(),
  netmask: z.string(),
  gateway: z.string(),
  mac: z.string(),
  mtu: count(),
  rx_bytes: bytes(),
  tx_bytes: bytes(),
  rx_rate: bytes(),
  tx_rate: bytes(),
  uptime: seconds().meta({ description: 'Seconds the link has been up; 0 when down' }),
});
export type Netif = z.infer<typeof netifSchema>;

export const netifListSchema = z
  .object({ items: z.array(netifSchema), total: count() })
  .meta({ id: 'NetifList' });
export type NetifList = z.infer<typeof netifListSchema>;

export const onlineUserSchema = z.object({
  ip: z.string(),
  mac: z.string(),
  /** As announced by the client: untrusted text, shown escaped. */
  hostname: z.string(),
  /** Portal account; empty when the client has not signed in. */
  username: z.string(),
  auth: z.enum(CLIENT_AUTH_STATES),
  up_rate: bytes(),
  down_rate: bytes(),
  up_bytes: bytes(),
  down_bytes: bytes(),
  online_time: seconds(),
  conn_count: count(),
});
export type OnlineUser = z.infer<typeof onlineUserSchema>;

export const onlineUserListSchema = z
  .object({ items: z.array(onlineUserSchema), total: count() })
  .meta({ id: 'OnlineUserList' });
export type OnlineUserList = z.infer<typeof onlineUserListSchema>;

export const registrationSchema = z
  .object({
    isRegister: z.boolean(),
    locked: z.boolean(),
    sn: z.string(),
    mac: z.string(),
    is_x86: z.boolean(),
  })
  .meta({ id: 'Registration' });
export type Registration = z.infer<typeof registrationSchema>;

export const systemInfoSchema = z
  .object({
    hostname: z.string(),
    model: z.string(),
    version: z.string(),
    sn: z.string(),
    mac: z.string(),
    kernel: z.string(),
    cpu_model: z.string(),
    cpu_cores: z.number().int().positive(),
    memory_total: bytes(),
    uptime: seconds(),
    localtime: localTime(),
    timezone: z.string(),
    arch: z.string(),
  })
  .meta({ id: 'SystemInfo' });
export type SystemInfo = z.infer<typeof systemInfoSchema>;
