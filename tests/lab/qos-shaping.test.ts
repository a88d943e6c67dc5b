import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { qosBase, qosDomainRule, qosIpRule, qosLoadBalance, qosPortRule } from '@portico/schema';
import { inNs, SERVER_ADDRESS, setClientAddress, type Lab } from './lab-topology.js';
import { labPrerequisites } from './lab-packages.js';
import { expectRateWithin, windowAround } from './qos-lab.js';
import { createLabGateway, row, twoWansOneLan, type LabGateway } from './lab-gateway.js';
import { iperfConcurrent, iperfKbit, startIperfServers, waitForIperf, type IperfServers } from './qos-iperf.js';

/**
 * Smart QoS with real traffic: the linux driver's applier in the gateway namespace, iperf3
 * between LAN clients and the upstream server. Rates are kbit/s of payload as iperf3 counts
 * it; HTB counts whole frames, so a limit's payload lands a few per cent under it.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const LIMITED = '192.168.11.10';
const FREE = '192.168.11.11';
const PORT_PRIORITY = 5201;
const PORT_BULK = 5202;
const PORT_ROUTED = 5203;

let gateway: LabGateway;
let lab: Lab;
let iperf: IperfServers;
let dns: ChildProcess | undefined;
const dnsDir = mkdtempSync(join(tmpdir(), 'portico-qos-dns-'));

function snapshot(extra: { windowInside?: boolean; routes?: boolean } = {}) {
  const window = extra.windowInside === undefined ? {} : windowAround(new Date(), extra.windowInside);
  return {
    ...twoWansOneLan({ wan1: { dns: [SERVER_ADDRESS] } }),
    qosBase: [{ id: '', data: { qos: true, qosmode: 'custom', p2pblock: false, balance: false } }],
    qosLoadBalance: [
      row(qosLoadBalance, 'lb1', { interface: 'wan1', upbandwidth: 20_000, downbandwidth: 200_000 }),
      row(qosLoadBalance, 'lb2', { interface: 'wan2', upbandwidth: 20_000, downbandwidth: 200_000 }),
    ],
    qosIpRule: [
      row(qosIpRule, 'limit', {
        name: 'limited',
        usernet: LIMITED,
        upspeed1: 6000,
        downspeed1: 12_000,
        upspeed2: 14_000,
        downspeed2: 30_000,
        ...window,
      }),
    ],
    qosPortRule: [
      row(qosPortRule, 'prio', { name: 'interactive', proto: 'tcp', dport: [String(PORT_PRIORITY)], target: 'priority' }),
      row(qosPortRule, 'bulk', { name: 'backup', proto: 'tcp', dport: [String(PORT_BULK)], target: 'bulk' }),
      ...(extra.routes ? [row(qosPortRule, 'route', { name: 'via wan2', proto: 'tcp', dport: [String(PORT_ROUTED)], target: 'normal', userule: true, interface: 'wan2' })] : []),
    ],
    qosDomainRule: extra.routes
      ? [row(qosDomainRule, 'dom', { name: 'video', dest_domain: ['video.example.com'], target: 'normal', userule: true, interface: 'wan2' })]
      : [],
  };
}

beforeAll(async () => {
  gateway = createLabGateway({ clients: 2 });
  lab = gateway.lab;
  setClientAddress(lab, 0, LIMITED);
  setClientAddress(lab, 1, FREE);
  // An upstream name server: video.example.com is the upstream server's address.
  dns = spawn(
    'ip',
    ['netns', 'exec', lab.inet, 'dnsmasq', '--keep-in-foreground', '--no-resolv', '--no-hosts', `--listen-address=${SERVER_ADDRESS}`, '--bind-interfaces', `--address=/video.example.com/${SERVER_ADDRESS}`, `--pid-file=${join(dnsDir, 'dns.pid')}`],
    { stdio: 'ignore' },
  );
  iperf = startIperfServers(lab.inet, SERVER_ADDRESS, [PORT_PRIORITY, PORT_BULK, PORT_ROUTED]);
  await gateway.apply(snapshot());
  await waitForIperf(lab.clients[1]!.ns, SERVER_ADDRESS, PORT_PRIORITY);
});

afterAll(async () => {
  iperf?.stop();
  dns?.kill('SIGKILL');
  await gateway?.down();
  rmSync(dnsDir, { recursive: true, force: true });
});


describe('per-IP bandwidth rules', () => {
  test('upload and download of a limited address land within 10 % of the rule', () => {
    expectRateWithin(iperfKbit(lab.clients[0]!.ns, SERVER_ADDRESS, PORT_PRIORITY), 6000);
    expectRateWithin(iperfKbit(lab.clients[0]!.ns, SERVER_ADDRESS, PORT_PRIORITY, { reverse: true }), 12_000);
  });

  test('an address without a rule is not held to it', () => {
    expect(iperfKbit(lab.clients[1]!.ns, SERVER_ADDRESS, PORT_PRIORITY, { reverse: true })).toBeGreaterThan(50_000);
  });

  test('the time window switches between the inside and the outside limits', async () => {
    await gateway.apply(snapshot({ windowInside: true }));
    expectRateWithin(iperfKbit(lab.clients[0]!.ns, SERVER_ADDRESS, PORT_PRIORITY), 6000);
    await gateway.apply(snapshot({ windowInside: false }));
    expectRateWithin(iperfKbit(lab.clients[0]!.ns, SERVER_ADDRESS, PORT_PRIORITY), 14_000);
    expectRateWithin(iperfKbit(lab.clients[0]!.ns, SERVER_ADDRESS, PORT_PRIORITY, { reverse: true }), 30_000);
    await gateway.apply(snapshot());
  });
});

describe('priority classes', () => {
  test('under contention Priority keeps its share over Bulk', async () => {
    const client = lab.clients[1]!.ns;
    const [priority, bulk] = await iperfConcurrent([
      { client, server: SERVER_ADDRESS, port: PORT_PRIORITY, seconds: 6 },
      { client, server: SERVER_ADDRESS, port: PORT_BULK, seconds: 6 },
    ]);
    console.info(`contention on a 20000 kbit/s line: priority ${Math.round(priority!)} kbit/s, bulk ${Math.round(bulk!)} kbit/s`);
    // The 20 Mbit/s line: Priority is guaranteed 40 % and borrows first; Bulk 10 %.
    expect(priority! + bulk!).toBeLessThan(20_000 * 1.05);
    expect(priority!, `priority ${Math.round(priority!)} bulk ${Math.round(bulk!)}`).toBeGreaterThan(20_000 * 0.4 * 0.95);
    expect(priority!).toBeGreaterThan(bulk! * 2);
    expect(bulk!).toBeGreaterThan(20_000 * 0.1 * 0.8);
  });
});

describe('policy routes', () => {
  beforeAll(async () => {
    await gateway.apply(snapshot({ routes: true }));
  });

  const leftBy = (port: number) => {
    const seen = inNs(lab.gw, ['conntrack', '-L', '-p', 'tcp', '--dport', String(port)], { allowFail: true }).stdout;
    return { wan1: /dst=198\.51\.100\.2/.test(seen), wan2: /dst=203\.0\.113\.2/.test(seen) };
  };

  test('a port route sends its traffic out of the chosen WAN; other ports keep the main route', () => {
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    iperfKbit(lab.clients[1]!.ns, SERVER_ADDRESS, PORT_ROUTED, { seconds: 2 });
    iperfKbit(lab.clients[1]!.ns, SERVER_ADDRESS, PORT_PRIORITY, { seconds: 2 });
    expect(leftBy(PORT_ROUTED)).toEqual({ wan1: false, wan2: true });
    expect(leftBy(PORT_PRIORITY)).toEqual({ wan1: true, wan2: false });
  });

  test('a domain route follows the DNS answers for its domain', async () => {
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    expect(await gateway.fetchUpstream(lab.clients[1]!.ns)).toBe(true);
    expect(leftBy(80)).toEqual({ wan1: true, wan2: false });
    const answer = inNs(lab.clients[1]!.ns, ['busybox', 'nslookup', 'video.example.com', '192.168.11.1'], { allowFail: true, timeoutMs: 5000 }).stdout;
    expect(answer).toContain(SERVER_ADDRESS);
    expect(inNs(lab.gw, ['nft', 'list', 'set', 'inet', 'portico', 'qos_route_2']).stdout).toContain(SERVER_ADDRESS);
    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    expect(await gateway.fetchUpstream(lab.clients[1]!.ns)).toBe(true);
    expect(leftBy(80)).toEqual({ wan1: false, wan2: true });
  });
});
