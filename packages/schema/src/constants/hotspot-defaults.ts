/** Hotspot, accounting and authentication-server constants (spec §3, §5, §9). */

/** Accounting: interval in seconds; expire time in hours; expire flow in MB. */
export const ACCOUNTING = {
  interval: 120,
  intervalMin: 10,
  intervalMax: 300,
  expireTime: 24,
  expireFlow: 10,
} as const;

export const RADIUS_PORTS = {
  auth: 1812,
  accounting: 1813,
  /** Disconnect / change-of-authorisation messages (RFC 5176). */
  offline: 3799,
  /** Port of the portal page the RADIUS server redirects to. */
  portal: 80,
} as const;

export const LDAP_PORTS = {
  ldap: 389,
  ldaps: 636,
} as const;

/** Authentication validity is at most 20 days (spec §5, §9). */
export const AUTH_VALIDITY = {
  maxDays: 20,
  maxSeconds: 20 * 86400,
} as const;

/** Expiry reminders: time 1-60, traffic 1-100 MB (spec §5). */
export const EXPIRY_REMINDER = {
  timeMin: 1,
  timeMax: 60,
  trafficMinMb: 1,
  trafficMaxMb: 100,
} as const;

/** Remote reminder defaults (spec §3): interval in hours. */
export const REMOTE_REMINDER = {
  interval: 24,
  port: 80,
} as const;

/** Cloud portal request timeout in seconds (spec §3). */
export const CLOUD_PORTAL_TIMEOUT = 30;

/** Simultaneous logins of one local user; 0 means unlimited (spec §3). */
export const LOCAL_USER_CONCURRENCY_DEFAULT = 1;

/** Upload limits (spec §5). Sizes in bytes; K is 1024. */
export const UPLOAD_LIMITS = {
  portalPictureBytes: 200 * 1024,
  logoBytes: 30 * 1024,
  logoWidth: 960,
  logoHeight: 640,
  /** A custom portal page is uploaded as a zip archive only, of at most this size. */
  customPortalExtensions: ['.zip'],
  customPortalBytes: 5 * 1024 * 1024,
} as const;

/** "No special characters in the name" (spec §5): letters, digits, dot, hyphen, underscore. */
export const UPLOAD_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
