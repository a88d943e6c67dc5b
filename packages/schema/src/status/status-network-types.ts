import { z } from 'zod';
import { chartRangeSchema } from './status-types.js';

/*
 * Network status (spec §2 /sysstatus: dhcplease, arpinfo, systemroute, monitoring,
 * linemonitoring; §3 "Statistics" and "system routes v4 and v6"). These describe daemon
 * answers: text that comes from the network (host names, client ids) may hold anything and is
 * shown as plain text; numbers are strict.
 */

const count = () => z.number().int().nonnegative();
const bytes = () => z.number().int().nonnegative();
/** ms since the epoch; null when unknown. */
const instant = () => z.number().int().nonnegative().nullable();

/** Largest page the paged status lists answer. */
export const STATUS_PAGE_SIZE_MAX = 500;
export const STATUS_PAGE_SIZE_DEFAULT = 50;

/** page, page_size and q of the paged status lists (DHCP leases, ARP, wireless devices). */
export const statusPagingQuery = {
  page: z.coerce.number({ error: 'validation.integer' }).int({ error: 'validation.integer' }).min(1, { error: 'validation.tooSmall' }).default(1),
  page_size: z.coerce
    .number({ error: 'validation.integer' })
    .int({ error: 'validation.integer' })
    .min(1, { error: 'validation.tooSmall' })
    .max(STATUS_PAGE_SIZE_MAX, { error: 'validation.tooBig' })
    .default(STATUS_PAGE_SIZE_DEFAULT),
  /** Case-insensitive text found in the address, MAC or host name. */
  q: z.string().max(64, { error: 'validation.tooBig' }).default(''),
};

/*
 * DHCP lease states:
 * - active: the lease file holds the address for a client and the lease has not expired
 *   (an infinite lease never does);
 * - abandoned: the address is unusable for handing out without being held by a valid lease —
 *   either an expired lease the server has not yet dropped from its file (`expired`), or a pool
 *   address a host uses without any lease, seen in the neighbour table (`conflict`, what a
 *   DHCP server finds by its ping check and declines);
 * - free: a pool address that is neither.
 */
export const DHCP_LEASE_STATES = ['active', 'abandoned', 'free'] as const;
export type DhcpLeaseState = (typeof DHCP_LEASE_STATES)[number];
export const DHCP_ABANDON_REASONS = ['expired', 'conflict'] as const;
export type DhcpAbandonReason = (typeof DHCP_ABANDON_REASONS)[number];

export const dhcpLeaseQuerySchema = z.object({
  status: z.enum(['all', ...DHCP_LEASE_STATES], { error: 'validation.option' }).default('all'),
  ...statusPagingQuery,
});
export type DhcpLeaseQuery = z.infer<typeof dhcpLeaseQuerySchema>;

export const dhcpLeaseSchema = z.object({
  ip: z.string(),
  /** Empty for a free address. */
  mac: z.string(),
  /** As announced by the client: untrusted text. */
  hostname: z.string(),
  /** DHCP server (LAN-side interface) whose pool holds the address; empty outside every pool. */
  interface: z.string(),
  /** Start of the lease: its end less the pool's lease time; null when not known. */
  start: instant(),
  /** End of the lease; null for a free address or an infinite lease. */
  end: instant(),
  status: z.enum(DHCP_LEASE_STATES).meta({
    description:
      'active: held by an unexpired (or infinite) lease; abandoned: an expired lease still in the lease file, or a pool address in use by a host without a lease; free: a pool address that is neither',
  }),
  reason: z
    .enum(DHCP_ABANDON_REASONS)
    .nullable()
    .meta({ description: 'Why an abandoned address is unusable (expired lease, or conflict: in use without a lease); null otherwise' }),
});
export type DhcpLease = z.infer<typeof dhcpLeaseSchema>;

export const dhcpLeaseListSchema = z
  .object({
    items: z.array(dhcpLeaseSchema),
    /** Entries matching the query, over all pages. */
    total: count(),
    page: z.number().int().positive(),
    page_size: z.number().int().positive(),
    /** Counts per state over every pool and lease, whatever the filter. */
    counts: z.object({ active: count(), abandoned: count(), free: count() }),
    pools: z.array(z.object({ interface: z.string(), first: z.string(), last: z.string(), size: count(), lease_minutes: count() })),
  })
  .meta({ id: 'DhcpLeaseList' });
export type DhcpLeaseList = z.infer<typeof dhcpLeaseListSchema>;

/** Kernel neighbour (NUD) states, lower-case, as `ip neigh` names them. */
export const NEIGHBOUR_STATES = ['reachable', 'stale', 'delay', 'probe', 'incomplete', 'failed', 'permanent', 'noarp', 'none'] as const;
export type NeighbourState = (typeof NEIGHBOUR_STATES)[number];
/**
 * How a neighbour compares with the ARP bindings (IPv4 only): `bound` when a binding names this
 * address and MAC, `mismatch` when a binding names the address with another MAC, else `none`.
 */
export const ARP_BINDING_MATCHES = ['bound', 'mismatch', 'none'] as const;
export type ArpBindingMatch = (typeof ARP_BINDING_MATCHES)[number];
export const IP_FAMILIES = ['4', '6'] as const;
export type IpFamily = (typeof IP_FAMILIES)[number];

export const arpInfoQuerySchema = z.object({
  family: z.enum(['all', ...IP_FAMILIES], { error: 'validation.option' }).default('all'),
  /** Device name; empty for every device. */
  interface: z.string().max(32, { error: 'validation.tooBig' }).default(''),
  ...statusPagingQuery,
});
export type ArpInfoQuery = z.infer<typeof arpInfoQuerySchema>;

export const neighbourSchema = z.object({
  ip: z.string(),
  family: z.enum(IP_FAMILIES),
  /** Device the neighbour was seen on. */
  interface: z.string(),
  /** Empty while the address is not resolved. */
  mac: z.string(),
  state: z.enum(NEIGHBOUR_STATES),
  /** The neighbour announced itself as a router (IPv6). */
  router: z.boolean(),
  binding: z.enum(ARP_BINDING_MATCHES),
  /** Host name from the DHCP lease of this MAC: untrusted text. */
  hostname: z.string(),
});
export type Neighbour = z.infer<typeof neighbourSchema>;

export const arpInfoSchema = z
  .object({
    items: z.array(neighbourSchema),
    total: count(),
    page: z.number().int().positive(),
    page_size: z.number().int().positive(),
    /** Devices that have neighbours, for the filter. */
    interfaces: z.array(z.string()),
  })
  .meta({ id: 'ArpInfo' });
export type ArpInfo = z.infer<typeof arpInfoSchema>;

export const systemRouteQuerySchema = z.object({
  family: z.enum(['all', ...IP_FAMILIES], { error: 'validation.option' }).default('all'),
  /** Routing table name or number; empty for every table. */
  table: z.string().max(16, { error: 'validation.tooBig' }).default(''),
});
export type SystemRouteQuery = z.infer<typeof systemRouteQuerySchema>;

export const routeNexthopSchema = z.object({ gateway: z.string(), interface: z.string(), weight: count() });
export type RouteNexthop = z.infer<typeof routeNexthopSchema>;

export const systemRouteSchema = z.object({
  family: z.enum(IP_FAMILIES),
  /** `main`, `default` or the number of a policy table. */
  table: z.string(),
  /** WAN whose policy routing table this is (table 100+n); empty otherwise. */
  wan: z.string(),
  /** Route type: unicast, blackhole, unreachable, prohibit, … */
  type: z.string(),
  /** Destination as a prefix, or `default`. */
  destination: z.string(),
  gateway: z.string(),
  interface: z.string(),
  /** Who made the route: kernel, static, boot, dhcp, ra, … */
  protocol: z.string(),
  scope: z.string(),
  metric: count(),
  /** Preferred source address; empty when none. */
  source: z.string(),
  /** The paths of a multipath route; empty for a single path. */
  nexthops: z.array(routeNexthopSchema),
});
export type SystemRoute = z.infer<typeof systemRouteSchema>;

export const systemRouteListSchema = z
  .object({
    items: z.array(systemRouteSchema),
    total: count(),
    /** Tables that hold routes, for the filter. */
    tables: z.array(z.string()),
  })
  .meta({ id: 'SystemRouteList' });
export type SystemRouteList = z.infer<typeof systemRouteListSchema>;

export const monitoringQuerySchema = z.object({ range: chartRangeSchema.default('5m') });

export const ratePointSchema = z.object({
  t: z.number().int().nonnegative().meta({ description: 'Start of the sample interval, ms since the epoch' }),
  rx_rate: bytes(),
  tx_rate: bytes(),
});
export type RatePoint = z.infer<typeof ratePointSchema>;

export const interfaceTrafficSchema = z.object({
  ifname: z.string(),
  role: z.string(),
  status: z.enum(['up', 'down']),
  rx_bytes: bytes(),
  tx_bytes: bytes(),
  rx_rate: bytes(),
  tx_rate: bytes(),
  /** Rates over the asked range, oldest first; this daemon's own samples since it started. */
  points: z.array(ratePointSchema),
});
export type InterfaceTraffic = z.infer<typeof interfaceTrafficSchema>;

export const monitoringSchema = z
  .object({
    range: chartRangeSchema,
    step: z.number().int().positive().meta({ description: 'Seconds between points' }),
    interfaces: z.array(interfaceTrafficSchema),
  })
  .meta({ id: 'Monitoring' });
export type Monitoring = z.infer<typeof monitoringSchema>;

/** Line monitoring refresh (spec §2: every 5 seconds). */
export const LINE_MONITOR_REFRESH_MS = 5000;

export const probeResultSchema = z.object({
  /** Address probed: the WAN's track IP or its gateway. */
  target: z.string(),
  /** Probes sent and answered in the last round. */
  sent: count(),
  received: count(),
  /** Percent of probes lost. */
  loss: z.number().min(0).max(100),
  /** Average round trip in ms; null when nothing answered. */
  latency: z.number().nonnegative().nullable(),
});
export type ProbeResult = z.infer<typeof probeResultSchema>;

export const lineStatusSchema = z.object({
  /** WAN interface name as configured. */
  name: z.string(),
  /** Device carrying its addresses. */
  interface: z.string(),
  link: z.enum(['up', 'down']),
  /** Link up and at least one probe target answers (without targets: link up and a gateway known). */
  online: z.boolean(),
  ipaddr: z.string(),
  gateway: z.string(),
  /** Policy routing table of the WAN; 0 without one. */
  table: count(),
  rx_rate: bytes(),
  tx_rate: bytes(),
  rx_bytes: bytes(),
  tx_bytes: bytes(),
  /** Average round trip over the targets that answered; null when none did. */
  latency: z.number().nonnegative().nullable(),
  /** Loss over every target, percent. */
  loss: z.number().min(0).max(100),
  probes: z.array(probeResultSchema),
  /** When the probes were taken, ms since the epoch; null before the first round. */
  checked_at: instant(),
});
export type LineStatus = z.infer<typeof lineStatusSchema>;

export const lineMonitoringSchema = z
  .object({
    lines: z.array(lineStatusSchema),
    /** WANs online (spec §4: the device is online when above zero). */
    wanconnect: count(),
    refresh_ms: z.number().int().positive(),
  })
  .meta({ id: 'LineMonitoring' });
export type LineMonitoring = z.infer<typeof lineMonitoringSchema>;

export const lineDetailsQuerySchema = z.object({
  name: z.string().min(1, { error: 'validation.required' }).max(32, { error: 'validation.tooBig' }),
  range: chartRangeSchema.default('5m'),
});

export const lineDetailsSchema = z
  .object({
    line: lineStatusSchema,
    range: chartRangeSchema,
    step: z.number().int().positive(),
    points: z.array(ratePointSchema),
  })
  .meta({ id: 'LineDetails' });
export type LineDetails = z.infer<typeof lineDetailsSchema>;
