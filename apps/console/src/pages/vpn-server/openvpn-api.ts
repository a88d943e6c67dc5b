import { CSRF_HEADER } from '@portico/schema';
import { apiUrl } from '../../api/api-client.js';
import { i18n } from '../../i18n/console-i18n.js';
import { redirectToLogin } from '../../routes/navigation.js';
import { showErrorNotice } from '../../shell/notice.js';
import { useLoadingStore } from '../../state/loading-store.js';
import { useSessionStore } from '../../state/session-store.js';

/** The daemon's OpenVPN server routes (domains/vpn-server/vpn-server-routes.ts). */
export const OPENVPN_PATHS = {
  clients: 'auth/openvpn/clients',
  exportconf: 'auth/openvpn/exportconf',
  server: 'auth/openvpn/server',
  status: 'auth/openvpn/status',
  ca: 'auth/openvpn/ca',
  rsa: 'rsa',
} as const;

export interface OpenvpnClientRow {
  name: string;
  remark: string;
  status: 'valid' | 'revoked';
  serial: string;
  issued: number;
  revoked: number | null;
}

export interface OpenvpnSessionRow {
  name: string;
  from: string;
  address: string;
  since: number;
  rx: number;
  tx: number;
}

/**
 * Downloads a client's `.ovpn` profile (its private key inside) and hands it to the browser.
 * The daemon answers the file itself, or a JSON failure whose message is shown.
 */
export async function downloadProfile(name: string): Promise<boolean> {
  const { csrf } = useSessionStore.getState();
  const headers = new Headers({ 'content-type': 'application/json' });
  if (csrf) headers.set(CSRF_HEADER, csrf);
  const loading = useLoadingStore.getState();
  loading.begin();
  let response: Response;
  try {
    response = await fetch(apiUrl(OPENVPN_PATHS.exportconf), { method: 'POST', credentials: 'same-origin', headers, body: JSON.stringify({ name }) });
  } catch {
    showErrorNotice(i18n.t('common.requestFailed'));
    return false;
  } finally {
    loading.end();
  }
  if (response.status === 401) {
    redirectToLogin();
    return false;
  }
  if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('application/x-openvpn-profile')) {
    const reply = (await response.json().catch(() => null)) as { msg?: string } | null;
    showErrorNotice(i18n.t(reply?.msg ?? 'common.requestFailed'));
    return false;
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `${name}.ovpn`;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The click has handed the blob to the browser's download by the next task.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return true;
}
