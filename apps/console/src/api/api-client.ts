import { CSRF_HEADER, MSG, type ApiFailure, type ApiReply } from '@portico/schema';
import { i18n, translateMessage } from '../i18n/console-i18n.js';
import { offerApplyConfirm } from '../state/apply-confirm-store.js';
import { useLoadingStore } from '../state/loading-store.js';
import { useSessionStore } from '../state/session-store.js';
import { redirectToLogin } from '../routes/navigation.js';
import { showErrorNotice } from '../shell/notice.js';

/**
 * The console's only way to the daemon (spec §7, §8; DESIGN §3). Every failure is reported
 * here once, so pages only decide what to do next:
 * - the request could not be sent, or HTTP failed (not 401): 'Request failed' notice, reject;
 * - 401: back to /login without a notice, reject;
 * - `success:false`: a notice with the translated message ('Visitor Permissions, No Writing'
 *   for `forbidden`, 'Please review fields again' when field errors came back); a write
 *   resolves with the reply so a form can put each error on its field, a read rejects.
 */

export type ApiErrorKind = 'network' | 'http' | 'unauthorized' | 'invalid' | 'failed';

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly kind: ApiErrorKind,
    readonly path: string,
    readonly status?: number,
    readonly reply?: ApiFailure,
  ) {
    super(`${kind} on /api/${path}${status ? ` (HTTP ${status})` : ''}${reply ? `: ${reply.msg}` : ''}`);
  }
}

export type QueryParams = Record<string, string | number | undefined>;

const API_ROOT = '/api/';

/** `/api/<path>?<params>&_=<timestamp>`: the timestamp keeps caches out of the way. */
export function apiUrl(path: string, params?: QueryParams, now: number = Date.now()): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined) query.set(key, String(value));
  }
  query.set('_', String(now));
  return `${API_ROOT}${path.replace(/^\/+/, '').replace(/^api\//, '')}?${query.toString()}`;
}

function failRequest(kind: ApiErrorKind, path: string, status?: number): never {
  showErrorNotice(i18n.t('common.requestFailed'));
  throw new ApiError(kind, path, status);
}

/** Sends a request and reads the envelope; transport and HTTP failures end here. */
async function exchange<T>(path: string, url: string, init: RequestInit, toLogin = true): Promise<ApiReply<T>> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin', ...init });
  } catch {
    failRequest('network', path);
  }
  if (response.status === 401) {
    if (toLogin) redirectToLogin();
    throw new ApiError('unauthorized', path, 401);
  }
  if (!response.ok) failRequest('http', path, response.status);
  let reply: unknown;
  try {
    reply = await response.json();
  } catch {
    failRequest('invalid', path, response.status);
  }
  if (!isReply(reply)) failRequest('invalid', path, response.status);
  if (!reply.success && reply.msg === MSG.unauthorized) {
    if (toLogin) redirectToLogin();
    throw new ApiError('unauthorized', path, response.status, reply);
  }
  return reply as ApiReply<T>;
}

function isReply(value: unknown): value is ApiReply {
  return !!value && typeof value === 'object' && typeof (value as { success?: unknown }).success === 'boolean';
}

/** The notice for a refused call: the spec's visitor text, field review, or the message. */
export function failureMessage(reply: ApiFailure): string {
  if (reply.msg === MSG.forbidden) return i18n.t('common.visitorNoWriting');
  if (reply.errors && Object.keys(reply.errors).length > 0) return i18n.t(MSG.invalid);
  return translateMessage(reply.msg);
}

/** Reads `data` from GET /api/<path>. */
export async function apiGet<T>(path: string, params?: QueryParams): Promise<T> {
  const reply = await exchange<T>(path, apiUrl(path, params), {
    method: 'GET',
    headers: { accept: 'application/json' },
  });
  if (!reply.success) {
    showErrorNotice(failureMessage(reply));
    throw new ApiError('failed', path, undefined, reply);
  }
  return reply.data as T;
}

/**
 * Reads GET /api/<path> for a page outside the console that says itself when no one is
 * signed in (the browser terminal): resolves with the whole reply, a refusal included, without
 * a notice; rejects with kind `unauthorized` without going to /login. Transport and HTTP
 * failures are reported as for every call.
 */
export function apiGetReply<T>(path: string): Promise<ApiReply<T>> {
  return exchange<T>(path, apiUrl(path), { method: 'GET', headers: { accept: 'application/json' } }, false);
}

/**
 * Writes with POST /api/<path>. The body's `action` defaults to `update`. The loading
 * indicator stays up until every write has finished. A reply carrying `data.confirm` is
 * handed to the apply-confirmation store.
 */
export async function apiPost<T>(path: string, body?: Record<string, unknown>): Promise<ApiReply<T>> {
  const { csrf } = useSessionStore.getState();
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
  if (csrf) headers[CSRF_HEADER] = csrf;
  const loading = useLoadingStore.getState();
  loading.begin();
  try {
    const reply = await exchange<T>(path, apiUrl(path), {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...body, action: body?.action ?? 'update' }),
    });
    if (!reply.success) showErrorNotice(failureMessage(reply));
    // A write that can cut access off waits for confirmation: the shell's bar takes it.
    else offerApplyConfirm(reply.data);
    return reply;
  } finally {
    loading.end();
  }
}

function uploadFailed(): never {
  showErrorNotice(i18n.t('common.requestFailed'));
  throw new Error('upload failed');
}

/**
 * Sends a multipart form (a file and its fields). The JSON client cannot carry a file, so
 * this does what it does for a write: CSRF header, the loading indicator, 401 back to
 * sign-in, a notice for every refusal ('Visitor Permissions, No Writing' for a visitor).
 * A refusal resolves with the reply; `tooLargeMsg` names a body the server cut off (413).
 */
export async function apiUpload<T>(path: string, form: FormData, tooLargeMsg: string): Promise<ApiReply<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const { csrf } = useSessionStore.getState();
  if (csrf) headers[CSRF_HEADER] = csrf;
  const loading = useLoadingStore.getState();
  loading.begin();
  const refuse = (reply: ApiFailure): ApiReply<T> => {
    showErrorNotice(failureMessage(reply));
    return reply;
  };
  try {
    let response: Response;
    try {
      response = await fetch(apiUrl(path), { method: 'POST', credentials: 'same-origin', headers, body: form });
    } catch {
      uploadFailed();
    }
    if (response.status === 401) {
      redirectToLogin();
      throw new Error('unauthorized');
    }
    if (response.status === 413) return refuse({ success: false, msg: tooLargeMsg });
    if (!response.ok) uploadFailed();
    let reply: unknown;
    try {
      reply = await response.json();
    } catch {
      uploadFailed();
    }
    if (!reply || typeof reply !== 'object' || typeof (reply as { success?: unknown }).success !== 'boolean') uploadFailed();
    const typed = reply as ApiReply<T>;
    if (!typed.success && typed.msg === MSG.unauthorized) {
      redirectToLogin();
      throw new Error('unauthorized');
    }
    return typed.success ? typed : refuse(typed);
  } finally {
    loading.end();
  }
}
