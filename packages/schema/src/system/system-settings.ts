import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { checkedString, integerInRange } from '../common/field-base.js';
import { accessIpField } from '../common/access-ip.js';
import { portField } from '../common/port-fields.js';
import { isHostname } from '../common/text-fields.js';
import { isIp } from '../common/ip-address.js';
import { isSafeText, TEXT_CONTROL_MESSAGE } from '../common/text-guard.js';

/**
 * The System section's settings (spec §1 System, §2 /system, §7 sysconf/*): time, remote
 * access, network parameters and remote logging. Each is a singleton on its spec path.
 */

/**
 * An IANA time zone name as the tz database names its files (`Asia/Shanghai`, `UTC`,
 * `America/Argentina/Buenos_Aires`, `Etc/GMT-8`): no dot segments, so it can never leave the
 * zoneinfo folder. The daemon also checks the zone is present in the device's tz database.
 */
const TIME_ZONE = /^[A-Za-z][A-Za-z0-9_+-]{0,31}(?:\/[A-Za-z0-9][A-Za-z0-9_+-]{0,31}){0,2}$/;

export function isTimeZoneName(text: string): boolean {
  return TIME_ZONE.test(text);
}

/** A host name or an IP address (an NTP server, a syslog receiver, a diagnosis target). */
export function isHostTarget(text: string): boolean {
  return isIp(text) || (isHostname(text) && !/^[0-9.]+$/.test(text));
}

export function hostTargetField() {
  return checkedString(isHostTarget, 'validation.hostOrIp');
}

export const NTP_SERVERS_MAX = 4;
export const DEFAULT_NTP_SERVERS = ['0.pool.ntp.org', '1.pool.ntp.org'] as const;

export const systemTime = defineEntity({
  name: 'systemTime',
  path: 'sysconf/time',
  module: 'clockconfiguration',
  route: '/system/clockconfiguration',
  kind: 'singleton',
  schema: z.object({
    timezone: checkedString(isTimeZoneName, 'validation.timezone').default('Asia/Shanghai'),
    /** Keep the clock in step with the NTP servers below. */
    ntp_client: z.boolean().default(true),
    ntp_servers: z.array(hostTargetField()).max(NTP_SERVERS_MAX, { error: 'validation.tooBig' }).default([...DEFAULT_NTP_SERVERS]),
    /** Answer NTP (SNTP) requests from the LAN with the device's clock. */
    ntp_server: z.boolean().default(false),
  }),
  refine(value, ctx) {
    if (value.ntp_client && value.ntp_servers.length === 0) ctx.addIssue('ntp_servers', 'validation.required');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'timezone' },
          { name: 'ntp_client', widget: 'switch' },
          { name: 'ntp_servers', widget: 'lines', visibleWhen: { field: 'ntp_client', equals: true } },
          { name: 'ntp_server', widget: 'switch' },
        ],
      },
    ],
  },
});
export type SystemTime = z.infer<typeof systemTime.schema>;

/** A manual clock setting (POST sysconf/time/set): seconds since the epoch, 2000-01-01 .. 2100-01-01. */
export const MANUAL_TIME_MIN = 946_684_800;
export const MANUAL_TIME_MAX = 4_102_444_800;
export const manualTimeSchema = z
  .object({
    action: z.literal('set').default('set'),
    time: integerInRange(MANUAL_TIME_MIN, MANUAL_TIME_MAX, 'validation.manualTime'),
  })
  .strict();

export const remoteAccess = defineEntity({
  name: 'remoteAccess',
  path: 'sysconf/remoteaccess',
  module: 'romotevisit',
  route: '/system/romotevisit',
  kind: 'singleton',
  schema: z.object({
    /** The console answers on the WAN side. */
    enabled: z.boolean().default(false),
    /** The WAN port it answers on (sent to the console's own port). */
    port: portField().default(8443),
    /** Sources allowed from the WAN (spec §5): single IP, range, CIDR or IP/netmask; empty = any. */
    allowed_ips: z.array(accessIpField().refine((v) => v !== '', { error: 'validation.accessIp' })).max(32, { error: 'validation.tooBig' }).default([]),
    /** Answer ping on the WAN side. */
    wan_ping: z.boolean().default(false),
  }),
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'port' },
          { name: 'allowed_ips', widget: 'tags' },
          { name: 'wan_ping', widget: 'switch' },
        ],
      },
    ],
  },
  // Turning it off or narrowing the addresses can cut off an administrator who came from the WAN.
  cutsAccess: true,
});
export type RemoteAccess = z.infer<typeof remoteAccess.schema>;

/** Kernel network parameters (per network namespace, so they take effect where the daemon runs). */
export const netParam = defineEntity({
  name: 'netParam',
  path: 'sysconf/netparam',
  module: 'networkparameter',
  route: '/system/networkparameter',
  kind: 'singleton',
  schema: z.object({
    tcp_syncookies: z.boolean().default(true),
    tcp_fin_timeout: integerInRange(1, 600, 'validation.tooBig').default(60),
    tcp_keepalive_time: integerInRange(10, 86_400, 'validation.tooBig').default(7200),
    tcp_keepalive_intvl: integerInRange(1, 3600, 'validation.tooBig').default(75),
    tcp_keepalive_probes: integerInRange(1, 64, 'validation.tooBig').default(9),
    tcp_max_syn_backlog: integerInRange(64, 1_048_576, 'validation.tooBig').default(1024),
    ip_default_ttl: integerInRange(1, 255, 'validation.tooBig').default(64),
    icmp_echo_ignore_broadcasts: z.boolean().default(true),
  }),
  form: {
    tabs: [
      {
        key: 'tcp',
        fields: [
          { name: 'tcp_syncookies', widget: 'switch' },
          { name: 'tcp_fin_timeout' },
          { name: 'tcp_keepalive_time' },
          { name: 'tcp_keepalive_intvl' },
          { name: 'tcp_keepalive_probes' },
          { name: 'tcp_max_syn_backlog' },
        ],
      },
      { key: 'ip', fields: [{ name: 'ip_default_ttl' }, { name: 'icmp_echo_ignore_broadcasts', widget: 'switch' }] },
    ],
  },
});
export type NetParam = z.infer<typeof netParam.schema>;

export const SYSLOG_TRANSPORTS = ['udp', 'tcp', 'tls'] as const;
export const SYSLOG_SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;

/** Remote logging (sysconf/syslog): RFC 5424 messages to one receiver. */
export const remoteSyslog = defineEntity({
  name: 'remoteSyslog',
  path: 'sysconf/syslog',
  module: 'networkparameter',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    server: hostTargetField().or(z.literal('')).default(''),
    transport: z.enum(SYSLOG_TRANSPORTS, { error: 'validation.option' }).default('udp'),
    /** 514 for UDP and TCP, 6514 for TLS (RFC 5425) when left at 0. */
    port: integerInRange(0, 65_535, 'validation.port.range').default(0),
    /** Messages at this severity or more severe are sent. */
    severity: z.enum(SYSLOG_SEVERITIES, { error: 'validation.option' }).default('info'),
    /** TLS: check the receiver's certificate against the system's trusted authorities. */
    tls_verify: z.boolean().default(true),
  }),
  refine(value, ctx) {
    if (value.enabled && value.server === '') ctx.addIssue('server', 'validation.required');
  },
  form: {
    tabs: [
      {
        key: 'basic',
        fields: [
          { name: 'enabled', widget: 'switch' },
          { name: 'server' },
          { name: 'transport', widget: 'select', options: SYSLOG_TRANSPORTS },
          { name: 'port' },
          { name: 'severity', widget: 'select', options: SYSLOG_SEVERITIES },
          { name: 'tls_verify', widget: 'switch', visibleWhen: { field: 'transport', equals: 'tls' } },
        ],
      },
    ],
  },
});
export type RemoteSyslog = z.infer<typeof remoteSyslog.schema>;

export const DIAGNOSIS_TOOLS = ['ping', 'traceroute'] as const;
export const DIAGNOSIS_COUNT_MAX = 100;
export const DIAGNOSIS_HOPS_MAX = 64;
export const DIAGNOSIS_WAIT_MAX = 10;
/** An interface name as the kernel allows one (at most 15 characters, no slash or space). */
const IFNAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,14}$/;

/**
 * A diagnosis run (POST sysconf/diagnosis, action start): the target is a host name or an
 * address, never an option or anything a shell would read; counts and waits are bounded.
 */
export const diagnosisStartSchema = z
  .object({
    action: z.literal('start'),
    tool: z.enum(DIAGNOSIS_TOOLS, { error: 'validation.option' }),
    target: hostTargetField(),
    /** Leave through this interface; empty: as routed. */
    ifname: checkedString((v) => IFNAME.test(v), 'validation.device', { allowEmpty: true }).default(''),
    /** ping: echo requests; traceroute: probes per hop. */
    count: integerInRange(1, DIAGNOSIS_COUNT_MAX, 'validation.tooBig').default(4),
    /** traceroute: the largest TTL tried. */
    maxhops: integerInRange(1, DIAGNOSIS_HOPS_MAX, 'validation.tooBig').default(30),
    /** Seconds to wait for each answer. */
    wait: integerInRange(1, DIAGNOSIS_WAIT_MAX, 'validation.tooBig').default(2),
  })
  .strict();
export type DiagnosisStart = z.infer<typeof diagnosisStartSchema>;

export const diagnosisJobSchema = z.object({
  id: z.string(),
  tool: z.enum(DIAGNOSIS_TOOLS),
  target: z.string(),
  running: z.boolean(),
  /** Exit code once finished; null while running or when stopped. */
  code: z.number().nullable(),
  stopped: z.boolean(),
  /** Output lines from `offset` on. */
  lines: z.array(z.string()),
  /** The offset to ask for next. */
  next: z.number().int(),
});
export type DiagnosisJob = z.infer<typeof diagnosisJobSchema>;

/** A telnet session from the device (/system/telnetclient): host and port checked, lines single and inert. */
export const TELNET_LINE_MAX = 1024;
export const telnetOpenSchema = z
  .object({
    action: z.literal('open'),
    host: hostTargetField(),
    port: portField().default(23),
  })
  .strict();
export const telnetSendSchema = z
  .object({
    action: z.literal('send'),
    id: z.string().uuid({ error: 'validation.invalid' }),
    line: z
      .string({ error: 'validation.type' })
      .max(TELNET_LINE_MAX, { error: 'validation.text.length' })
      .refine(isSafeText, { error: TEXT_CONTROL_MESSAGE }),
  })
  .strict();

/**
 * The device's host name (POST sysconf/system, and its own path sysconf/hostname): one RFC 1123
 * label, as /etc/hostname and the kernel take it.
 */
export const systemHost = defineEntity({
  name: 'systemHost',
  path: 'sysconf/hostname',
  module: 'networkparameter',
  kind: 'singleton',
  schema: z.object({
    hostname: checkedString((v) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(v), 'validation.hostLabel').default('portico'),
  }),
  form: { tabs: [{ key: 'basic', fields: [{ name: 'hostname' }] }] },
});
export type SystemHost = z.infer<typeof systemHost.schema>;
