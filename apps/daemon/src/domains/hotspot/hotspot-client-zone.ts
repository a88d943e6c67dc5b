import { ipv4ToInt, isIpv4 } from '@portico/schema';
import type { DriverName } from '../../settings.js';
import type { PortalZone } from './hotspot-portal.js';

/** A service zone as the portal matches clients to it: the LAN range its devices serve. */
export interface ZoneRange extends PortalZone {
  /** First and last address of the zone's LAN network, as integers. */
  first: number;
  last: number;
}

/** Where a loopback client reaches the portal: on the machine itself. */
const LOOPBACK_GATEWAY = '127.0.0.1';

function isLoopback(value: number): boolean {
  return value >>> 24 === 127;
}

/**
 * The zone a client belongs to: the zone whose LAN range holds its address, else none.
 *
 * The `sim` driver has no LAN a browser could stand on: every browser reaches it from the
 * machine itself, at a loopback address, which no zone's LAN contains. So on `sim`, and only
 * there, a loopback client stands in for a client of the first zone (reaching the portal at
 * the loopback address), which lets the whole portal be used from a browser on a development
 * machine. On `linux` and `openwrt` a loopback address is the device itself, never a hotspot
 * client, and matches no zone.
 */
export function clientZone(zones: readonly ZoneRange[], ip: string, driver: DriverName): PortalZone | null {
  if (!isIpv4(ip)) return null;
  const value = ipv4ToInt(ip);
  const inRange = zones.find((z) => value >= z.first && value <= z.last);
  if (inRange) return inRange;
  const first = zones[0];
  if (driver === 'sim' && first && isLoopback(value)) return { zone: first.zone, gateway: LOOPBACK_GATEWAY };
  return null;
}
