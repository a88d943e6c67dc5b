import { existsSync, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { isHostTarget, isTimeZoneName, systemTime, type AnyEntity, type SystemTime } from '@portico/schema';
import { singletonRecord } from '../../config/config-domains.js';
import type { ConfigSnapshot } from '../../config/config-types.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import type { RenderedFile } from '../../engine/engine-types.js';

/**
 * Time as files: the zone name in /etc/timezone (the zoneinfo link follows it on activation)
 * and systemd-timesyncd's drop-in with the NTP servers. timesyncd is the NTP client the image
 * carries (image/image-packages.json); it cannot serve time, so the LAN's NTP server is the
 * daemon's own SNTP responder (system-time-sntp.ts).
 */
export const TIMEZONE_FILE = '/etc/timezone';
export const TIMESYNCD_FILE = '/etc/systemd/timesyncd.conf.d/60-portico.conf';
/** Where the tz database lives on Debian and OpenWrt (zoneinfo packages). */
export const ZONEINFO_DIR = '/usr/share/zoneinfo';

/** The saved time settings, or undefined before the first save (the system's own stay then). */
export function savedTimeSettings(snapshot: ConfigSnapshot): SystemTime | undefined {
  const stored = singletonRecord(snapshot, systemTime.name);
  if (!stored) return undefined;
  return systemTime.schema.parse({ ...singletonDefaults(systemTime as unknown as AnyEntity), ...stored }) as SystemTime;
}

function zoneName(value: string): string {
  if (!isTimeZoneName(value)) throw new Error(`not a time zone name: ${JSON.stringify(value.slice(0, 40))}`);
  return value;
}

function ntpHost(value: string): string {
  if (!isHostTarget(value)) throw new Error(`not an NTP server: ${JSON.stringify(value.slice(0, 40))}`);
  return value;
}

export function renderTimezone(settings: SystemTime): string {
  return `${zoneName(settings.timezone)}\n`;
}

/** timesyncd drop-in: NTP= empty with the client off, so timesyncd has no server to ask. */
export function renderTimesyncd(settings: SystemTime): string {
  const servers = settings.ntp_client ? settings.ntp_servers.map(ntpHost) : [];
  return ['# Portico time settings. Generated; changes are overwritten.', '[Time]', `NTP=${servers.join(' ')}`, 'FallbackNTP=', ''].join('\n');
}

export function renderTimeFiles(snapshot: ConfigSnapshot): RenderedFile[] {
  const settings = savedTimeSettings(snapshot);
  if (!settings) return [];
  return [
    { target: TIMEZONE_FILE, content: renderTimezone(settings), check: 'timezone', mode: 0o644 },
    { target: TIMESYNCD_FILE, content: renderTimesyncd(settings), check: 'timesyncd', mode: 0o644 },
  ];
}

/** Builtin check of /etc/timezone: one zone name and a newline. */
export function checkTimezone(content: string): string | null {
  return /^[A-Za-z][A-Za-z0-9_+/-]{0,96}\n$/.test(content) && isTimeZoneName(content.slice(0, -1)) ? null : 'not one time zone name';
}

const TIMESYNCD_LINE = /^(?:#[\x20-\x7e]*|\[Time\]|NTP=[A-Za-z0-9.:_ -]*|FallbackNTP=)$/;

/** Builtin check of the timesyncd drop-in: only the lines this renderer writes. */
export function checkTimesyncd(content: string): string | null {
  if (!content.endsWith('\n')) return 'file does not end with a newline';
  const lines = content.slice(0, -1).split('\n');
  if (!lines.includes('[Time]')) return 'no [Time] section';
  const bad = lines.find((line) => !TIMESYNCD_LINE.test(line));
  if (bad !== undefined) return `not a timesyncd line: ${JSON.stringify(bad.slice(0, 80))}`;
  const ntp = lines.find((line) => line.startsWith('NTP='))!.slice(4);
  return ntp === '' || ntp.split(' ').every(isHostTarget) ? null : 'not an NTP server list';
}

/** Whether the tz database under `zoneinfo` holds the zone: a TZif file, read by name only. */
export function zoneExists(zone: string, zoneinfo: string = ZONEINFO_DIR): boolean {
  if (!isTimeZoneName(zone)) return false;
  const path = join(zoneinfo, zone);
  if (!existsSync(path)) return false;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const magic = Buffer.alloc(4);
    return readSync(fd, magic, 0, 4, 0) === 4 && magic.toString('latin1') === 'TZif';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
