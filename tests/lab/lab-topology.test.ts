import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, inNs, run, SERVER_ADDRESS, staleLabNamespaces, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';

const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let lab: Lab;
let httpd: ChildProcess;
let webRoot: string;

beforeAll(() => {
  lab = createLab({ clients: 2 });
  webRoot = mkdtempSync(join(tmpdir(), 'portico-lab-www-'));
  writeFileSync(join(webRoot, 'index.html'), 'upstream-ok\n');
  httpd = spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'httpd', '-f', '-p', `${SERVER_ADDRESS}:80`, '-h', webRoot], {
    stdio: 'ignore',
  });
});

afterAll(() => {
  httpd?.kill();
  lab?.down();
  rmSync(webRoot, { recursive: true, force: true });
});

describe('lab topology', () => {
  test('the gateway reaches the upstream over both WAN links', () => {
    // The daemon owns the gateway's addresses; the topology alone leaves them empty.
    const addresses = [
      ['198.51.100.2/24', 'wan1', lab.upstream.wan1],
      ['203.0.113.2/24', 'wan2', lab.upstream.wan2],
    ] as const;
    for (const [cidr, dev, upstream] of addresses) {
      inNs(lab.gw, ['ip', 'addr', 'add', cidr, 'dev', dev]);
      const ping = inNs(lab.gw, ['busybox', 'ping', '-c', '1', '-W', '2', upstream], { allowFail: true });
      inNs(lab.gw, ['ip', 'addr', 'del', cidr, 'dev', dev]);
      expect(ping.status, ping.stdout + ping.stderr).toBe(0);
    }
  });

  test('the upstream serves HTTP on its server address', async () => {
    inNs(lab.gw, ['ip', 'addr', 'add', '198.51.100.2/24', 'dev', 'wan1']);
    inNs(lab.gw, ['ip', 'route', 'add', `${SERVER_ADDRESS}/32`, 'via', lab.upstream.wan1]);
    let body = '';
    for (let i = 0; i < 20 && !body.includes('upstream-ok'); i++) {
      body = inNs(lab.gw, ['busybox', 'wget', '-q', '-O', '-', `http://${SERVER_ADDRESS}/`], { allowFail: true }).stdout;
      if (!body.includes('upstream-ok')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(body).toContain('upstream-ok');
    inNs(lab.gw, ['ip', 'route', 'del', `${SERVER_ADDRESS}/32`]);
    inNs(lab.gw, ['ip', 'addr', 'del', '198.51.100.2/24', 'dev', 'wan1']);
  });

  test('clients sit on the gateway LAN bridge with their own MACs', () => {
    const bridged = inNs(lab.gw, ['ip', '-o', 'link', 'show', 'master', lab.lanBridge]).stdout;
    expect(bridged.match(/lanp\d+/g)?.length).toBe(2);
    for (const client of lab.clients) {
      const link = inNs(client.ns, ['ip', '-o', 'link', 'show', client.ifname]).stdout;
      expect(link).toContain(client.mac);
    }
  });

  test('lab interfaces never appear on the host', () => {
    const host = run(['ip', '-o', 'link', 'show']).stdout;
    expect(host).not.toMatch(/\b(up1|up2|wan1|wan2|lanp\d+)@/);
  });

  test('cleanup removes exactly the namespaces this run created', () => {
    const other = createLab({ clients: 1 });
    expect(staleLabNamespaces()).toEqual(expect.arrayContaining([other.inet, other.gw, `${other.prefix}-cl1`]));
    other.down();
    expect(staleLabNamespaces().filter((ns) => ns.startsWith(other.prefix))).toEqual([]);
    expect(staleLabNamespaces()).toEqual(expect.arrayContaining([lab.inet, lab.gw]));
  });
});
