import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createLinuxNetworkFacts } from '../src/drivers/linux/linux-live.js';
import { parseIpNeigh, parseIpRoutes, parseLeaseFile, parsePing } from '../src/drivers/linux/linux-proc.js';
import type { CommandRunner } from '../src/engine/command-runner.js';

/* Outputs captured from iproute2 6.x, dnsmasq 2.9x, iputils and busybox ping. */

const ROUTES_V4 = JSON.stringify([
  { dst: 'default', protocol: 'static', metric: 10, flags: [], nexthops: [
    { gateway: '203.0.113.1', dev: 'wan1', weight: 3, flags: [] },
    { gateway: '198.51.100.1', dev: 'wan2', weight: 1, flags: [] },
  ] },
  { dst: '10.20.0.0/16', gateway: '192.168.11.254', dev: 'br-lan', protocol: 'static', metric: 5, flags: [] },
  { dst: '192.168.11.0/24', dev: 'br-lan', protocol: 'kernel', scope: 'link', prefsrc: '192.168.11.1', flags: [] },
  { dst: 'default', gateway: '203.0.113.1', dev: 'wan1', table: '101', protocol: 'static', flags: [] },
  { type: 'blackhole', dst: '10.99.0.0/16', flags: [] },
  { type: 'local', dst: '192.168.11.1', dev: 'br-lan', table: 'local', protocol: 'kernel', scope: 'host', prefsrc: '192.168.11.1', flags: [] },
  'not a route',
  { dev: 'eth9' },
]);
const ROUTES_V6 = JSON.stringify([
  { dst: 'fe80::/64', dev: 'br-lan', protocol: 'kernel', metric: 256, flags: [], pref: 'medium' },
  { dst: 'default', gateway: 'fe80::1', dev: 'wan2', protocol: 'ra', metric: 1024, flags: [], pref: 'medium' },
]);
const NEIGH = JSON.stringify([
  { dst: '192.168.11.100', dev: 'br-lan', lladdr: 'AA:BB:CC:00:11:22', state: ['REACHABLE'] },
  { dst: '192.168.11.150', dev: 'br-lan', state: ['INCOMPLETE'] },
  { dst: 'fe80::1', dev: 'wan2', lladdr: '00:1e:73:01:02:03', router: null, state: ['STALE'] },
  { dst: '203.0.113.1', dev: 'wan1', lladdr: '00:1e:73:0a:0b:0c', state: ['PERMANENT', 'NOARP'] },
  { dev: 'nowhere' },
]);
const LEASES = [
  '1741000000 aa:bb:cc:00:11:22 192.168.11.100 laptop 01:aa:bb:cc:00:11:22',
  '0 aa:bb:cc:00:11:33 192.168.11.101 * *',
  '1740000000 aa:bb:cc:00:11:44 192.168.11.102 <script>x</script> *',
  'garbage line',
  '1741000000 not-a-mac 192.168.11.103 x *',
  'duid 00:01:00:01:2c:1a:2b:3c:aa:bb:cc:00:11:22',
  '1741000000 1234567 2001:db8::10 phone6 00:01:00:01',
].join('\n');
const PING_IPUTILS = `PING 203.0.113.1 (203.0.113.1) from 203.0.113.7 wan1: 56(84) bytes of data.

--- 203.0.113.1 ping statistics ---
3 packets transmitted, 2 received, 33.3333% packet loss, time 2003ms
rtt min/avg/max/mdev = 0.051/0.076/0.101/0.025 ms
`;
const PING_BUSYBOX = `PING 198.51.100.1 (198.51.100.1): 56 data bytes

--- 198.51.100.1 ping statistics ---
3 packets transmitted, 3 packets received, 0% packet loss
round-trip min/avg/max = 0.061/1.234/2.5 ms
`;
const PING_LOST = `--- 192.0.2.9 ping statistics ---
3 packets transmitted, 0 received, 100% packet loss, time 2041ms
`;

describe('ip -j route', () => {
  test('every table, main without a table key, multipath paths and types', () => {
    const routes = parseIpRoutes(ROUTES_V4, '4');
    expect(routes).toHaveLength(6);
    expect(routes[0]).toMatchObject({ family: '4', table: 'main', type: 'unicast', destination: 'default', gateway: '', metric: 10 });
    expect(routes[0]!.nexthops).toEqual([
      { gateway: '203.0.113.1', device: 'wan1', weight: 3 },
      { gateway: '198.51.100.1', device: 'wan2', weight: 1 },
    ]);
    expect(routes[2]).toMatchObject({ protocol: 'kernel', scope: 'link', source: '192.168.11.1', device: 'br-lan' });
    expect(routes[3]).toMatchObject({ table: '101', gateway: '203.0.113.1', device: 'wan1' });
    expect(routes[4]).toMatchObject({ type: 'blackhole', destination: '10.99.0.0/16', device: '' });
    expect(routes[5]).toMatchObject({ table: 'local', type: 'local' });
    expect(parseIpRoutes(ROUTES_V6, '6').map((r) => [r.family, r.destination, r.protocol])).toEqual([
      ['6', 'fe80::/64', 'kernel'],
      ['6', 'default', 'ra'],
    ]);
  });

  test('output that is not JSON or not a list gives no routes', () => {
    expect(parseIpRoutes('', '4')).toEqual([]);
    expect(parseIpRoutes('Error: ipv4: FIB table does not exist.', '4')).toEqual([]);
    expect(parseIpRoutes('{"dst":"default"}', '4')).toEqual([]);
  });
});

describe('ip -j neigh', () => {
  test('both families, lower-case MACs and states, the router flag', () => {
    expect(parseIpNeigh(NEIGH)).toEqual([
      { ip: '192.168.11.100', family: '4', device: 'br-lan', mac: 'aa:bb:cc:00:11:22', state: 'reachable', router: false },
      { ip: '192.168.11.150', family: '4', device: 'br-lan', mac: '', state: 'incomplete', router: false },
      { ip: 'fe80::1', family: '6', device: 'wan2', mac: '00:1e:73:01:02:03', state: 'stale', router: true },
      { ip: '203.0.113.1', family: '4', device: 'wan1', mac: '00:1e:73:0a:0b:0c', state: 'permanent', router: false },
    ]);
  });
});

describe('dnsmasq lease file', () => {
  test('IPv4 records with their expiry; `*` is empty; IPv6 leases and bad lines are skipped', () => {
    expect(parseLeaseFile(LEASES)).toEqual([
      { expires: 1741000000_000, mac: 'aa:bb:cc:00:11:22', ip: '192.168.11.100', hostname: 'laptop', clientId: '01:aa:bb:cc:00:11:22' },
      { expires: 0, mac: 'aa:bb:cc:00:11:33', ip: '192.168.11.101', hostname: '', clientId: '' },
      { expires: 1740000000_000, mac: 'aa:bb:cc:00:11:44', ip: '192.168.11.102', hostname: '<script>x</script>', clientId: '' },
    ]);
  });
});

describe('ping summaries', () => {
  test('iputils and busybox, with loss and average round trip', () => {
    expect(parsePing(PING_IPUTILS)).toEqual({ sent: 3, received: 2, latency: 0.08 });
    expect(parsePing(PING_BUSYBOX)).toEqual({ sent: 3, received: 3, latency: 1.23 });
    expect(parsePing(PING_LOST)).toEqual({ sent: 3, received: 0, latency: null });
    expect(parsePing('ping: unknown iface wan9')).toBeNull();
  });
});

describe('linux network facts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-status-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('reads through argument arrays: ip -j per family, the lease file, ping then busybox ping', async () => {
    const leasesFile = join(dir, 'dnsmasq.leases');
    writeFileSync(leasesFile, LEASES);
    const calls: string[][] = [];
    const run: CommandRunner = async (argv) => {
      calls.push([...argv]);
      const key = argv.join(' ');
      if (key === 'ip -j -4 route show table all') return { exitCode: 0, stdout: ROUTES_V4, stderr: '' };
      if (key === 'ip -j -6 route show table all') return { exitCode: 0, stdout: ROUTES_V6, stderr: '' };
      if (key === 'ip -j neigh show') return { exitCode: 0, stdout: NEIGH, stderr: '' };
      if (argv[0] === 'ping') return { exitCode: 1, stdout: '', stderr: 'spawn ping ENOENT' };
      if (argv[0] === 'busybox') return { exitCode: 0, stdout: PING_BUSYBOX, stderr: '' };
      return { exitCode: 1, stdout: '', stderr: 'unexpected' };
    };
    const facts = createLinuxNetworkFacts({ leasesFile, run });
    expect((await facts.routes()).map((r) => `${r.family} ${r.table} ${r.destination}`)).toEqual([
      '4 main default',
      '4 main 10.20.0.0/16',
      '4 main 192.168.11.0/24',
      '4 101 default',
      '4 main 10.99.0.0/16',
      '4 local 192.168.11.1',
      '6 main fe80::/64',
      '6 main default',
    ]);
    expect(await facts.neighbours()).toHaveLength(4);
    expect((await facts.leases()).map((l) => l.ip)).toEqual(['192.168.11.100', '192.168.11.101', '192.168.11.102']);
    expect(await facts.probe('wan2', '198.51.100.1')).toEqual({ target: '198.51.100.1', sent: 3, received: 3, latency: 1.23 });
    // Once ping is known to be missing, busybox is asked straight away.
    await facts.probe('wan2', '198.51.100.1');
    const pings = calls.filter((c) => c.includes('198.51.100.1'));
    expect(pings.map((c) => c[0])).toEqual(['ping', 'busybox', 'busybox']);
    expect(pings[1]).toEqual(['busybox', 'ping', '-q', '-c', '3', '-W', '1', '-w', '3', '-I', 'wan2', '198.51.100.1']);
  });

  test('a failing ip command or a missing lease file reads as empty', async () => {
    const run: CommandRunner = async () => ({ exitCode: 2, stdout: 'partial', stderr: 'Cannot open netlink socket' });
    const facts = createLinuxNetworkFacts({ leasesFile: join(dir, 'missing.leases'), run });
    expect(await facts.routes()).toEqual([]);
    expect(await facts.neighbours()).toEqual([]);
    expect(await facts.leases()).toEqual([]);
    expect(await facts.probe('wan1', '192.0.2.1')).toEqual({ target: '192.0.2.1', sent: 3, received: 0, latency: null });
  });
});
