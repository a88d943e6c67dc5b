import { z } from 'zod';
import { defineEntity } from '../entity/define-entity.js';
import { checkedString, integerInRange } from '../common/field-base.js';
import { hostOrIpField } from '../network/network-fields.js';
import { portField } from '../common/port-fields.js';
import { isIpv4 } from '../common/ip-address.js';
import { isSafeText, TEXT_CONTROL_MESSAGE } from '../common/text-guard.js';

/**
 * Behaviour audit (spec §1 Security, §2 /security/behavioraudit, §5, §9): what is recorded and
 * on which disk. `disk` is the mount point of the disk that holds the records; '' is the
 * device's own storage. The disk must be larger than 500 MB (checked by the daemon, which
 * knows the disks).
 */
export const AUDIT_DISK_PATH = /^\/(?:[A-Za-z0-9._-]+\/?)*$/;

export function isAuditDiskPath(text: string): boolean {
  return text.length <= 200 && AUDIT_DISK_PATH.test(text) && !text.split('/').some((part) => part === '.' || part === '..');
}

export const behaviourAudit = defineEntity({
  name: 'behaviourAudit',
  path: 'sysconf/audit',
  module: 'behavioraudit',
  kind: 'singleton',
  schema: z.object({
    enabled: z.boolean().default(false),
    /** Visited URLs: HTTP Host and path, TLS server name. */
    urls: z.boolean().default(true),
    /** IP flows: each connection a LAN client opens to a WAN. */
    flows: z.boolean().default(true),
    disk: checkedString(isAuditDiskPath, 'validation.audit.disk', { allowEmpty: true }).default(''),
  }),
  form: {
    tabs: [{ key: 'basic', fields: [{ name: 'enabled', widget: 'switch' }, { name: 'urls', widget: 'switch' }, { name: 'flows', widget: 'switch' }, { name: 'disk' }] }],
  },
});

export type BehaviourAudit = z.infer<typeof behaviourAudit.schema>;

/** Seconds one direction of a speed test runs. */
export const SPEED_TEST_SECONDS = { min: 3, max: 30, default: 8 } as const;
export const SPEED_TEST_PORT = 5201;

/**
 * Speed test (spec §2 /security/speedtest): the iperf3 server a WAN's download and upload are
 * measured against.
 */
export const speedTest = defineEntity({
  name: 'speedTest',
  path: 'sysconf/speedtest',
  module: 'speedtest',
  kind: 'singleton',
  schema: z.object({
    server: hostOrIpField({ allowEmpty: true }).default(''),
    port: portField().default(SPEED_TEST_PORT),
    seconds: integerInRange(SPEED_TEST_SECONDS.min, SPEED_TEST_SECONDS.max, 'validation.speedTest.seconds').default(SPEED_TEST_SECONDS.default),
  }),
  form: {
    tabs: [{ key: 'basic', fields: [{ name: 'server' }, { name: 'port' }, { name: 'seconds' }] }],
  },
});

export type SpeedTest = z.infer<typeof speedTest.schema>;

/** A search of the audit's records (GET sysconf/audit/urls, sysconf/audit/flows). */
export const auditQuerySchema = z.object({
  client: z.string().max(15).refine((v) => v === '' || isIpv4(v), { error: 'validation.ipv4' }).default(''),
  /** Milliseconds since the epoch; the default window is the last 24 hours. */
  from: z.coerce.number().int().min(0).optional(),
  to: z.coerce.number().int().min(0).optional(),
  text: z.string().max(200).refine(isSafeText, { error: TEXT_CONTROL_MESSAGE }).default(''),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
});

export type AuditQueryInput = z.infer<typeof auditQuerySchema>;

export interface AuditUrlRow {
  ts: number;
  client: string;
  server: string;
  port: number;
  kind: 'http' | 'tls';
  host: string;
  path: string;
}

export interface AuditFlowRow {
  ts: number;
  client: string;
  cport: number;
  server: string;
  port: number;
  proto: string;
}

/** One disk records could be kept on (GET sysconf/disk). */
export interface AuditDisk {
  /** '' for the device's own storage, else the mount point. */
  path: string;
  total: number;
  free: number;
  /** Days of records it keeps; null: 500 MB or less, the audit cannot use it. */
  retentionDays: number | null;
}

export interface SpeedTestResult {
  wan: string;
  server: string;
  port: number;
  at: number;
  /** bits per second */
  download: number;
  upload: number;
}
