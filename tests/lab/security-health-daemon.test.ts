import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { HealthReport } from '@portico/schema';
import { createLab, inNs, run, type Lab } from './lab-topology.js';
import { HEALTH_LAB_PACKAGES, labPrerequisites } from './lab-packages.js';
import { LabDaemon } from './lab-daemon.js';

/**
 * The whole built daemon (linux driver, its packet helper beside the bundle) in the gateway
 * namespace, with the factory LAN on br-lan: a rogue dnsmasq appears in a client namespace and
 * the health monitor's own rounds (every 10 s) report it on /api/sysconf/health, as a finding
 * and as a security event, with the rogue's address and MAC; then two clients take one address
 * and the same rounds report the conflict with both MACs, as one event while it lasts.
 */
const blocker = labPrerequisites(HEALTH_LAB_PACKAGES);
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let lab: Lab;
let gw: LabDaemon;
const work = mkdtempSync(join(tmpdir(), 'portico-lab-health-daemon-'));

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  for (const ns of [lab.gw, ...lab.clients.map((c) => c.ns)]) {
    for (const key of ['all', 'default']) inNs(ns, ['sysctl', '-qw', `net.ipv6.conf.${key}.disable_ipv6=1`]);
  }
  gw = new LabDaemon(lab);
  await gw.bootAndSignIn();
}, 60_000);

afterAll(async () => {
  await gw?.dispose();
  lab?.down();
  rmSync(work, { recursive: true, force: true });
});

const report = (): HealthReport | undefined => gw.http('GET', `/api/sysconf/health?_=${Date.now()}`).json?.data;

describe('health monitor in the daemon', () => {
  test('a rogue DHCP server on the LAN becomes a finding and a security event', async () => {
    await expect.poll(() => report()?.probes, { timeout: 20_000, interval: 500 }).toBe('running');
    const rogue = lab.clients[1]!;
    inNs(rogue.ns, ['ip', 'addr', 'add', '192.168.11.240/24', 'dev', rogue.ifname]);
    const pidFile = join(work, 'rogue.pid');
    inNs(rogue.ns, [
      'dnsmasq', '--no-resolv', '--port=0', `--interface=${rogue.ifname}`, '--bind-interfaces',
      '--dhcp-range=192.168.11.200,192.168.11.210,2m', `--dhcp-leasefile=${join(work, 'rogue.leases')}`, `--pid-file=${pidFile}`,
    ]);
    try {
      const expected = { kind: 'dhcpServer', interface: 'lan', port: '', ip: '192.168.11.240', mac: rogue.mac };
      await expect.poll(() => report()?.findings ?? [], { timeout: 40_000, interval: 1000 }).toContainEqual(expect.objectContaining(expected));
      expect(report()!.events.items).toContainEqual(expect.objectContaining(expected));
      // The gateway's own dnsmasq serves the same LAN and is never reported.
      expect(report()!.findings.filter((f) => f.kind === 'dhcpServer')).toHaveLength(1);
    } finally {
      run(['kill', readFileSync(pidFile, 'utf8').trim()], { allowFail: true });
    }
  }, 90_000);

  test('two clients holding one address: a finding and one security event with the address and both MACs', async () => {
    const SHARED = '192.168.11.78';
    for (const c of lab.clients) inNs(c.ns, ['ip', 'addr', 'add', `${SHARED}/24`, 'dev', c.ifname]);
    try {
      // Both talk to the gateway, so its neighbour table holds the address the monitor probes.
      for (const c of lab.clients) inNs(c.ns, ['ping', '-c', '1', '-W', '1', '-I', SHARED, '192.168.11.1'], { allowFail: true });
      const [mac, otherMac] = lab.clients.map((c) => c.mac).sort();
      const expected = { kind: 'ipConflict', interface: 'lan', port: '', ip: SHARED, mac, otherMac };
      await expect.poll(() => report()?.findings ?? [], { timeout: 40_000, interval: 1000 }).toContainEqual(expect.objectContaining(expected));
      const firstSeen = report()!.findings.find((f) => f.ip === SHARED)!.firstSeen;
      // A later round sees it again: still one event.
      await expect.poll(() => report()!.findings.find((f) => f.ip === SHARED)?.lastSeen ?? 0, { timeout: 40_000, interval: 1000 }).toBeGreaterThan(firstSeen);
      expect(report()!.events.items.filter((e) => e.ip === SHARED)).toEqual([expect.objectContaining(expected)]);
    } finally {
      for (const c of lab.clients) inNs(c.ns, ['ip', 'addr', 'del', `${SHARED}/24`, 'dev', c.ifname], { allowFail: true });
    }
  }, 120_000);
});
