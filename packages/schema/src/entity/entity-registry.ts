import type { AnyEntity } from './define-entity.js';
import { adminUser } from '../system/admin-user.js';
import { networkInterface } from '../network/network-interface.js';
import { dhcpServer } from '../network/dhcp-server.js';
import { dhcpStatic } from '../network/dhcp-static.js';
import { staticRoute } from '../network/static-route.js';
import { arpBind } from '../network/arp-bind.js';
import { arpAuth } from '../network/arp-auth.js';
import { vlan } from '../network/vlan-interface.js';
import { multiWan } from '../network/multi-wan.js';
import { portAttribute } from '../network/port-attribute.js';
import { iptv } from '../network/iptv-config.js';
import { vpnClient } from '../network/vpn-client.js';

/**
 * Every declared entity, one line each. The daemon registers routes for all of them, the
 * console builds pages for those with a `route`, and the i18n and injection suites walk it.
 */
export const ENTITIES: readonly AnyEntity[] = [
  adminUser as unknown as AnyEntity,
  networkInterface as unknown as AnyEntity,
  dhcpServer as unknown as AnyEntity,
  dhcpStatic as unknown as AnyEntity,
  staticRoute as unknown as AnyEntity,
  arpBind as unknown as AnyEntity,
  arpAuth as unknown as AnyEntity,
  vlan as unknown as AnyEntity,
  multiWan as unknown as AnyEntity,
  portAttribute as unknown as AnyEntity,
  iptv as unknown as AnyEntity,
  vpnClient as unknown as AnyEntity,
];

export function entityByPath(path: string): AnyEntity | undefined {
  return ENTITIES.find((e) => e.path === path);
}

export function entityByRoute(route: string): AnyEntity | undefined {
  return ENTITIES.find((e) => e.route === route);
}
