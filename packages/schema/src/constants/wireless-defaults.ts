/** Wireless controller defaults (spec §5, §9). Signal levels in dBm. */

export const CPE_DEFAULTS = {
  rts: 2347,
  rejectRssi: -95,
  /** Daily reboot time, hours and minutes (4:30). */
  rebootTime: { hour: 4, minute: 30 },
} as const;

export const AP_DEFAULTS = {
  country: 'CN',
  /** RTS/CTS threshold; 2347 turns RTS/CTS off. */
  rtsCts: 2347,
  /** An AP running for less than this is not rebooted (seconds). */
  minUptimeBeforeReboot: 3600,
} as const;

export const ROAMING_THRESHOLD = {
  default: -85,
  min: -95,
  max: -65,
} as const;

/** Channel scan time per AP during channel planning, seconds (spec §4). */
export const CHANNEL_SCAN_SECONDS = { min: 5, max: 15 } as const;
