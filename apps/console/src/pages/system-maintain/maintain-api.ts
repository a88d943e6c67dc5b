import { CSRF_HEADER, MSG, type ApiFailure, type ApiReply } from '@portico/schema';
import { apiGet, apiPost, apiUrl, failureMessage } from '../../api/api-client.js';
import { i18n } from '../../i18n/console-i18n.js';
import { redirectToLogin } from '../../routes/navigation.js';
import { showErrorNotice } from '../../shell/notice.js';
import { useLoadingStore } from '../../state/loading-store.js';
import { useSessionStore } from '../../state/session-store.js';

/**
 * Backup, restore, factory reset and reboot (POST /api/sysconf/backup, /api/sysconf/reboot).
 * The download answers a file and the restore sends a multipart form, which the JSON client
 * does not carry; both report failures the way it does (spec §8).
 */

export const BACKUP_PATH = 'sysconf/backup';
export const REBOOT_PATH = 'sysconf/reboot';
/** Where the console asks whether the daemon answers again after a restart. */
export const HEALTH_PATH = 'islogin';

export interface RestartInfo {
  restarting: boolean;
  elapsedSeconds: number;
  expectedSeconds: number;
}

export interface BackupStatus {
  rebootRequired: boolean;
  revision: number | null;
  reason: 'restore' | 'reset' | null;
  uploadLimit: number;
  restart: RestartInfo;
}

export interface RestoreResult extends RestartInfo {
  revision: number | null;
  rebootRequired: boolean;
}

function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function parseRestartInfo(value: unknown): RestartInfo {
  const v = (value ?? {}) as Record<string, unknown>;
  return { restarting: v.restarting === true, elapsedSeconds: num(v.elapsedSeconds), expectedSeconds: num(v.expectedSeconds, 60) };
}

export function parseBackupStatus(value: unknown): BackupStatus {
  const v = (value ?? {}) as Record<string, unknown>;
  const reason = v.reason === 'restore' || v.reason === 'reset' ? v.reason : null;
  return {
    rebootRequired: v.rebootRequired === true,
    revision: typeof v.revision === 'number' ? v.revision : null,
    reason,
    uploadLimit: num(v.uploadLimit, 12 * 1024 * 1024),
    restart: parseRestartInfo(v.restart),
  };
}

export function parseRestoreResult(value: unknown): RestoreResult {
  const v = (value ?? {}) as Record<string, unknown>;
  return { ...parseRestartInfo(v), revision: typeof v.revision === 'number' ? v.revision : null, rebootRequired: v.rebootRequired === true };
}

export async function fetchBackupStatus(): Promise<BackupStatus> {
  return parseBackupStatus(await apiGet<unknown>(BACKUP_PATH));
}

export function requestReboot(): Promise<ApiReply<unknown>> {
  return apiPost<unknown>(REBOOT_PATH, { reboot: 1 });
}

export function requestFactoryReset(): Promise<ApiReply<unknown>> {
  return apiPost<unknown>(BACKUP_PATH, { reset: 1 });
}

/** The file name the daemon proposes in Content-Disposition, else a dated default. */
export function fileNameOf(disposition: string | null, now = new Date()): string {
  const match = /filename="([A-Za-z0-9._-]+)"/.exec(disposition ?? '');
  return match?.[1] ?? `portico-config-${now.toISOString().slice(0, 10)}.tar.gz`;
}

/** A failed exchange the JSON client would have reported: the same notices, then null. */
async function readFailure(response: Response): Promise<ApiFailure | null> {
  if (response.status === 401) {
    redirectToLogin();
    return null;
  }
  let reply: unknown;
  try {
    reply = await response.json();
  } catch {
    showErrorNotice(i18n.t('common.requestFailed'));
    return null;
  }
  const failure = reply as ApiFailure;
  if (!response.ok || typeof failure?.msg !== 'string') {
    showErrorNotice(i18n.t('common.requestFailed'));
    return null;
  }
  if (failure.msg === MSG.unauthorized) {
    redirectToLogin();
    return null;
  }
  showErrorNotice(failureMessage(failure));
  return failure;
}

async function send(path: string, init: RequestInit): Promise<Response | null> {
  const { csrf } = useSessionStore.getState();
  const headers = new Headers(init.headers);
  if (csrf) headers.set(CSRF_HEADER, csrf);
  const loading = useLoadingStore.getState();
  loading.begin();
  try {
    return await fetch(apiUrl(path), { credentials: 'same-origin', ...init, headers, method: 'POST' });
  } catch {
    showErrorNotice(i18n.t('common.requestFailed'));
    return null;
  } finally {
    loading.end();
  }
}

/**
 * Downloads the backup: with a passphrase it can be restored on another device, without
 * only on this one. Saves it through the browser; false when refused (already reported).
 */
export async function downloadBackup(passphrase: string): Promise<boolean> {
  const response = await send(BACKUP_PATH, {
    headers: { accept: 'application/gzip, application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'download', ...(passphrase ? { passphrase } : {}) }),
  });
  if (!response) return false;
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('application/gzip')) {
    await readFailure(response);
    return false;
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileNameOf(response.headers.get('content-disposition'));
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The click has handed the blob to the browser's download by the next task.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return true;
}

/** Uploads a backup to restore it; the reply tells whether a reboot is needed to apply it. */
export async function uploadBackup(file: File, passphrase: string): Promise<ApiReply<RestoreResult> | null> {
  const form = new FormData();
  if (passphrase) form.append('passphrase', passphrase);
  form.append('backup', file, file.name);
  const response = await send(BACKUP_PATH, { headers: { accept: 'application/json' }, body: form });
  if (!response) return null;
  if (!response.ok) {
    await readFailure(response);
    return null;
  }
  let reply: ApiReply<unknown>;
  try {
    reply = (await response.json()) as ApiReply<unknown>;
  } catch {
    showErrorNotice(i18n.t('common.requestFailed'));
    return null;
  }
  if (!reply.success) {
    showErrorNotice(failureMessage(reply));
    return reply;
  }
  return { success: true, data: parseRestoreResult(reply.data) };
}

/**
 * Whether the daemon answers normally again: a 200 or a 401 (a restart may end the session).
 * A 503 means it is still restarting; no answer means it is down.
 */
export async function deviceAnswers(signal?: AbortSignal): Promise<boolean> {
  try {
    const response = await fetch(apiUrl(HEALTH_PATH), { credentials: 'same-origin', headers: { accept: 'application/json' }, signal });
    return response.status === 200 || response.status === 401;
  } catch {
    return false;
  }
}
