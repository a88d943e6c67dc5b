/** The public pages this bundle answers (spec §2 "Public routes"). */
export const PORTAL_PAGES = [
  '/auth',
  '/auth/portal',
  '/auth/success',
  '/auth/social/callback',
  '/notice',
  '/notice/expired',
  '/notice/local',
  '/terminal',
  '/terminal/user',
  '/terminal/user/login',
  '/terminal/user/register',
  '/terminal/user/cpwd',
  '/terminal/user/mgrsuc',
  '/terminal/user/mgr',
  '/user',
  '/rtty',
] as const;

export function isPortalPage(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return (PORTAL_PAGES as readonly string[]).includes(path);
}
