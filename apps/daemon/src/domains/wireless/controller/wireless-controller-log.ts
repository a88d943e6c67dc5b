import { LOG_LEVELS, type LogEntry } from '@portico/schema';

/**
 * Entries of the wireless log (Logs → wireless). A device's own lines carry its text, which
 * the console shows escaped; what the controller itself reports is an i18n key with values,
 * which the console translates (the keys are listed in this folder's README).
 */

/** syslog severities, as devices use them (PROTOCOL.md "severity"). */
export const SEVERITY = { critical: 2, error: 3, warning: 4, notice: 5, info: 6 } as const;

export const WIRELESS_LOG_KEYS = [
  'wireless.log.connected',
  'wireless.log.pendingAdoption',
  'wireless.log.refusedRevoked',
  'wireless.log.revoked',
  'wireless.log.replaced',
  'wireless.log.disconnected',
  'wireless.log.silent',
  'wireless.log.serialMismatch',
  'wireless.log.frameFault',
  'wireless.log.connectFirst',
  'wireless.log.invalidReport',
  'wireless.log.configApplied',
  'wireless.log.configAppliedWithChanges',
  'wireless.log.configRejected',
  'wireless.log.configPending',
  'wireless.log.configNoAnswer',
  'wireless.log.configInvalid',
  'wireless.log.internalError',
] as const;
export type WirelessLogKey = (typeof WIRELESS_LOG_KEYS)[number];

interface LogEntryBase {
  serial: string;
  /** 0 (emergency) to 7 (debug). */
  severity: number;
  /** Milliseconds since the epoch (the controller's clock). */
  time: number;
}

export type WirelessLogEntry =
  | (LogEntryBase & { source: 'device'; text: string })
  | (LogEntryBase & { source: 'controller'; key: WirelessLogKey; values: Record<string, string | number> });

/** A record as an entry of the Logs menu's wireless log: a device's text as written, the controller's as a key. */
export function wirelessLogEntry(entry: WirelessLogEntry): LogEntry {
  const level = LOG_LEVELS[Math.min(7, Math.max(0, Math.trunc(entry.severity)))]!;
  return entry.source === 'device'
    ? { time: entry.time, level, origin: entry.serial, text: entry.text }
    : { time: entry.time, level, origin: entry.serial, key: entry.key, values: entry.values };
}
