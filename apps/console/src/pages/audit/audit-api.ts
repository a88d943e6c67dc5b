import { CSRF_HEADER } from '@portico/schema';
import { apiUrl, type QueryParams } from '../../api/api-client.js';
import { i18n, translateMessage } from '../../i18n/console-i18n.js';
import { redirectToLogin } from '../../routes/navigation.js';
import { showErrorNotice } from '../../shell/notice.js';
import { useLoadingStore } from '../../state/loading-store.js';
import { useSessionStore } from '../../state/session-store.js';

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
 * Downloads an export: a POST (action download) with the search; the daemon answers the CSV
 * itself, or a JSON failure whose message is shown.
 */
export async function downloadExport(path: string, params: QueryParams, name: string): Promise<boolean> {
  const { csrf } = useSessionStore.getState();
  const headers = new Headers({ 'content-type': 'application/json' });
  if (csrf) headers.set(CSRF_HEADER, csrf);
  const body = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== ''));
  const loading = useLoadingStore.getState();
  loading.begin();
  let response: Response;
  try {
    response = await fetch(apiUrl(path), { method: 'POST', credentials: 'same-origin', headers, body: JSON.stringify({ ...body, action: 'download' }) });
    if (response.status === 401) {
      redirectToLogin();
      return false;
    }
    if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/csv')) {
      const reply = (await response.json().catch(() => null)) as { msg?: string } | null;
      showErrorNotice(reply?.msg ? translateMessage(reply.msg) : i18n.t('common.requestFailed'));
      return false;
    }
    const url = URL.createObjectURL(await response.blob());
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    // The click has handed the blob to the browser's download by the next task.
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    return true;
  } catch {
    showErrorNotice(i18n.t('common.requestFailed'));
    return false;
  } finally {
    loading.end();
  }
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
