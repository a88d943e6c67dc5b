/** Security, monitoring and login-protection constants (spec §5, §6, §9). */

/** Health monitoring interval, seconds. */
export const HEALTH_MONITOR_INTERVAL = 10;

/** Behaviour audit (URL/IP logging) storage policy. */
export const BEHAVIOUR_AUDIT = {
  /** Retention grows with disk size between these bounds. */
  retentionMinDays: 3,
  retentionMaxMonths: 6,
  /** Oldest records are removed when disk use goes above this percentage. */
  cleanAbovePercent: 80,
  /** Auditing needs a disk larger than 500 MB. */
  minDiskBytes: 500 * 1024 * 1024,
} as const;

/** After 5 wrong passwords login is refused for 5 minutes. */
export const LOGIN_LOCK = {
  attempts: 5,
  seconds: 300,
} as const;

/** Domain the health monitor asks the upstream DNS server for and fetches over HTTP (spec §3 "Health report": network). */
export const HEALTH_PROBE_DOMAIN = 'www.baidu.com';
