import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dhcpServer, networkInterface } from '@portico/schema';
import { inNs, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, type LabGateway } from './lab-gateway.js';

/**
 * A DHCP WAN for real: the upstream namespace runs a DHCP server on the second WAN's link,
 * the daemon's supervised client takes a lease, and LAN clients reach the server through it.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
let upstreamDhcp: ChildProcess;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-wan-dhcp-'));

beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  // The ISP side: leases 203.0.113.100-150 with its router and a DNS server.
  upstreamDhcp = spawn(
    'ip',
    [
      'netns', 'exec', lab.inet, 'dnsmasq', '--keep-in-foreground', '--no-resolv', '--port=0', '--interface=up2', '--bind-interfaces',
      '--dhcp-range=203.0.113.100,203.0.113.150,255.255.255.0,2m', '--dhcp-option=option:router,203.0.113.1',
      '--dhcp-option=option:dns-server,192.0.2.53', `--dhcp-leasefile=${join(work, 'isp.leases')}`, `--pid-file=${join(work, 'isp.pid')}`,
    ],
    { stdio: 'ignore' },
  );
  await gateway.apply({
    networkInterface: [
      row(networkInterface, 'wan2', { ifname: 'wan2', role: 'wan', hwport: ['wan2'], proto: 'dhcp' }),
      row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1', 'lanp2'], proto: 'static', ipaddr: '192.168.12.1', netmask: '255.255.255.0' }),
    ],
    dhcpServer: [row(dhcpServer, 'lan', { interface: 'lan', start: '192.168.12.100', pool_size: 50, netmask: '255.255.255.0' })],
  });
});

afterAll(async () => {
  upstreamDhcp?.kill();
  await gateway?.down();
  rmSync(work, { recursive: true, force: true });
});

const wanAddress = () => /inet (203\.0\.113\.\d+)\/24/.exec(inNs(lab.gw, ['ip', '-4', 'address', 'show', 'dev', 'wan2']).stdout)?.[1] ?? null;

describe('DHCP WAN', () => {
  test('the supervised client takes a lease: address, default route, DNS servers for the resolver', async () => {
    await expect.poll(wanAddress, { timeout: 30_000, interval: 300 }).toMatch(/^203\.0\.113\.(1[0-4]\d|150)$/);
    // The route and the resolver file follow the address within the same lease event.
    await expect
      .poll(() => inNs(lab.gw, ['ip', 'route', 'show', 'default']).stdout, { timeout: 5000 })
      .toMatch(/default via 203\.0\.113\.1 dev wan2 proto dhcp metric \d+/);
    await expect.poll(() => readFileSync(join(gateway.root, '/run/portico/resolv.wan'), 'utf8'), { timeout: 5000 }).toBe('nameserver 192.0.2.53\n');
  });

  test('LAN clients reach the upstream server through the DHCP WAN', async () => {
    const client = lab.clients[0]!;
    inNs(client.ns, ['ip', 'addr', 'add', '192.168.12.20/24', 'dev', client.ifname]);
    inNs(client.ns, ['ip', 'route', 'replace', 'default', 'via', '192.168.12.1']);
    expect(await gateway.fetchUpstream(client.ns)).toBe(true);
  });

  test('a network re-apply keeps the lease in place, and reconnect takes a fresh one', async () => {
    const address = wanAddress();
    await gateway.applier.apply(['network'], {
      networkInterface: [
        row(networkInterface, 'wan2', { ifname: 'wan2', role: 'wan', hwport: ['wan2'], proto: 'dhcp', mtu: 1400 }),
        row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1', 'lanp2'], proto: 'static', ipaddr: '192.168.12.1', netmask: '255.255.255.0' }),
      ],
    });
    expect(wanAddress()).toBe(address);
    expect(inNs(lab.gw, ['ip', 'route', 'show', 'default']).stdout).toContain('via 203.0.113.1 dev wan2 proto dhcp');

    const leaseEvent = () => JSON.parse(readFileSync(join(gateway.root, 'run/portico/wan-dhcp/wan2.json'), 'utf8')) as { event: string; at: number };
    const before = leaseEvent().at;
    expect(await gateway.applier.reconnect?.('wan2')).toBe(true);
    expect(await gateway.applier.reconnect?.('lan')).toBe(false);
    // A new client ran discover again and was bound anew.
    await expect.poll(() => { const e = leaseEvent(); return e.event === 'bound' && e.at > before; }, { timeout: 30_000, interval: 300 }).toBe(true);
    await expect.poll(wanAddress, { timeout: 10_000, interval: 300 }).toBe(address);
    await expect.poll(() => inNs(lab.gw, ['ip', 'route', 'show', 'default']).stdout, { timeout: 10_000 }).toContain('via 203.0.113.1 dev wan2 proto dhcp');
  });
});
