import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { firewallSessionLimit, netParam, remoteAccess, TCP_TIMEOUTS, UDP_TIMEOUTS, writeSchema, type AnyEntity } from '@portico/schema';
import { inNs, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { createLabGateway, oneWanOneLan, type LabGateway } from './lab-gateway.js';

/**
 * Remote access with real traffic: the console port (an HTTP server standing in for the daemon
 * on 8080 in the gateway namespace) reached from the upstream namespace through the chosen WAN
 * port, from an allowed source only, and never on its own port from the WAN. Network
 * parameters and the connection-tracking timeouts of spec §9: the saved values are the
 * kernel's inside the gateway namespace (per-netns keys), not the host's.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let gateway: LabGateway;
let lab: Lab;
let consoleStandIn: ChildProcess | undefined;
let webRoot: string;

/** A singleton's snapshot row as the write path stores it. */
function singleton(entity: AnyEntity, input: Record<string, unknown>) {
  const parsed = writeSchema(entity, 'update').safeParse(input);
  if (!parsed.success) throw new Error(`${entity.name}: ${JSON.stringify(parsed.error.issues)}`);
  return [{ id: '', data: parsed.data as Record<string, unknown> }];
}

/** GET from the upstream namespace with the given source address; '' when nothing answered. */
function fetchFromInet(source: string, url: string): string {
  return inNs(lab.inet, ['curl', '-s', '--max-time', '2', '--interface', source, url], { allowFail: true, timeoutMs: 5000 }).stdout ?? '';
}

beforeAll(() => {
  gateway = createLabGateway({ clients: 2, httpServer: false });
  lab = gateway.lab;
  webRoot = mkdtempSync(join(tmpdir(), 'portico-lab-console-'));
  writeFileSync(join(webRoot, 'index.html'), 'console-ok\n');
  consoleStandIn = spawn('ip', ['netns', 'exec', lab.gw, 'busybox', 'httpd', '-f', '-p', '8080', '-h', webRoot], { stdio: 'ignore' });
  // A second upstream address on the WAN link: a source that is not allowed.
  inNs(lab.inet, ['ip', 'addr', 'add', '198.51.100.9/24', 'dev', 'up1']);
});

afterAll(async () => {
  consoleStandIn?.kill();
  await gateway?.down();
  rmSync(webRoot, { recursive: true, force: true });
});

describe('remote access', () => {
  test('the chosen WAN port reaches the console from an allowed address and not from another; the console port stays closed on the WAN', async () => {
    await gateway.apply({ ...oneWanOneLan(), remoteAccess: singleton(remoteAccess as unknown as AnyEntity, { enabled: true, port: 8443, allowed_ips: ['198.51.100.1'] }) });
    await expect.poll(() => fetchFromInet('198.51.100.1', 'http://198.51.100.2:8443/'), { timeout: 5000 }).toContain('console-ok');
    expect(fetchFromInet('198.51.100.9', 'http://198.51.100.2:8443/')).toBe('');
    expect(fetchFromInet('198.51.100.1', 'http://198.51.100.2:8080/')).toBe('');
    const ruleset = readFileSync(join(gateway.root, 'etc/portico/network.nft'), 'utf8');
    expect(ruleset).toContain('set remote_access_v4');

    // Switched off: nothing answers from the WAN any more.
    await gateway.apply({ ...oneWanOneLan(), remoteAccess: singleton(remoteAccess as unknown as AnyEntity, { enabled: false }) });
    expect(fetchFromInet('198.51.100.1', 'http://198.51.100.2:8443/')).toBe('');
  });
});

describe('network parameters', () => {
  test('a saved value is the kernel value inside the gateway namespace, not on the host', async () => {
    const host = readFileSync('/proc/sys/net/ipv4/tcp_fin_timeout', 'utf8').trim();
    const wanted = host === '33' ? 34 : 33;
    await gateway.apply({ ...oneWanOneLan(), netParam: singleton(netParam as unknown as AnyEntity, { tcp_fin_timeout: wanted, ip_default_ttl: 77 }) });
    expect(inNs(lab.gw, ['cat', '/proc/sys/net/ipv4/tcp_fin_timeout']).stdout.trim()).toBe(String(wanted));
    expect(inNs(lab.gw, ['cat', '/proc/sys/net/ipv4/ip_default_ttl']).stdout.trim()).toBe('77');
    expect(readFileSync('/proc/sys/net/ipv4/tcp_fin_timeout', 'utf8').trim()).toBe(host);
  });
});

describe('connection-tracking timeouts (spec §9)', () => {
  const conntrack = (key: string) => inNs(lab.gw, ['cat', `/proc/sys/net/netfilter/${key}`]).stdout.trim();

  test('the defaults are the kernel values in the gateway namespace, and a saved change follows', async () => {
    await gateway.apply(oneWanOneLan());
    expect(conntrack('nf_conntrack_tcp_timeout_established')).toBe(String(TCP_TIMEOUTS.established));
    expect(conntrack('nf_conntrack_tcp_timeout_syn_sent')).toBe(String(TCP_TIMEOUTS.synSent));
    expect(conntrack('nf_conntrack_tcp_timeout_close')).toBe(String(TCP_TIMEOUTS.close));
    expect(conntrack('nf_conntrack_udp_timeout')).toBe(String(UDP_TIMEOUTS.unreplied));
    expect(conntrack('nf_conntrack_udp_timeout_stream')).toBe(String(UDP_TIMEOUTS.assured));
    await gateway.apply({ ...oneWanOneLan(), firewallSessionLimit: singleton(firewallSessionLimit as unknown as AnyEntity, { tcp_established: 1700 }) });
    expect(conntrack('nf_conntrack_tcp_timeout_established')).toBe('1700');
  });
});
