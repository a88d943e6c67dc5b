// Shared by the hotspot benchmarks: the lab gateway with the hotspot ruleset loaded, the engine
// on the real nftables data plane in the gateway namespace, and client identities.
import { hotspotPortal, hotspotZone, networkInterface, type AnyEntity } from '@portico/schema';
import { runCommand, type CommandRunner } from '../../apps/daemon/src/engine/command-runner.js';
import { ACCT_DOWN_SET, ACCT_UP_SET, AUTH_IP_SET, AUTH_SET, HOTSPOT_TABLE, NftDataplane } from '../../apps/daemon/src/domains/hotspot/hotspot-dataplane.js';
import { HotspotEngine, type HotspotCredentials } from '../../apps/daemon/src/domains/hotspot/hotspot-engine.js';
import { hotspotConfigOf } from '../../apps/daemon/src/domains/hotspot/hotspot-config.js';
import type { HotspotConfig } from '../../apps/daemon/src/domains/hotspot/hotspot-types.js';
import { createLabGateway, row, type LabGateway } from '../lab/lab-gateway.js';
import { inNs } from '../lab/lab-topology.js';

const entity = (e: unknown) => e as AnyEntity;

/** The LAN is a /16 so that ten thousand clients have addresses of their own on it. */
export const LAN_GATEWAY = '192.168.11.1';

export function hotspotSnapshot(methods: string[] = ['onekey'], ports = 1) {
  return {
    networkInterface: [
      row(entity(networkInterface), 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
      row(entity(networkInterface), 'lan', { ifname: 'lan', role: 'lan', hwport: Array.from({ length: ports }, (_, i) => `lanp${i + 1}`), proto: 'static', ipaddr: LAN_GATEWAY, netmask: '255.255.0.0' }),
    ],
    hotspotZone: [row(entity(hotspotZone), 'z1', { name: 'guests', ifname: 'lan', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' })],
    hotspotPortal: [{ id: '', data: hotspotPortal.schema.parse({ methods }) as Record<string, unknown> }],
  };
}

/** The n-th synthetic client (n from 0): a locally administered MAC and an address on 192.168.16.0/20 and up. */
export function syntheticClient(n: number): { mac: string; ip: string } {
  const hex = (v: number) => v.toString(16).padStart(2, '0');
  const host = 16 * 256 + n; // 192.168.16.0 onwards, clear of the lab's own clients on .11.x
  return { mac: `02:1a:00:${hex((n >> 16) & 255)}:${hex((n >> 8) & 255)}:${hex(n & 255)}`, ip: `192.168.${host >> 8}.${host & 255}` };
}

export const REFUSING_CREDENTIALS: HotspotCredentials = {
  verifyLocalUser: async () => ({ ok: false, error: 'portal.error.userOrPassword' }),
  redeemVoucher: async () => ({ ok: false, error: 'portal.error.code' }),
};

export interface HotspotLab {
  gateway: LabGateway;
  config: HotspotConfig;
  inGateway: CommandRunner;
  engine(options?: { stateFile?: string; credentials?: HotspotCredentials }): HotspotEngine;
  /** Empties the runtime sets of authorised clients (between runs). */
  flushClients(): void;
  /** Elements of `hs_auth` (MAC . IP) and of `hs_auth_ip` (addresses that sent since), as the kernel holds them. */
  elementCounts(): Promise<{ auth: number; authIp: number }>;
  down(): Promise<void>;
}

export async function createHotspotLab(options: { clients?: number; httpServer?: boolean; methods?: string[] } = {}): Promise<HotspotLab> {
  const gateway = createLabGateway({ clients: options.clients ?? 1, httpServer: options.httpServer ?? false });
  const snapshot = hotspotSnapshot(options.methods, options.clients ?? 1);
  try {
    await gateway.apply(snapshot);
  } catch (error) {
    await gateway.down();
    throw error;
  }
  const config = hotspotConfigOf(snapshot);
  const inGateway: CommandRunner = (argv, opts) => runCommand(['ip', 'netns', 'exec', gateway.lab.gw, ...argv], opts);
  const table = HOTSPOT_TABLE.split(' ');
  const count = async (set: string) => {
    const out = (await inGateway(['nft', '-j', 'list', 'set', ...table, set], { timeoutMs: 60_000 })).stdout;
    const parsed = JSON.parse(out) as { nftables: Array<{ set?: { elem?: unknown[] } }> };
    return parsed.nftables.find((i) => i.set)?.set?.elem?.length ?? 0;
  };
  return {
    gateway,
    config,
    inGateway,
    engine: (o = {}) =>
      new HotspotEngine({
        dataplane: new NftDataplane(inGateway),
        config: () => config,
        credentials: o.credentials ?? REFUSING_CREDENTIALS,
        stateFile: o.stateFile,
      }),
    flushClients() {
      const sets = [AUTH_SET, AUTH_IP_SET, ACCT_UP_SET, ACCT_DOWN_SET];
      inNs(gateway.lab.gw, ['nft', '-f', '-'], { input: sets.map((set) => `flush set ${HOTSPOT_TABLE} ${set}\n`).join('') });
    },
    elementCounts: async () => ({ auth: await count(AUTH_SET), authIp: await count(AUTH_IP_SET) }),
    down: () => gateway.down(),
  };
}

/** Gives a lab client namespace an address on the LAN and the gateway as its default route. */
export function addressClient(ns: string, ifname: string, ip: string): void {
  inNs(ns, ['ip', 'addr', 'flush', 'dev', ifname]);
  inNs(ns, ['ip', 'addr', 'add', `${ip}/16`, 'dev', ifname]);
  inNs(ns, ['ip', 'route', 'replace', 'default', 'via', LAN_GATEWAY]);
}

export const ms = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;
export const round = (v: number, digits = 1) => Number(v.toFixed(digits));

/**
 * Many clients in one namespace, each a macvlan of `parent` with its own MAC and address: each
 * answers ARP only for its own address, and traffic from an address leaves by its own macvlan
 * (a routing table per client), so the gateway sees every client with its own MAC.
 */
export function macvlanClients(ns: string, parent: string, gateway: string, clients: ReadonlyArray<{ mac: string; ip: string }>): void {
  inNs(ns, ['sysctl', '-qw', 'net.ipv4.conf.all.arp_ignore=1', 'net.ipv4.conf.all.arp_announce=2']);
  const batch = clients.flatMap((c, i) => [
    `link add mv${i} link ${parent} address ${c.mac} type macvlan mode bridge`,
    `addr add ${c.ip}/32 dev mv${i}`,
    `link set mv${i} up`,
    `rule add from ${c.ip} table ${1000 + i}`,
    `route add ${gateway}/32 dev mv${i} table ${1000 + i}`,
  ]);
  inNs(ns, ['ip', '-batch', '-'], { input: `${batch.join('\n')}\n`, timeoutMs: 120_000 });
}
