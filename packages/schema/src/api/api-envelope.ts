/** The API contract of DESIGN §3 / spec §7. */

export interface ApiSuccess<T = unknown> {
  success: true;
  data?: T;
}

export interface ApiFailure {
  success: false;
  /** A message key or the spec's literal message (`forbidden`). */
  msg: string;
  /** Field name -> i18n key. */
  errors?: Record<string, string>;
}

export type ApiReply<T = unknown> = ApiSuccess<T> | ApiFailure;

export interface ListPage<T> {
  items: T[];
  total: number;
}

/** Query parameters every list read accepts. */
export interface ListQuery {
  page?: number;
  pageSize?: number;
  sort?: string;
  order?: 'asc' | 'desc';
  q?: string;
}

/** Write actions of §7; domain commands add their own names. */
export const WRITE_ACTIONS = ['update', 'add', 'delete', 'get', 'clean', 'download'] as const;
export type WriteAction = (typeof WRITE_ACTIONS)[number];

/** Header that carries the per-session CSRF token on every state-changing request. */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * A browser cannot set headers on a WebSocket upgrade: it offers the CSRF token as one of the
 * subprotocols, `csrf.<token>` (the token is base64url, valid in a subprotocol name).
 */
export const CSRF_PROTOCOL_PREFIX = 'csrf.';

/** Messages with a fixed meaning on the wire. */
export const MSG = {
  forbidden: 'forbidden',
  unauthorized: 'unauthorized',
  invalid: 'msg.reviewFields',
  saveFailed: 'msg.saveFailed',
  loginRequired: 'msg.loginRequired',
  loginWrong: 'msg.loginWrong',
  loginLocked: 'msg.loginLocked',
  ipNotAllowed: 'msg.ipNotAllowed',
  csrf: 'msg.csrf',
  notFound: 'msg.notFound',
  changePassword: 'msg.changePassword',
  nameExists: 'msg.nameExists',
  /** An action of a function this device does not have yet (disks, logs, licence activation). */
  notAvailableYet: 'msg.notAvailableYet',
} as const;
