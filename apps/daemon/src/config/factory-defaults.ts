import { dhcpServer, networkInterface, writeSchema, type AnyEntity } from '@portico/schema';
import { randomUUID } from 'node:crypto';
import type { Db } from '../plugins/db-open.js';
import type { ConfigSnapshot, SnapshotRow } from './config-types.js';
import { configRowCollection } from './entity-store.js';
import type { Settings } from '../settings.js';

/** The factory LAN (spec §9: the device answers in 192.168.11.x). */
export const FACTORY_LAN = { address: '192.168.11.1', netmask: '255.255.255.0', dhcpStart: '192.168.11.100', dhcpPool: 100 } as const;

function valid(entity: AnyEntity, input: Record<string, unknown>): Record<string, unknown> {
  const parsed = writeSchema(entity, 'add').safeParse(input);
  if (!parsed.success) throw new Error(`factory ${entity.name} is invalid: ${parsed.error.issues[0]?.message}`);
  return parsed.data as Record<string, unknown>;
}

/** The ports the factory network is laid on: its LAN bridges `lan`, each of `wan` is a WAN by DHCP. */
export interface FactoryPorts {
  lan: readonly string[];
  wan: readonly string[];
}

/** The factory ports a daemon's settings name. */
export function factoryPortsOf(settings: Pick<Settings, 'factoryLanPorts' | 'factoryWanPorts'>): FactoryPorts {
  return { lan: settings.factoryLanPorts, wan: settings.factoryWanPorts };
}

/** A bare list names the LAN's ports only. */
const portsOf = (ports: FactoryPorts | readonly string[]): FactoryPorts => ('lan' in ports ? ports : { lan: ports, wan: [] });

/**
 * On the very first start (no revision yet, no interface), lays down the factory network: a
 * LAN on the given ports at 192.168.11.1/24 with a DHCP pool, so a new device can be reached
 * and configured from a client plugged into it, and a WAN by DHCP on each WAN port. Without
 * LAN ports nothing is laid down.
 */
export function seedFactoryNetwork(db: Db, ports: FactoryPorts | readonly string[], now: () => number): boolean {
  const records = factoryNetworkRecords(portsOf(ports));
  if (records.length === 0) return false;
  const firstStart = !(db.prepare('SELECT 1 FROM revisions LIMIT 1').get() as unknown);
  if (!firstStart || (configRowCollection(db, networkInterface.name, now).count() as number) > 0) return false;
  db.transaction(() => {
    for (const { entity, record } of records) configRowCollection(db, entity, now).insert(record);
  })();
  return true;
}

/** The WAN of the n-th factory WAN port: `wan`, then `wan2`, `wan3`... */
const factoryWanName = (index: number) => (index === 0 ? 'wan' : `wan${index + 1}`);

/** The factory WANs, LAN and its DHCP pool on the given ports, validated, without ids; none without LAN ports. */
function factoryNetworkRecords(ports: FactoryPorts): Array<{ entity: string; record: Record<string, unknown> }> {
  if (ports.lan.length === 0) return [];
  const wanPorts = ports.wan.filter((port) => !ports.lan.includes(port));
  return [
    ...wanPorts.map((port, i) => ({ entity: networkInterface.name, record: valid(networkInterface, { ifname: factoryWanName(i), role: 'wan', hwport: [port], proto: 'dhcp' }) })),
    {
      entity: networkInterface.name,
      record: valid(networkInterface, { ifname: 'lan', role: 'lan', hwport: [...ports.lan], proto: 'static', ipaddr: FACTORY_LAN.address, netmask: FACTORY_LAN.netmask }),
    },
    {
      entity: dhcpServer.name,
      record: valid(dhcpServer, { interface: 'lan', start: FACTORY_LAN.dhcpStart, pool_size: FACTORY_LAN.dhcpPool, netmask: FACTORY_LAN.netmask }),
    },
  ];
}

/** The whole factory configuration (a factory reset): the factory network when there are LAN ports, nothing else. */
export function factorySnapshot(ports: FactoryPorts | readonly string[]): ConfigSnapshot {
  const out: Record<string, SnapshotRow[]> = {};
  for (const { entity, record } of factoryNetworkRecords(portsOf(ports))) {
    const id = randomUUID();
    (out[entity] ??= []).push({ id, data: { ...record, id } });
  }
  return out;
}
