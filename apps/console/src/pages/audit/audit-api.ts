import { apiUrl, type QueryParams } from '../../api/api-client.js';

/** The daemon's behaviour audit routes (apps/daemon/src/domains/audit/audit-routes.ts). */
export const AUDIT_PATHS = {
  settings: 'sysconf/audit',
  disks: 'sysconf/disk',
  status: 'sysconf/auditdisk',
  urls: 'sysconf/audit/urls',
  flows: 'sysconf/audit/flows',
  urlExport: 'sysconf/audit/urlexport',
  ipExport: 'sysconf/audit/ipexport',
} as const;

export interface AuditStatus {
  enabled: boolean;
  disk: string;
  refused: boolean;
  retentionDays: number | null;
  total: number | null;
  free: number | null;
  oldest: number | null;
  urls: number;
  flows: number;
}

export interface AuditDiskRow {
  path: string;
  total: number;
  free: number;
  retentionDays: number | null;
}

/**
 * Downloads an export: the browser fetches the CSV itself with the session cookie, so a large
 * export streams to the file instead of passing through the page.
 */
export function downloadExport(path: string, params: QueryParams): void {
  const link = document.createElement('a');
  link.href = apiUrl(path, params);
  link.download = '';
  document.body.appendChild(link);
  link.click();
  link.remove();
}

/** `datetime-local` input text of an instant, in the browser's time zone. */
export function localInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The instant of a `datetime-local` input, or undefined when it is empty or not a time. */
export function inputInstant(text: string): number | undefined {
  if (text === '') return undefined;
  const ms = new Date(text).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}
