import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { qosLoadBalance, qosMacRule } from '@portico/schema';
import { inNs, SERVER_ADDRESS, setClientAddress, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { expectRateWithin } from './qos-lab.js';
import { createLabGateway, row, twoWansOneLan, type LabGateway } from './lab-gateway.js';
import { iperfKbit, startIperfServers, waitForIperf, type IperfServers } from './qos-iperf.js';

/**
 * Smart QoS by MAC address (upload by source MAC, download through the connection mark) and
 * load balance over two WANs, and P2P blocking, with real traffic in the lab.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const PORT = 5211;
let gateway: LabGateway;
let lab: Lab;
let iperf: IperfServers;

function snapshot(balance: boolean, isps: { wan1?: string; wan2?: string } = {}) {
  return {
    ...twoWansOneLan(),
    qosBase: [{ id: '', data: { qos: true, qosmode: 'smart', p2pblock: true, balance } }],
    qosLoadBalance: [
      row(qosLoadBalance, 'lb1', { interface: 'wan1', weight: 1, upbandwidth: 100_000, downbandwidth: 200_000, ...(isps.wan1 ? { isp: isps.wan1 } : {}) }),
      row(qosLoadBalance, 'lb2', { interface: 'wan2', weight: 1, upbandwidth: 100_000, downbandwidth: 200_000, ...(isps.wan2 ? { isp: isps.wan2 } : {}) }),
    ],
    qosMacRule: [row(qosMacRule, 'tv', { name: 'tv', usernet: lab.clients[0]!.mac, upspeed1: 5000, downspeed1: 9000 })],
  };
}

beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  setClientAddress(lab, 0, '192.168.11.10');
  setClientAddress(lab, 1, '192.168.11.11');
  iperf = startIperfServers(lab.inet, SERVER_ADDRESS, [PORT]);
  await gateway.apply(snapshot(false));
  await waitForIperf(lab.clients[1]!.ns, SERVER_ADDRESS, PORT);
});

afterAll(async () => {
  iperf?.stop();
  await gateway?.down();
});


describe('MAC bandwidth rules', () => {
  test('the device with the MAC is held to its limits both ways; another device is not', () => {
    expectRateWithin(iperfKbit(lab.clients[0]!.ns, SERVER_ADDRESS, PORT), 5000, 'MAC limit');
    expectRateWithin(iperfKbit(lab.clients[0]!.ns, SERVER_ADDRESS, PORT, { reverse: true }), 9000, 'MAC limit');
    expect(iperfKbit(lab.clients[1]!.ns, SERVER_ADDRESS, PORT, { reverse: true })).toBeGreaterThan(50_000);
  });
});

describe('load balance', () => {
  test('new connections are spread over both WANs by weight', async () => {
    await gateway.apply(snapshot(true));
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    for (let i = 0; i < 24; i++) expect(await gateway.fetchUpstream(lab.clients[1]!.ns, 3)).toBe(true);
    const seen = inNs(lab.gw, ['conntrack', '-L', '-p', 'tcp', '--dport', '80'], { allowFail: true }).stdout;
    const wan1 = seen.match(/dst=198\.51\.100\.2/g)?.length ?? 0;
    const wan2 = seen.match(/dst=203\.0\.113\.2/g)?.length ?? 0;
    console.info(`24 connections: ${wan1} through wan1, ${wan2} through wan2`);
    expect(wan1 + wan2).toBe(24);
    // Equal weights: each WAN gets a fair part (the chance of 4 or fewer of 24 is below 0.2 %).
    expect(Math.min(wan1, wan2)).toBeGreaterThan(4);
  });
});

describe('ISP groups', () => {
  // Addresses inside networks of the shipped telecom and mobile files, put on the lab's own
  // upstream namespace: the connections never leave the namespaces this test made.
  const TELECOM = '1.1.8.80';
  const MOBILE = '36.128.0.80';
  const ISP_HTTP_PORT = 8081;

  /** The WAN address each connection to `address` was translated to, from conntrack. */
  function wansUsed(address: string): string[] {
    const seen = inNs(lab.gw, ['conntrack', '-L', '-p', 'tcp', '-d', address], { allowFail: true }).stdout;
    return [...seen.matchAll(new RegExp(`src=${address.replaceAll('.', '\\.')} dst=(\\S+)`, 'g'))].map((m) => m[1]!);
  }

  test('connections to a shipped operator network leave by the WAN of its group, whatever the weights', async () => {
    for (const address of [TELECOM, MOBILE]) inNs(lab.inet, ['ip', 'addr', 'add', `${address}/32`, 'dev', 'lo']);
    const www = mkdtempSync(join(tmpdir(), 'portico-lab-isp-'));
    writeFileSync(join(www, 'index.html'), 'upstream-ok\n');
    const servers = [TELECOM, MOBILE].map((address) =>
      spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'httpd', '-f', '-p', `${address}:${ISP_HTTP_PORT}`, '-h', www], { stdio: 'ignore' }),
    );
    await new Promise((r) => setTimeout(r, 300));
    try {
      await gateway.apply(snapshot(true, { wan1: 'telecom', wan2: 'mobile' }));
      inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
      for (let i = 0; i < 8; i++) {
        for (const address of [TELECOM, MOBILE]) {
          const body = inNs(lab.clients[1]!.ns, ['busybox', 'wget', '-q', '-O', '-', `http://${address}:${ISP_HTTP_PORT}/`], { allowFail: true, timeoutMs: 3000 }).stdout;
          expect(body).toContain('upstream-ok');
        }
      }
      const telecom = wansUsed(TELECOM);
      const mobile = wansUsed(MOBILE);
      console.info(`telecom connections by ${[...new Set(telecom)]}, mobile by ${[...new Set(mobile)]}`);
      expect(telecom).toHaveLength(8);
      expect(new Set(telecom)).toEqual(new Set(['198.51.100.2']));
      expect(mobile).toHaveLength(8);
      expect(new Set(mobile)).toEqual(new Set(['203.0.113.2']));
    } finally {
      for (const server of servers) server.kill();
      rmSync(www, { recursive: true, force: true });
      for (const address of [TELECOM, MOBILE]) inNs(lab.inet, ['ip', 'addr', 'del', `${address}/32`, 'dev', 'lo'], { allowFail: true });
    }
  });
});

/** What a TCP listener upstream receives from a client that sends `payload`. */
async function deliver(client: string, port: number, payload: string): Promise<string> {
  const server = spawn('ip', ['netns', 'exec', lab.inet, 'busybox', 'nc', '-l', '-p', String(port)], { stdio: ['ignore', 'pipe', 'ignore'] });
  let received = '';
  server.stdout!.on('data', (chunk) => (received += chunk));
  await new Promise((r) => setTimeout(r, 300));
  inNs(client, ['busybox', 'nc', '-w', '2', SERVER_ADDRESS, String(port)], { input: payload, allowFail: true, timeoutMs: 5000 });
  await new Promise((r) => setTimeout(r, 300));
  server.kill('SIGKILL');
  return received;
}

describe('P2P blocking', () => {
  test('a BitTorrent handshake does not get through; other data on the same port does', async () => {
    const client = lab.clients[1]!.ns;
    expect(await deliver(client, 7001, 'hello upstream\n')).toContain('hello upstream');
    expect(await deliver(client, 7002, '\u0013BitTorrent protocol\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000')).toBe('');
  });
});
