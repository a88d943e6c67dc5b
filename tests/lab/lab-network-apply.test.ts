import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dhcpServer, dhcpStatic, networkInterface, staticRoute } from '@portico/schema';
import type { ConfigSnapshot } from '../../apps/daemon/src/config/config-types.js';
import { inNs, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, type LabGateway } from './lab-gateway.js';

/**
 * The network domain applied for real: the linux applier (real checkers, atomic install,
 * ip/sysctl/nft/dnsmasq) runs every command inside the lab's gateway namespace, and real
 * clients in client namespaces get leases and reach the upstream through NAT.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;

function snapshot(extra: Partial<Record<string, ReturnType<typeof row>[]>> = {}): ConfigSnapshot {
  return {
    networkInterface: [
      row(networkInterface, 'wan1', {
        ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static',
        ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1', dns: ['198.51.100.1'],
      }),
      row(networkInterface, 'lan', {
        ifname: 'lan', role: 'lan', hwport: ['lanp1', 'lanp2'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0',
      }),
    ],
    dhcpServer: [row(dhcpServer, 'dh', { interface: 'lan', start: '192.168.11.100', pool_size: 50, netmask: '255.255.255.0' })],
    dhcpStatic: [row(dhcpStatic, 'fixed', { mac: lab.clients[1]!.mac, ip: '192.168.11.10', hostname: 'fixed' })],
    ...extra,
  };
}

/** DHCP from a client namespace with busybox udhcpc; returns the address leased. */
function lease(clientIndex: number): string {
  const client = lab.clients[clientIndex]!;
  const result = inNs(client.ns, ['busybox', 'udhcpc', '-i', client.ifname, '-n', '-q', '-f', '-t', '6', '-T', '1', '-s', '/bin/true'], {
    allowFail: true,
  });
  const match = /lease of (\d+\.\d+\.\d+\.\d+) obtained/.exec(result.stdout + result.stderr);
  if (!match) throw new Error(`no lease: ${result.stdout}${result.stderr}`);
  return match[1]!;
}

beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  await gateway.apply(snapshot());
});

afterAll(async () => {
  await gateway?.down();
});

describe('network domain on the linux driver, real traffic', () => {
  test('a LAN client gets a lease from the configured pool', () => {
    const address = lease(0);
    const last = Number(address.split('.')[3]);
    expect(address.startsWith('192.168.11.')).toBe(true);
    expect(last).toBeGreaterThanOrEqual(100);
    expect(last).toBeLessThan(150);
  });

  test('a static lease gets its fixed address', () => {
    expect(lease(1)).toBe('192.168.11.10');
  });

  test('the client reaches the upstream through NAT, and the ruleset is ours', async () => {
    const client = lab.clients[1]!;
    inNs(client.ns, ['ip', 'addr', 'replace', '192.168.11.10/24', 'dev', client.ifname]);
    inNs(client.ns, ['ip', 'route', 'replace', 'default', 'via', '192.168.11.1']);
    expect(await gateway.fetchUpstream(client.ns, 20)).toBe(true);
    const ruleset = inNs(lab.gw, ['nft', 'list', 'ruleset']).stdout;
    expect(ruleset).toContain('table inet portico');
    expect(ruleset).toMatch(/masquerade/);
  });

  test('a static route works', async () => {
    // A second network behind a LAN router (client 1 acts as the router for 10.99.0.0/24).
    const router = lab.clients[0]!;
    inNs(router.ns, ['ip', 'addr', 'replace', '192.168.11.254/24', 'dev', router.ifname]);
    inNs(router.ns, ['ip', 'addr', 'replace', '10.99.0.1/32', 'dev', 'lo']);
    await gateway.apply(
      snapshot({ staticRoute: [row(staticRoute, 'r1', { target: '10.99.0.0/24', gateway: '192.168.11.254', interface: 'lan', metric: 10 })] }),
    );
    const routes = inNs(lab.gw, ['ip', 'route', 'show', '10.99.0.0/24']).stdout;
    expect(routes).toContain('via 192.168.11.254');
    const ping = inNs(lab.gw, ['busybox', 'ping', '-c', '1', '-W', '2', '10.99.0.1'], { allowFail: true });
    expect(ping.status, ping.stdout + ping.stderr).toBe(0);
  });
});
