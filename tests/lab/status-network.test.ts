import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  arpBind,
  arpInfoQuerySchema,
  dhcpLeaseQuerySchema,
  dhcpServer,
  multiWan,
  staticRoute,
  systemRouteQuerySchema,
  type Netif,
} from '@portico/schema';
import { runCommand, type CommandRunner } from '../../apps/daemon/src/engine/command-runner.js';
import type { ConfigSnapshot } from '../../apps/daemon/src/config/config-types.js';
import { NETWORK_FILES } from '../../apps/daemon/src/domains/network/network-config.js';
import type { LiveStatusSource } from '../../apps/daemon/src/drivers/live-source.js';
import { createLinuxNetworkFacts } from '../../apps/daemon/src/drivers/linux/linux-live.js';
import { networkConfigOf } from '../../apps/daemon/src/domains/network/network-domain.js';
import { NetworkStatus } from '../../apps/daemon/src/domains/status/status-network.js';
import { inNs, run, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, twoWansOneLan, type LabGateway } from './lab-gateway.js';

/**
 * The network status pages on the linux driver, read for real: the configuration is applied in
 * the lab's gateway namespace, a client namespace takes a DHCP lease from its dnsmasq, and the
 * status service reads the lease file, `ip -j neigh`, `ip -j route` and ping inside that
 * namespace through the same command runner the daemon uses.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
let status: NetworkStatus;
let leased = '';
let leasesFile = '';

function snapshot(): ConfigSnapshot {
  return {
    ...twoWansOneLan(),
    multiWan: [
      row(multiWan, 'mw1', { interface: 'wan1', mode: 'balance', weight: 1, track_ips: ['198.51.100.1'] }),
      row(multiWan, 'mw2', { interface: 'wan2', mode: 'failover', priority: 2 }),
    ],
    dhcpServer: [row(dhcpServer, 'dh', { interface: 'lan', start: '192.168.11.100', pool_size: 50, netmask: '255.255.255.0' })],
    staticRoute: [row(staticRoute, 'r1', { target: '10.99.0.0/24', gateway: '192.168.11.254', interface: 'lan', metric: 10 })],
    arpBind: [row(arpBind, 'b1', { ip: '192.168.11.10', mac: lab.clients[1]!.mac, interface: 'lan' })],
  };
}

beforeAll(async () => {
  gateway = createLabGateway({ clients: 2, httpServer: false });
  lab = gateway.lab;
  const config = snapshot();
  await gateway.apply(config);

  // A real DHCP exchange from client 0; the address is then put on its interface.
  const client = lab.clients[0]!;
  const dhcp = inNs(client.ns, ['busybox', 'udhcpc', '-i', client.ifname, '-n', '-q', '-f', '-t', '6', '-T', '1', '-s', '/bin/true'], { allowFail: true });
  leased = /lease of (\d+\.\d+\.\d+\.\d+) obtained/.exec(dhcp.stdout + dhcp.stderr)?.[1] ?? '';
  if (!leased) throw new Error(`no lease: ${dhcp.stdout}${dhcp.stderr}`);
  inNs(client.ns, ['ip', 'addr', 'replace', `${leased}/24`, 'dev', client.ifname]);
  // The gateway talks to the client once, so the kernel has it as a neighbour.
  inNs(lab.gw, ['busybox', 'ping', '-c', '1', '-W', '2', leased], { allowFail: true });

  const inGateway: CommandRunner = (argv, opts) => runCommand(['ip', 'netns', 'exec', lab.gw, ...argv], opts);
  leasesFile = leaseFileOf(lab.gw);
  const facts = createLinuxNetworkFacts({ leasesFile, run: inGateway });
  // Link state of the gateway's own interfaces, read in its namespace (the lab's live source).
  const links = JSON.parse(inNs(lab.gw, ['ip', '-j', 'addr', 'show']).stdout) as { ifname: string; operstate: string; addr_info?: { family: string; local: string }[] }[];
  const netifs: Netif[] = links
    .filter((l) => l.ifname === 'wan1' || l.ifname === 'wan2')
    .map((l) => ({
      ifname: l.ifname,
      role: 'wan',
      status: l.operstate === 'DOWN' ? 'down' : 'up',
      proto: 'static',
      ipaddr: l.addr_info?.find((a) => a.family === 'inet')?.local ?? '',
      netmask: '255.255.255.0',
      gateway: '',
      mac: '',
      mtu: 1500,
      rx_bytes: 0,
      tx_bytes: 0,
      rx_rate: 0,
      tx_rate: 0,
      uptime: 0,
    }));
  const live = { netif: () => ({ items: netifs, total: netifs.length }) } as unknown as LiveStatusSource;
  status = new NetworkStatus({ facts, live, config: () => networkConfigOf(config), now: Date.now });
});

/**
 * The lease file of the gateway's dnsmasq, as its configuration names it: the process runs in
 * the gateway namespace with `--conf-file=<system root>/etc/portico/dnsmasq.conf`.
 */
function leaseFileOf(ns: string): string {
  for (const pid of run(['ip', 'netns', 'pids', ns]).stdout.split(/\s+/).filter(Boolean)) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const conf = argv.find((a) => a.startsWith('--conf-file='))?.slice('--conf-file='.length);
    if (!argv[0]?.endsWith('dnsmasq') || !conf) continue;
    const line = readFileSync(conf, 'utf8').split('\n').find((l) => l.startsWith('dhcp-leasefile='));
    if (line) return line.slice('dhcp-leasefile='.length);
  }
  throw new Error(`no dnsmasq with a lease file runs in ${ns}`);
}

afterAll(async () => {
  await gateway?.down();
});

describe('network status on the linux driver, real state', () => {
  test("the client's DHCP lease is active, with its MAC, in the configured pool", async () => {
    const client = lab.clients[0]!;
    // The daemon reads the leases where the rendered dnsmasq configuration keeps them.
    expect(leasesFile.endsWith(NETWORK_FILES.leases)).toBe(true);
    const leases = await status.dhcpLeases(dhcpLeaseQuerySchema.parse({ status: 'active' }));
    expect(leases.items).toContainEqual(
      expect.objectContaining({ ip: leased, mac: client.mac.toLowerCase(), status: 'active', interface: 'lan' }),
    );
    const entry = leases.items.find((l) => l.ip === leased)!;
    expect(entry.end! - entry.start!).toBe(720 * 60_000);
    expect(entry.end!).toBeGreaterThan(Date.now());
    expect(leases.counts.active + leases.counts.abandoned + leases.counts.free).toBe(50);
  });

  test('the client is in the neighbour table of the gateway, on the LAN bridge', async () => {
    const client = lab.clients[0]!;
    const info = await status.arpInfo(arpInfoQuerySchema.parse({ family: '4' }));
    const neighbour = info.items.find((n) => n.ip === leased);
    expect(neighbour, JSON.stringify(info.items)).toMatchObject({ mac: client.mac.toLowerCase(), family: '4', binding: 'none' });
    expect(['reachable', 'stale', 'delay', 'probe']).toContain(neighbour!.state);
    expect(neighbour!.interface).toBe(lab.lanBridge);
  });

  test('system routes hold the static route, the connected LAN and the WAN policy tables', async () => {
    const routes = await status.systemRoutes(systemRouteQuerySchema.parse({}));
    expect(routes.items).toContainEqual(expect.objectContaining({ table: 'main', destination: '10.99.0.0/24', gateway: '192.168.11.254', family: '4' }));
    expect(routes.items).toContainEqual(expect.objectContaining({ table: 'main', destination: '192.168.11.0/24', protocol: 'kernel' }));
    expect(routes.items.filter((r) => r.table === '101')).toContainEqual(expect.objectContaining({ destination: 'default', wan: 'wan1', gateway: '198.51.100.1' }));
    expect(routes.items.filter((r) => r.table === '102')).toContainEqual(expect.objectContaining({ destination: 'default', wan: 'wan2', gateway: '203.0.113.1' }));
    expect(routes.items.some((r) => r.table === 'local')).toBe(false);
  });

  test('line monitoring probes the track IP of wan1 and the gateway of wan2 through their links', async () => {
    const lines = await status.lineMonitoring();
    const [wan1, wan2] = lines.lines;
    expect(wan1).toMatchObject({ name: 'wan1', interface: 'wan1', table: 101, online: true, loss: 0 });
    expect(wan1!.probes.map((p) => p.target)).toEqual(['198.51.100.1']);
    expect(wan1!.latency).toBeGreaterThan(0);
    expect(wan2).toMatchObject({ name: 'wan2', online: true });
    expect(wan2!.probes.map((p) => p.target)).toEqual(['203.0.113.1']);
    expect(lines.wanconnect).toBe(2);
  });
});
