/**
 * Roles and per-page authorisation (spec §6). A page permission is one of forbidden,
 * readonly, access, modify. `access` may open a page and run its commands (kick, diagnose)
 * but not change configuration; `modify` may do both. When rules disagree, the stricter one
 * wins: deny takes priority over read-only.
 */

export const PAGE_PERMISSIONS = ['forbidden', 'readonly', 'access', 'modify'] as const;
export type PagePermission = (typeof PAGE_PERMISSIONS)[number];

/** Privilege numbers stored on admin users. The built-in account is 0. */
export const ROLES = {
  manager: 0,
  voucherAdmin: 1,
  guest: 2,
} as const;
export type RoleName = keyof typeof ROLES;
export const PRIVILEGES = [ROLES.manager, ROLES.voucherAdmin, ROLES.guest] as const;
export type Privilege = (typeof PRIVILEGES)[number];

export function roleOf(privilege: number): RoleName {
  if (privilege === ROLES.manager) return 'manager';
  if (privilege === ROLES.voucherAdmin) return 'voucherAdmin';
  return 'guest';
}

/** What a request does to a page: read it, run a command, or change configuration. */
export type RouteEffect = 'read' | 'action' | 'write';

/** Pages every signed-in account may read: the shell needs them. */
export const SHELL_MODULES = ['session', 'dashboard'] as const;

/** Pages a voucher administrator works on; it may read the dashboard and nothing else. */
const VOUCHER_ADMIN_PAGES: Record<string, PagePermission> = {
  session: 'modify',
  dashboard: 'readonly',
  voucher: 'modify',
  voucherbatch: 'modify',
  localuser: 'modify',
  billingplan: 'readonly',
  authuserinfo: 'access',
};

/**
 * The permission a role has on a page module. `overrides` are per-account page rules; they
 * can only make things stricter than the role (deny over read-only), never wider.
 */
export function pagePermission(
  role: RoleName,
  module: string,
  overrides?: Readonly<Record<string, PagePermission>>,
): PagePermission {
  let base: PagePermission;
  if (role === 'manager') base = 'modify';
  else if (role === 'voucherAdmin') base = VOUCHER_ADMIN_PAGES[module] ?? 'forbidden';
  else base = module === 'session' ? 'modify' : 'readonly';
  const extra = overrides?.[module];
  return extra ? stricter(base, extra) : base;
}

export function stricter(a: PagePermission, b: PagePermission): PagePermission {
  return PAGE_PERMISSIONS.indexOf(a) <= PAGE_PERMISSIONS.indexOf(b) ? a : b;
}

/** Whether a permission allows a route's effect. */
export function permits(permission: PagePermission, effect: RouteEffect): boolean {
  if (permission === 'forbidden') return false;
  if (effect === 'read') return true;
  if (effect === 'action') return permission === 'access' || permission === 'modify';
  return permission === 'modify';
}
