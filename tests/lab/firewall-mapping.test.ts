import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { firewallAcl, firewallDmz, firewallPortMapping } from '@portico/schema';
import { inNs, SERVER_ADDRESS, type Lab, setClientAddress } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, row, type LabGateway, oneWanOneLan } from './lab-gateway.js';

/** Port mapping, DMZ and filter rules with real traffic, through the linux driver's applier. */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
const servers: Array<{ kill(): void }> = [];

const NETWORK = oneWanOneLan;

/** An HTTP server in a client namespace answering with its own name. */
async function serve(ns: string, port: number, body: string) {
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'portico-fw-www-'));
  writeFileSync(join(dir, 'index.html'), `${body}\n`);
  const child = spawn('ip', ['netns', 'exec', ns, 'busybox', 'httpd', '-f', '-p', String(port), '-h', dir], { stdio: 'ignore' });
  servers.push(child);
}

function fetchFrom(ns: string, url: string): string {
  return inNs(ns, ['busybox', 'wget', '-q', '-O', '-', url], { allowFail: true, timeoutMs: 4000 }).stdout ?? '';
}


beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  setClientAddress(lab, 0, '192.168.11.10');
  setClientAddress(lab, 1, '192.168.11.20');
  await serve(lab.clients[0]!.ns, 80, 'host-one');
  await serve(lab.clients[1]!.ns, 80, 'host-two');
});

afterAll(async () => {
  for (const child of servers) child.kill();
  await gateway?.down();
});

describe('port mapping and DMZ', () => {
  test('a mapped port reaches its LAN host from inet; an unmapped one does not', async () => {
    await gateway.apply({
      ...NETWORK(),
      firewallPortMapping: [row(firewallPortMapping, 'pm1', { name: 'web', proto: 'tcp', wan: 'wan1', extport: 8080, intip: '192.168.11.10', intport: 80 })],
    });
    await expect.poll(() => fetchFrom(lab.inet, 'http://198.51.100.2:8080/'), { timeout: 5000 }).toContain('host-one');
    expect(fetchFrom(lab.inet, 'http://198.51.100.2:8081/')).toBe('');
  });

  test('the DMZ host receives what no mapping claims; the mapping still wins its port', async () => {
    await gateway.apply({
      ...NETWORK(),
      firewallPortMapping: [row(firewallPortMapping, 'pm1', { name: 'web', proto: 'tcp', wan: 'wan1', extport: 8080, intip: '192.168.11.10', intport: 80 })],
      firewallDmz: [row(firewallDmz, 'dmz1', { wan: 'wan1', host: '192.168.11.20' })],
    });
    await expect.poll(() => fetchFrom(lab.inet, 'http://198.51.100.2/'), { timeout: 5000 }).toContain('host-two');
    expect(fetchFrom(lab.inet, 'http://198.51.100.2:8080/')).toContain('host-one');
  });
});

describe('filter rules', () => {
  test('a rule blocks what it names and nothing else', async () => {
    await gateway.apply({
      ...NETWORK(),
      firewallAcl: [row(firewallAcl, 'acl1', { name: 'block one', direction: 'forward', target: 'drop', src: '192.168.11.10', dst: SERVER_ADDRESS, proto: 'tcp', dport: '80' })],
    });
    expect(await gateway.fetchUpstream(lab.clients[0]!.ns, 3)).toBe(false);
    expect(await gateway.fetchUpstream(lab.clients[1]!.ns)).toBe(true);
  });
});

describe('long filter lists', () => {
  test('a list long enough to be a verdict map blocks exactly the client it names', async () => {
    const rule = (i: number, src: string) => row(firewallAcl, `acl${i}`, { name: `r${i}`, target: 'drop', src, dst: SERVER_ADDRESS, proto: 'tcp', dport: '80' });
    const fillers = Array.from({ length: 9 }, (_, i) => rule(i, `192.168.11.${100 + i}`));
    await gateway.apply({ ...NETWORK(), firewallAcl: [...fillers, rule(9, '192.168.11.10')] });
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    expect(readFileSync(join(gateway.root, 'etc/portico/network.nft'), 'utf8')).toContain('vmap @fw_acl_forward_0');
    expect(await gateway.fetchUpstream(lab.clients[0]!.ns, 3)).toBe(false);
    expect(await gateway.fetchUpstream(lab.clients[1]!.ns)).toBe(true);
  });
});
