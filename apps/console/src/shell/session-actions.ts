import { apiGet } from '../api/api-client.js';
import { LOGIN_PATH } from '../routes/navigation.js';
import { useMenuStore } from '../state/menu-store.js';
import { useSessionStore } from '../state/session-store.js';

/**
 * Ends the session on the device (GET /api/logout) and shows the sign-in page. The local
 * session is dropped even when the call fails, so the console never stays half signed in.
 */
export async function logout(navigate: (to: string, options?: { replace?: boolean }) => void): Promise<void> {
  try {
    await apiGet('logout');
  } catch {
    // Reported by the client already.
  } finally {
    useSessionStore.getState().signOut();
    useMenuStore.getState().reset();
    navigate(LOGIN_PATH, { replace: true });
  }
}
