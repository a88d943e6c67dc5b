import type { MenuSection } from '@portico/schema';
import { apiGet, ApiError } from '../api/api-client.js';
import { adoptServerLanguage } from '../i18n/console-i18n.js';
import { useMenuStore } from './menu-store.js';
import { parseSession, useSessionStore } from './session-store.js';

export type SessionLoad = 'signedIn' | 'signedOut' | 'failed';

let sessionRequest: Promise<SessionLoad> | null = null;

/** GET /api/islogin; a 401 has already sent the browser to /login. One request at a time. */
export function loadSession(): Promise<SessionLoad> {
  sessionRequest ??= (async (): Promise<SessionLoad> => {
    try {
      const info = parseSession(await apiGet<unknown>('islogin'));
      if (!info.username) {
        useSessionStore.getState().signOut();
        return 'signedOut';
      }
      useSessionStore.getState().signIn(info);
      await adoptServerLanguage(info.lang);
      return 'signedIn';
    } catch (error) {
      return error instanceof ApiError && error.kind === 'unauthorized' ? 'signedOut' : 'failed';
    } finally {
      sessionRequest = null;
    }
  })();
  return sessionRequest;
}

/** GET /api/menu: what this account may open on this device. */
export async function loadMenu(): Promise<void> {
  const menu = useMenuStore.getState();
  if (menu.status === 'loading') return;
  menu.setLoading();
  try {
    const sections = await apiGet<MenuSection[]>('menu');
    useMenuStore.getState().setSections(Array.isArray(sections) ? sections : []);
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'unauthorized') useMenuStore.getState().reset();
    else useMenuStore.getState().setFailed();
  }
}
