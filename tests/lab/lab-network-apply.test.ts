import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dhcpServer, dhcpStatic, networkInterface, staticRoute, writeSchema, type AnyEntity } from '@portico/schema';
import { runCommand, type CommandRunner } from '../../apps/daemon/src/engine/command-runner.js';
import { createLinuxApplier } from '../../apps/daemon/src/config/apply-linux.js';
import { DomainRegistry } from '../../apps/daemon/src/config/config-domains.js';
import type { ConfigApplier, ConfigSnapshot } from '../../apps/daemon/src/config/config-types.js';
import { networkDomain } from '../../apps/daemon/src/domains/network/network-domain.js';
import { createLab, inNs, SERVER_ADDRESS, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';

/**
 * The network domain applied for real: the linux applier (real checkers, atomic install,
 * ip/sysctl/nft/dnsmasq) runs every command inside the lab's gateway namespace, and real
 * clients in client namespaces get leases and reach the upstream through NAT.
 */
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
  await applier.apply(['network'], snapshot());
});

afterAll(async () => {
  await applier?.stop?.();
  httpd?.kill();
  lab?.down();
  for (const dir of [root, webRoot]) if (dir) rmSync(dir, { recursive: true, force: true });
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
    let body = '';
    for (let i = 0; i < 20 && !body.includes('upstream-ok'); i++) {
      body = inNs(client.ns, ['busybox', 'wget', '-q', '-O', '-', `http://${SERVER_ADDRESS}/`], { allowFail: true, timeoutMs: 3000 }).stdout;
      if (!body.includes('upstream-ok')) await new Promise((r) => setTimeout(r, 200));
    }
    expect(body).toContain('upstream-ok');
    const ruleset = inNs(lab.gw, ['nft', 'list', 'ruleset']).stdout;
    expect(ruleset).toContain('table inet portico');
    expect(ruleset).toMatch(/masquerade/);
  });

  test('a static route works', async () => {
    // A second network behind a LAN router (client 1 acts as the router for 10.99.0.0/24).
    const router = lab.clients[0]!;
    inNs(router.ns, ['ip', 'addr', 'replace', '192.168.11.254/24', 'dev', router.ifname]);
    inNs(router.ns, ['ip', 'addr', 'replace', '10.99.0.1/32', 'dev', 'lo']);
    await applier.apply(
      ['network'],
      snapshot({ staticRoute: [row(staticRoute, 'r1', { target: '10.99.0.0/24', gateway: '192.168.11.254', interface: 'lan', metric: 10 })] }),
    );
    const routes = inNs(lab.gw, ['ip', 'route', 'show', '10.99.0.0/24']).stdout;
    expect(routes).toContain('via 192.168.11.254');
    const ping = inNs(lab.gw, ['busybox', 'ping', '-c', '1', '-W', '2', '10.99.0.1'], { allowFail: true });
    expect(ping.status, ping.stdout + ping.stderr).toBe(0);
  });
});
