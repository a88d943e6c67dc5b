import { hasPortalKey } from './portal-i18n.js';

/**
 * The portal's side of /portal-api (see the hotspot engine's contract). Every answer is
 * checked field by field: whatever arrives is shown as text, and malformed answers read as a
 * system error rather than breaking a page.
 */

export const LOGIN_METHODS = ['voucher', 'local', 'password', 'onekey', 'ldap', 'sms'] as const;
export type LoginMethod = (typeof LOGIN_METHODS)[number];

export interface PortalZone {
  welcome: string;
  contact: string;
  copyright: string;
  logintext: string;
  chargetext: string;
  tos: string;
  /** The terms' own heading; '' when the operator gave none. */
  tosTitle: string;
  methods: LoginMethod[];
  logo?: string;
  picture?: string;
  redirectUrl?: string;
}

/** Remaining allowance; null is unlimited. */
export interface PortalQuota {
  secondsRemaining: number | null;
  bytesRemaining: number | null;
}

export interface PortalSession extends PortalQuota {
  username?: string;
  plan?: string;
}

export interface PortalState {
  authorized: boolean;
  zone: PortalZone;
  session?: PortalSession;
}

export interface LoginGrant extends PortalQuota {
  redirectUrl?: string;
}

export type LoginRequest =
  | { method: 'voucher'; code: string }
  | { method: 'local'; username: string; password: string }
  | { method: 'password'; password: string }
  | { method: 'onekey' }
  | { method: 'ldap'; username: string; password: string }
  | { method: 'sms'; phone: string; code: string };

/** A code was sent: another may be asked for after this many seconds. */
export interface SmsCodeSent {
  resendSeconds: number;
}

export interface UserAccount {
  username: string;
  plan: string;
  /** Epoch seconds or a date text; 0 / '' / null: no expiry. */
  duetime: number | string | null;
  /** Bytes; 0 is unlimited. */
  totalflow: number;
  usedflow: number;
  /** Devices at the same time; 0 is unlimited. */
  usernum: number;
}

export const NOTICE_TEMPLATES = ['default', 'simple'] as const;
export type NoticeTemplate = (typeof NOTICE_TEMPLATES)[number];

export interface ExpiredNotice {
  content?: string;
  renewUrl?: string;
  /** The reminder returns to the page the client asked for by itself. */
  refresh: boolean;
  /** `simple`: the text and the actions only. */
  template: NoticeTemplate;
  /** Present when the client is still online: it is reminded that its access is running out. */
  session?: PortalSession;
}

/**
 * `fieldsOnly`: the server only named invalid fields (its message is not a portal text), so
 * forms show the field errors without a general message.
 */
export type ApiFailure = { ok: false; msg: string; errors: Record<string, string>; fieldsOnly?: boolean };
export type ApiResult<T> = { ok: true; data: T } | ApiFailure;

export const NETWORK_ERROR = 'portal.error.network';
export const SYSTEM_ERROR = 'portal.error.system';
export const TOO_MANY_ERROR = 'portal.error.tooMany';

type Parser<T> = (data: unknown) => T | null;

function failure(msg: string, errors: Record<string, string> = {}): ApiFailure {
  return { ok: false, msg, errors };
}

/** Only portal error keys are shown; anything else the server says reads as a system error. */
function serverFailure(msg: unknown, errors: Record<string, string>): ApiFailure {
  if (typeof msg === 'string' && msg.startsWith('portal.error.') && hasPortalKey(msg)) return failure(msg, errors);
  return { ...failure(SYSTEM_ERROR, errors), fieldsOnly: Object.keys(errors).length > 0 };
}

function fieldErrors(errors: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(errors)) return out;
  for (const [field, key] of Object.entries(errors)) {
    if (typeof key === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(field)) out[field] = key;
  }
  return out;
}

async function call<T>(method: 'GET' | 'POST', path: string, parse: Parser<T>, body?: object): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(`/portal-api/${path}`, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: body ? { 'content-type': 'application/json' } : undefined,
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    return failure(NETWORK_ERROR);
  }
  let envelope: unknown;
  try {
    envelope = await response.json();
  } catch {
    return failure(response.status === 429 ? TOO_MANY_ERROR : NETWORK_ERROR);
  }
  if (!isRecord(envelope)) return failure(NETWORK_ERROR);
  if (envelope.success === true) {
    const data = parse(envelope.data);
    return data === null ? failure(SYSTEM_ERROR) : { ok: true, data };
  }
  if (envelope.success === false) return serverFailure(envelope.msg, fieldErrors(envelope.errors));
  return failure(response.status === 429 ? TOO_MANY_ERROR : NETWORK_ERROR);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A non-negative count, or undefined when the value is not one. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

/** A quota: a count or null (unlimited); undefined when malformed. */
function quota(value: unknown): number | null | undefined {
  return value === null ? null : count(value);
}

function parseQuota(data: Record<string, unknown>): PortalQuota | null {
  const secondsRemaining = quota(data.secondsRemaining);
  const bytesRemaining = quota(data.bytesRemaining);
  if (secondsRemaining === undefined || bytesRemaining === undefined) return null;
  return { secondsRemaining, bytesRemaining };
}

export function parseZone(data: unknown): PortalZone | null {
  if (!isRecord(data)) return null;
  const methods = Array.isArray(data.methods)
    ? LOGIN_METHODS.filter((method) => (data.methods as unknown[]).includes(method))
    : [];
  return {
    welcome: text(data.welcome),
    contact: text(data.contact),
    copyright: text(data.copyright),
    logintext: text(data.logintext),
    chargetext: text(data.chargetext),
    tos: text(data.tos),
    tosTitle: text(data.tosTitle),
    methods,
    logo: safeUrl(data.logo),
    picture: safeUrl(data.picture),
    redirectUrl: safeUrl(data.redirectUrl),
  };
}

export function parseState(data: unknown): PortalState | null {
  if (!isRecord(data) || typeof data.authorized !== 'boolean') return null;
  const zone = parseZone(data.zone);
  if (!zone) return null;
  const state: PortalState = { authorized: data.authorized, zone };
  if (isRecord(data.session)) {
    const remaining = parseQuota(data.session);
    if (!remaining) return null;
    state.session = { ...remaining, username: optionalText(data.session.username), plan: optionalText(data.session.plan) };
  }
  return state;
}

function parseGrant(data: unknown): LoginGrant | null {
  if (!isRecord(data)) return null;
  const remaining = parseQuota(data);
  return remaining && { ...remaining, redirectUrl: safeUrl(data.redirectUrl) };
}

export function parseAccount(data: unknown): UserAccount | null {
  if (!isRecord(data) || typeof data.username !== 'string') return null;
  const duetime = typeof data.duetime === 'string' ? data.duetime : (count(data.duetime) ?? null);
  return {
    username: data.username,
    plan: text(data.plan),
    duetime,
    totalflow: count(data.totalflow) ?? 0,
    usedflow: count(data.usedflow) ?? 0,
    usernum: count(data.usernum) ?? 0,
  };
}

export function parseExpiredNotice(data: unknown): ExpiredNotice | null {
  if (!isRecord(data)) return null;
  const notice: ExpiredNotice = {
    content: optionalText(data.content),
    renewUrl: safeUrl(data.renewUrl),
    refresh: data.refresh === true,
    template: NOTICE_TEMPLATES.find((template) => template === data.template) ?? 'default',
  };
  if (isRecord(data.session)) {
    const remaining = parseQuota(data.session);
    if (remaining) notice.session = { ...remaining, username: optionalText(data.session.username), plan: optionalText(data.session.plan) };
  }
  return notice;
}

const accepted: Parser<Record<string, never>> = () => ({});

/**
 * An address the portal may link to or load an image from: http(s) only, so a value such as
 * `javascript:` never reaches an href.
 */
export function safeUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    const base = globalThis.location?.href ?? 'http://portal.invalid/';
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export const portalApi = {
  state: () => call('GET', 'state', parseState),
  login: (request: LoginRequest, acceptTerms: boolean) => call('POST', 'login', parseGrant, { ...request, acceptTerms }),
  logout: () => call('POST', 'logout', accepted),
  userLogin: (username: string, password: string) => call('POST', 'user/login', parseAccount, { username, password }),
  userMe: () => call('GET', 'user/me', parseAccount),
  userRegister: (username: string, password: string, tel: string) =>
    call('POST', 'user/register', accepted, tel ? { username, password, tel } : { username, password }),
  userChangePassword: (oldPassword: string, newPassword: string) =>
    call('POST', 'user/cpwd', accepted, { oldPassword, newPassword }),
  userLogout: () => call('POST', 'user/logout', accepted),
  localNotice: () =>
    call('GET', 'notice/local', (data) => (isRecord(data) ? { content: text(data.content) } : null)),
  expiredNotice: () => call('GET', 'notice/expired', parseExpiredNotice),
  smsCode: (phone: string) =>
    call('POST', 'sms/code', (data): SmsCodeSent | null => (isRecord(data) ? { resendSeconds: count(data.resendSeconds) ?? 60 } : null), { phone }),
};
