/** The pages of this bundle. */
export type PortalPage =
  | 'authPortal'
  | 'authSuccess'
  | 'noticeExpired'
  | 'noticeLocal'
  | 'userLogin'
  | 'userRegister'
  | 'userCpwd'
  | 'userMgr'
  | 'userMgrsuc'
  | 'notAvailable';

/**
 * The public routes of spec §2. The self-service pages answer both under /terminal/user and
 * under /user (where the daemon also serves them); the parents show their first child.
 * The social-login callback belongs to a feature this bundle does not carry; /rtty is the
 * console's (the browser terminal needs an administrator's session).
 */
const ROUTES: Record<string, PortalPage> = {
  '/': 'authPortal',
  '/auth': 'authPortal',
  '/auth/portal': 'authPortal',
  '/auth/success': 'authSuccess',
  '/auth/social/callback': 'notAvailable',
  '/notice': 'noticeLocal',
  '/notice/expired': 'noticeExpired',
  '/notice/local': 'noticeLocal',
};

const USER_PAGES: Record<string, PortalPage> = {
  '': 'userLogin',
  '/login': 'userLogin',
  '/register': 'userRegister',
  '/cpwd': 'userCpwd',
  '/mgr': 'userMgr',
  '/mgrsuc': 'userMgrsuc',
};

function normalise(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
}

/** The page for a path, or null (not found). */
export function resolvePage(pathname: string): PortalPage | null {
  const path = normalise(pathname);
  if (path === '/terminal') return 'userLogin';
  const base = userBase(path);
  if (path.startsWith(base) && (path.length === base.length || path[base.length] === '/')) {
    return USER_PAGES[path.slice(base.length)] ?? null;
  }
  return ROUTES[path] ?? null;
}

export function isPortalPage(pathname: string): boolean {
  return resolvePage(pathname) !== null;
}

/** Where the self-service pages live for this visit: /terminal/user or /user. */
export function userBase(pathname: string): string {
  return pathname === '/terminal' || pathname.startsWith('/terminal/') ? '/terminal/user' : '/user';
}
