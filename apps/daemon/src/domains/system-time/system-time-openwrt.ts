import { closeSync, openSync, readFileSync, readSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { isHostTarget, systemTime, type AnyEntity, type SystemTime } from '@portico/schema';
import { extensionPoint, type ServiceReload } from '../../config/domain-module.js';
import type { ConfigDomain, ConfigSnapshot } from '../../config/config-types.js';
import { singletonRecord } from '../../config/config-domains.js';
import { singletonDefaults } from '../../config/entity-routes.js';
import { parseUci, serializeUci, type UciPackage, type UciSection } from '../../engine/uci-format.js';
import { ZONEINFO_DIR } from './system-time-render.js';

/**
 * Time on the `openwrt` driver: UCI `system`, read by /etc/init.d/system (zone, host name:
 * `zonename` for the zone's name, `timezone` for the POSIX TZ string musl reads from /tmp/TZ)
 * and /etc/init.d/sysntpd (BusyBox ntpd: `system.ntp` servers, `enable_server` to answer the
 * LAN). The file is the device's whole `system` package: what the daemon does not own there (the
 * board's LED sections, `compat_version` that sysupgrade checks, log and login options) is read
 * from the installed file and kept as it is.
 */
export const OPENWRT_SYSTEM_FILE = '/etc/config/system';

/** Both services read the package; the zone and host name first, then the NTP daemon. */
export const OPENWRT_SYSTEM_RELOADS: readonly ServiceReload[] = [{ argv: ['/etc/init.d/system', 'reload'] }, { argv: ['/etc/init.d/sysntpd', 'reload'] }];

/** A domain's options of the `system` section (the host name), from its own entities. */
export interface SystemUciContributor {
  entities: readonly string[];
  /** undefined: nothing saved yet (the file is then not written for this contributor). */
  options(snapshot: ConfigSnapshot): Record<string, string> | undefined;
}

export const SYSTEM_UCI_OPTIONS = extensionPoint<SystemUciContributor>('system-time.openwrt-system');

export class ZoneError extends Error {}

/** What a POSIX TZ string may hold (POSIX.1 §8.3: names, <+03>, offsets, M/J rules). */
const POSIX_TZ = /^[A-Za-z0-9<>+\-:,./]{3,100}$/;

/**
 * The POSIX TZ string of a zone: the footer of its TZif file (version 2 and later), the last
 * line between the final two newlines, as zic writes it.
 */
export function posixTimezone(zone: string, zoneinfo: string = ZONEINFO_DIR): string {
  let fd: number | undefined;
  let data: Buffer;
  try {
    fd = openSync(join(zoneinfo, zone), 'r');
    const size = fstatSync(fd).size;
    if (size > 1 << 20) throw new ZoneError(`${zone}: not a TZif file`);
    data = Buffer.alloc(size);
    readSync(fd, data, 0, size, 0);
  } catch (error) {
    if (error instanceof ZoneError) throw error;
    throw new ZoneError(`${zone}: not in the tz database`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (data.subarray(0, 4).toString('latin1') !== 'TZif' || data[4]! < 0x32 || data.at(-1) !== 0x0a) throw new ZoneError(`${zone}: no POSIX TZ footer`);
  const footer = data.subarray(data.lastIndexOf(0x0a, data.length - 2) + 1, data.length - 1).toString('latin1');
  if (!POSIX_TZ.test(footer)) throw new ZoneError(`${zone}: footer ${JSON.stringify(footer.slice(0, 40))} is not a POSIX TZ string`);
  return footer;
}

function ntpHost(value: string): string {
  if (!isHostTarget(value)) throw new ZoneError(`not an NTP server: ${JSON.stringify(value.slice(0, 40))}`);
  return value;
}

/** The time settings over their declared defaults (what the console shows before a save). */
function timeSettings(snapshot: ConfigSnapshot): SystemTime {
  const stored = singletonRecord(snapshot, systemTime.name) ?? {};
  return systemTime.schema.parse({ ...singletonDefaults(systemTime as unknown as AnyEntity), ...stored }) as SystemTime;
}

/** The options of the `system` section the daemon sets; everything else in the package is the device's. */
const OWNED_SYSTEM_OPTIONS = ['zonename', 'timezone'] as const;

/** OpenWrt's own defaults, written only where the installed file has no value of its own. */
const SYSTEM_DEFAULTS: Record<string, string> = { ttylogin: '0', log_size: '64', urandom_seed: '0' };

/**
 * The package's sections: the first `system` section with the zone and contributed options over
 * the installed ones, `timeserver ntp` as the settings say, and every other installed section
 * unchanged (`installed`: the device's current package, [] when there is none).
 */
export function renderUciSystem(settings: SystemTime, contributed: Record<string, string>, zoneinfo: string = ZONEINFO_DIR, installed: UciPackage = []): UciSection[] {
  const current = installed.find((section) => section.type === 'system');
  const kept = Object.fromEntries(Object.entries(current?.options ?? {}).filter(([key]) => !(OWNED_SYSTEM_OPTIONS as readonly string[]).includes(key)));
  const system: Record<string, string | string[]> = { ...kept, ...contributed, zonename: settings.timezone, timezone: posixTimezone(settings.timezone, zoneinfo) };
  for (const [key, value] of Object.entries(SYSTEM_DEFAULTS)) if (!(key in system)) system[key] = value;
  const ntp: Record<string, string | string[]> = {
    enabled: settings.ntp_client ? '1' : '0',
    enable_server: settings.ntp_server ? '1' : '0',
  };
  // BusyBox ntpd serving the LAN still needs a peer list; with the client off it has none and
  // answers from the local clock.
  if (settings.ntp_client) ntp.server = settings.ntp_servers.map(ntpHost);
  const others = installed.filter((section) => section !== current && !(section.type === 'timeserver' && section.name === 'ntp'));
  return [{ type: 'system', ...(current?.name !== undefined ? { name: current.name } : {}), options: system }, { type: 'timeserver', name: 'ntp', options: ntp }, ...others];
}

/** The installed package, or [] when there is none or it cannot be read as UCI (rendered fresh then). */
function installedPackage(systemRoot: string | undefined): UciPackage {
  if (systemRoot === undefined) return [];
  try {
    return parseUci(readFileSync(join(systemRoot, OPENWRT_SYSTEM_FILE), 'utf8'));
  } catch {
    return [];
  }
}

/**
 * The config domain of /etc/config/system. Until the time settings or a contributor's entity
 * were saved the device's own file stays, untouched (`keepInstalled`); after that it is rendered
 * over the installed one, unsaved settings at their declared defaults, as the console shows them.
 */
export function openwrtSystemDomain(contributors: readonly SystemUciContributor[], systemRoot: string | undefined, zoneinfo: string = ZONEINFO_DIR): ConfigDomain {
  const nothingSaved = (snapshot: ConfigSnapshot) => singletonRecord(snapshot, systemTime.name) === undefined && contributors.every((c) => c.options(snapshot) === undefined);
  return {
    name: 'system-time',
    entities: [...new Set([systemTime.name, ...contributors.flatMap((c) => c.entities)])],
    keepInstalled: nothingSaved,
    render(snapshot) {
      const contributed = Object.assign({}, ...contributors.map((c) => c.options(snapshot) ?? {})) as Record<string, string>;
      const installed = installedPackage(systemRoot);
      const content = serializeUci(renderUciSystem(timeSettings(snapshot), contributed, zoneinfo, installed));
      return [{ domain: 'system-time', files: [{ target: OPENWRT_SYSTEM_FILE, content, check: 'uci', mode: 0o644 }] }];
    },
  };
}
