import { CSRF_HEADER, MSG, type ApiFailure, type ApiReply } from '@portico/schema';
import { apiGet, apiPost, failureMessage } from '../../api/api-client.js';
import { i18n } from '../../i18n/console-i18n.js';
import { redirectToLogin } from '../../routes/navigation.js';
import { showErrorNotice } from '../../shell/notice.js';
import { useLoadingStore } from '../../state/loading-store.js';
import { useSessionStore } from '../../state/session-store.js';
import type { PortalFileKind } from './portal-upload-rules.js';

/**
 * Calls of the portal files (spec §5): GET /api/portal/files lists what is uploaded,
 * POST /api/portal/upload/<kind> sends one file as multipart, POST /api/portal/files with
 * action=delete removes one.
 */

export interface PortalImageFile {
  name: string;
  type: 'png' | 'jpeg' | 'gif';
  size: number;
  width: number;
  height: number;
}

export interface PortalFiles {
  picture?: PortalImageFile;
  logo?: PortalImageFile;
  custom?: { name: string; size: number; files: number };
}

export const PORTAL_FILES_PATH = 'portal/files';

export function uploadPathOf(kind: PortalFileKind): string {
  return `portal/upload/${kind}`;
}

export function fetchPortalFiles(): Promise<PortalFiles> {
  return apiGet<PortalFiles>(PORTAL_FILES_PATH);
}

export function deletePortalFile(kind: PortalFileKind): Promise<ApiReply<PortalFiles>> {
  return apiPost<PortalFiles>(PORTAL_FILES_PATH, { action: 'delete', kind });
}

function requestFailed(): never {
  showErrorNotice(i18n.t('common.requestFailed'));
  throw new Error('portal file upload failed');
}

/**
 * Sends one file. The JSON client cannot carry a file, so this does what it does for a write:
 * CSRF header, the loading indicator, 401 back to sign-in, a notice for every refusal
 * ('Visitor Permissions, No Writing' for a visitor). A refusal resolves with the reply so the
 * panel can also show it beside the control that sent the file.
 */
export async function uploadPortalFile(kind: PortalFileKind, file: Blob, name: string): Promise<ApiReply<PortalFiles>> {
  const form = new FormData();
  form.append('file', file, name);
  const headers: Record<string, string> = { accept: 'application/json' };
  const { csrf } = useSessionStore.getState();
  if (csrf) headers[CSRF_HEADER] = csrf;
  const loading = useLoadingStore.getState();
  loading.begin();
  try {
    let response: Response;
    try {
      response = await fetch(`/api/${uploadPathOf(kind)}?_=${Date.now()}`, { method: 'POST', credentials: 'same-origin', headers, body: form });
    } catch {
      requestFailed();
    }
    if (response.status === 401) {
      redirectToLogin();
      throw new Error('unauthorized');
    }
    // 413: the body passed the server's overall cap before the upload route saw it.
    if (response.status === 413) return refuse({ success: false, msg: 'hotspot.msg.uploadTooLarge' });
    if (!response.ok) requestFailed();
    let reply: unknown;
    try {
      reply = await response.json();
    } catch {
      requestFailed();
    }
    if (!reply || typeof reply !== 'object' || typeof (reply as { success?: unknown }).success !== 'boolean') requestFailed();
    const typed = reply as ApiReply<PortalFiles>;
    if (!typed.success && typed.msg === MSG.unauthorized) {
      redirectToLogin();
      throw new Error('unauthorized');
    }
    return typed.success ? typed : refuse(typed);
  } finally {
    loading.end();
  }
}

function refuse(reply: ApiFailure): ApiReply<PortalFiles> {
  showErrorNotice(failureMessage(reply));
  return reply;
}
