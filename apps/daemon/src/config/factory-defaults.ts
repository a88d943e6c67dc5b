import { dhcpServer, networkInterface, writeSchema, type AnyEntity } from '@portico/schema';
import { randomUUID } from 'node:crypto';
import type { Db } from '../plugins/db-open.js';
import type { ConfigSnapshot, SnapshotRow } from './config-types.js';
import { configRowCollection } from './entity-store.js';

/** The factory LAN (spec §9: the device answers in 192.168.11.x). */
export const FACTORY_LAN = { address: '192.168.11.1', netmask: '255.255.255.0', dhcpStart: '192.168.11.100', dhcpPool: 100 } as const;

function valid(entity: AnyEntity, input: Record<string, unknown>): Record<string, unknown> {
  const parsed = writeSchema(entity, 'add').safeParse(input);
  if (!parsed.success) throw new Error(`factory ${entity.name} is invalid: ${parsed.error.issues[0]?.message}`);
  return parsed.data as Record<string, unknown>;
}

/**
 * On the very first start (no revision yet, no interface), lays down the factory network: a
 * LAN on the given ports at 192.168.11.1/24 with a DHCP pool, so a new device can be reached
 * and configured from a client plugged into it. Without ports nothing is laid down.
 */
export function seedFactoryNetwork(db: Db, ports: readonly string[], now: () => number): boolean {
  if (ports.length === 0) return false;
  const firstStart = !(db.prepare('SELECT 1 FROM revisions LIMIT 1').get() as unknown);
  const interfaces = configRowCollection(db, networkInterface.name, now);
  if (!firstStart || (interfaces.count() as number) > 0) return false;
  const records = factoryNetworkRecords(ports);
  db.transaction(() => {
    interfaces.insert(records.networkInterface);
    configRowCollection(db, dhcpServer.name, now).insert(records.dhcpServer);
  })();
  return true;
}

/** The factory LAN and its DHCP pool on the given ports, validated, without ids. */
function factoryNetworkRecords(ports: readonly string[]): Record<'networkInterface' | 'dhcpServer', Record<string, unknown>> {
  return {
    networkInterface: valid(networkInterface, { ifname: 'lan', role: 'lan', hwport: [...ports], proto: 'static', ipaddr: FACTORY_LAN.address, netmask: FACTORY_LAN.netmask }),
    dhcpServer: valid(dhcpServer, { interface: 'lan', start: FACTORY_LAN.dhcpStart, pool_size: FACTORY_LAN.dhcpPool, netmask: FACTORY_LAN.netmask }),
  };
}

/** The whole factory configuration (a factory reset): the factory network when there are LAN ports, nothing else. */
export function factorySnapshot(ports: readonly string[]): ConfigSnapshot {
  if (ports.length === 0) return {};
  const out: Record<string, SnapshotRow[]> = {};
  for (const [entity, record] of Object.entries(factoryNetworkRecords(ports))) {
    const id = randomUUID();
    out[entity] = [{ id, data: { ...record, id } }];
  }
  return out;
}
