import { useMenuStore } from '../state/menu-store.js';
import { useSessionStore } from '../state/session-store.js';

export const LOGIN_PATH = '/login';
export const CHANGE_PASSWORD_PATH = '/modpwd';
export const HOME_PATH = '/dashboard';
/** The browser terminal, outside the shell (spec §2 public routes). */
export const RTTY_PATH = '/rtty';

type Navigate = (to: string, options?: { replace?: boolean }) => void;

let navigate: Navigate | null = null;

/** The router registers itself here so code outside components can change the page. */
export function bindNavigator(next: Navigate): void {
  navigate = next;
}

function currentPath(): string {
  return typeof window === 'undefined' ? '' : window.location.pathname;
}

/** A 401 reply: the session is gone, so forget it and show the sign-in page (no notice). */
export function redirectToLogin(): void {
  useSessionStore.getState().signOut();
  useMenuStore.getState().reset();
  if (currentPath() === LOGIN_PATH) return;
  if (navigate) navigate(LOGIN_PATH, { replace: true });
  else if (typeof window !== 'undefined') window.location.assign(LOGIN_PATH);
}
