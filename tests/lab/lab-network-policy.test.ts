import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { arpBind, multiWan, networkInterface, writeSchema, type AnyEntity } from '@portico/schema';
import { runCommand, type CommandRunner } from '../../apps/daemon/src/engine/command-runner.js';
import { createLinuxApplier } from '../../apps/daemon/src/config/apply-linux.js';
import { DomainRegistry } from '../../apps/daemon/src/config/config-domains.js';
import type { ConfigApplier } from '../../apps/daemon/src/config/config-types.js';
import { networkDomain } from '../../apps/daemon/src/domains/network/network-domain.js';
import { createLab, inNs, SERVER_ADDRESS, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';

/** ARP binding and multi-WAN failover, with the same real applier as the DHCP/NAT suite. */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let lab: Lab;
let root: string;
let applier: ConfigApplier;
let httpd: ChildProcess;
let webRoot: string;

function row(entity: AnyEntity, id: string, input: Record<string, unknown>) {
  const parsed = writeSchema(entity, 'add').safeParse(input);
  if (!parsed.success) throw new Error(`${entity.name}: ${JSON.stringify(parsed.error.issues)}`);
  return { id, data: { ...(parsed.data as object), id } as Record<string, unknown> };
}

async function fetchUpstream(ns: string, tries = 10): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    const body = inNs(ns, ['busybox', 'wget', '-q', '-O', '-', `http://${SERVER_ADDRESS}/`], { allowFail: true, timeoutMs: 3000 }).stdout;
    if (body.includes('upstream-ok')) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

function useAddress(index: number, address: string) {
  const client = lab.clients[index]!;
  inNs(client.ns, ['ip', 'addr', 'flush', 'dev', client.ifname]);
  inNs(client.ns, ['ip', 'addr', 'add', `${address}/24`, 'dev', client.ifname]);
  inNs(client.ns, ['ip', 'route', 'replace', 'default', 'via', '192.168.11.1']);
}

beforeAll(async () => {
  lab = createLab({ clients: 2 });
  root = mkdtempSync(join(tmpdir(), 'portico-lab-root-'));
  const inGateway: CommandRunner = (argv, options) => runCommand(['ip', 'netns', 'exec', lab.gw, ...argv], options);
  applier = createLinuxApplier({
    root,
    run: inGateway,
    domains: new DomainRegistry([networkDomain({ port: 8080, systemRoot: root })]),
    spawnPrefix: ['ip', 'netns', 'exec', lab.gw],
  });
  webRoot = mkdtempSync(join(tmpdir(), 'portico-lab-www-'));
  writeFileSync(join(webRoot, 'index.html'), 'upstream-ok\n');
  httpd = spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'httpd', '-f', '-p', `${SERVER_ADDRESS}:80`, '-h', webRoot], { stdio: 'ignore' });
  await applier.apply(['network'], {
    networkInterface: [
      row(networkInterface, 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
      row(networkInterface, 'wan2', { ifname: 'wan2', role: 'wan', hwport: ['wan2'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1' }),
      row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1', 'lanp2'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }),
    ],
    multiWan: [
      row(multiWan, 'mw1', { interface: 'wan1', mode: 'failover', priority: 1 }),
      row(multiWan, 'mw2', { interface: 'wan2', mode: 'failover', priority: 2 }),
    ],
    arpBind: [row(arpBind, 'bound', { ip: '192.168.11.10', mac: lab.clients[1]!.mac, interface: 'lan' })],
  });
});

afterAll(async () => {
  await applier?.stop?.();
  httpd?.kill();
  lab?.down();
  for (const dir of [root, webRoot]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('ARP binding', () => {
  test('a client spoofing a bound address is stopped; the bound client passes', async () => {
    useAddress(0, '192.168.11.10');
    expect(await fetchUpstream(lab.clients[0]!.ns, 3)).toBe(false);
    inNs(lab.clients[0]!.ns, ['ip', 'addr', 'flush', 'dev', lab.clients[0]!.ifname]);
    useAddress(1, '192.168.11.10');
    expect(await fetchUpstream(lab.clients[1]!.ns)).toBe(true);
  });
});

describe('multi-WAN failover', () => {
  test('traffic leaves by the first WAN, and by the second when the first link goes down', async () => {
    const via = () => inNs(lab.gw, ['ip', 'route', 'get', SERVER_ADDRESS]).stdout;
    expect(via()).toContain('dev wan1');
    expect(await fetchUpstream(lab.clients[1]!.ns)).toBe(true);

    inNs(lab.inet, ['ip', 'link', 'set', 'up1', 'down']);
    try {
      await expect.poll(via, { timeout: 5000 }).toContain('dev wan2');
      expect(await fetchUpstream(lab.clients[1]!.ns)).toBe(true);
      // The gateway's connection table: replies came back to the second WAN's address.
      const seen = inNs(lab.gw, ['conntrack', '-L', '-p', 'tcp'], { allowFail: true }).stdout;
      expect(seen).toMatch(/src=192\.0\.2\.80 dst=203\.0\.113\.2/);
    } finally {
      inNs(lab.inet, ['ip', 'link', 'set', 'up1', 'up']);
    }
    await expect.poll(via, { timeout: 5000 }).toContain('dev wan1');
  });
});
