import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dhcpServer, networkInterface } from '@portico/schema';
import { inNs, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, type LabGateway } from './lab-gateway.js';

/**
 * Stateful DHCPv6 for real: a LAN with a static IPv6 prefix and DHCPv6 on its DHCP server; the
 * linux applier runs dnsmasq in the gateway namespace, and ISC dhclient in a client namespace
 * takes an address from the pool dnsmasq serves (::1000 to ::ffff of the prefix).
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const PREFIX = 'fd00:12::';
let gateway: LabGateway;
let lab: Lab;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-dhcpv6-'));
const leaseFile = join(work, 'dhclient6.leases');
const pidFile = join(work, 'dhclient6.pid');

beforeAll(async () => {
  gateway = createLabGateway({ clients: 1, httpServer: false });
  lab = gateway.lab;
  await gateway.apply({
    networkInterface: [
      row(networkInterface, 'wan1', {
        ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static',
        ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1', dns: ['198.51.100.1'],
      }),
      row(networkInterface, 'lan', {
        ifname: 'lan', role: 'lan', hwport: ['lanp1'], proto: 'static', ipaddr: '192.168.13.1', netmask: '255.255.255.0',
        ipv6: 'static', ip6addr: `${PREFIX}1/64`,
      }),
    ],
    dhcpServer: [row(dhcpServer, 'lan', { interface: 'lan', start: '192.168.13.100', pool_size: 50, netmask: '255.255.255.0', dhcpv6: 'stateful' })],
  });
});

afterAll(async () => {
  // Stops the client this suite started (by its pid file), without releasing.
  if (lab) inNs(lab.clients[0]!.ns, ['dhclient', '-6', '-x', '-pf', pidFile, '-lf', leaseFile, lab.clients[0]!.ifname], { allowFail: true });
  await gateway?.down();
  rmSync(work, { recursive: true, force: true });
});

/** The pool addresses on the client's link, as `fd00:12::xxxx`. */
function poolAddresses(ns: string, ifname: string): string[] {
  const shown = inNs(ns, ['ip', '-6', 'address', 'show', 'dev', ifname, 'scope', 'global']).stdout;
  return [...shown.matchAll(/inet6 (fd00:12::[0-9a-f]+)\/\d+/g)].map((m) => m[1]!).filter((address) => {
    const last = Number.parseInt(address.slice(PREFIX.length), 16);
    return last >= 0x1000 && last <= 0xffff;
  });
}

describe('DHCPv6 on a LAN with a static prefix', () => {
  test('the gateway holds the prefix and dnsmasq serves a DHCPv6 range for it', () => {
    expect(inNs(lab.gw, ['ip', '-6', 'address', 'show', 'dev', 'lanp1']).stdout).toContain(`inet6 ${PREFIX}1/64`);
    const conf = readFileSync(join(gateway.root, '/etc/portico/dnsmasq.conf'), 'utf8');
    expect(conf).toContain('dhcp-range=set:lan,::1000,::ffff,constructor:lanp1,64,720m');
    expect(conf).toContain('enable-ra');
  });

  test('dhclient -6 in a client namespace gets an address from the pool', async () => {
    const client = lab.clients[0]!;
    // The client's link-local address must have passed duplicate detection before it can send.
    await expect
      .poll(() => inNs(client.ns, ['ip', '-6', 'address', 'show', 'dev', client.ifname, 'scope', 'link']).stdout, { timeout: 10_000, interval: 200 })
      .toMatch(/inet6 fe80::[0-9a-f:]+\/64 scope link(?! tentative)/);
    const result = inNs(client.ns, ['dhclient', '-6', '-1', '-v', '-lf', leaseFile, '-pf', pidFile, client.ifname], { allowFail: true, timeoutMs: 60_000 });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const lease = readFileSync(leaseFile, 'utf8');
    const leased = /iaaddr (fd00:12::[0-9a-f]+)/.exec(lease)?.[1];
    expect(leased, lease).toBeDefined();
    await expect.poll(() => poolAddresses(client.ns, client.ifname), { timeout: 10_000, interval: 200 }).toContain(leased);
    // The gateway's lease file records the client too.
    const leases = readFileSync(join(gateway.root, '/var/lib/portico/dnsmasq.leases'), 'utf8');
    expect(leases).toContain(leased!);
  }, 90_000);
});
