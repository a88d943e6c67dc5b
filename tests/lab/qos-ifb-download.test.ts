import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { qosIpRule, qosLoadBalance, qosMacRule, qosPortRule } from '@portico/schema';
import { buildQosIngressObject } from '../../apps/daemon/bpf-build.mjs';
import { networkConfigOf } from '../../apps/daemon/src/domains/network/network-domain.js';
import { planNetwork } from '../../apps/daemon/src/domains/network/network-plan.js';
import { QOS_FILES, qosConfigOf } from '../../apps/daemon/src/domains/qos/qos-config.js';
import { qosDownloadShaping } from '../../apps/daemon/src/domains/qos/qos-kernel.js';
import { CLASS_MINOR, downloadCode, planQos, type QosDownloadShaping } from '../../apps/daemon/src/domains/qos/qos-plan.js';
import { qosScriptDirectives } from '../../apps/daemon/src/domains/qos/qos-tc.js';
import { createLabGateway, row, twoWansOneLan, type LabGateway } from './lab-gateway.js';
import { labPrerequisites } from './lab-packages.js';
import { expectRateWithin, windowAround } from './qos-lab.js';
import { inNs, SERVER_ADDRESS, setClientAddress, type Lab } from './lab-topology.js';
import { iperfConcurrent, iperfKbit, startIperfServers, waitForIperf, type IperfServers } from './qos-iperf.js';

/**
 * Smart QoS download shaping on IFB devices, with real traffic through the whole path: every
 * packet from the LAN writes its connection's download code into the connection mark; the
 * WAN's ingress filter copies it to the packet (tc `ctinfo`, or on this machine's kernel, which
 * lacks that action, the daemon's eBPF classifier) and redirects the packet to the WAN's IFB
 * device, whose tree shapes it. The gateway runs `auto`, as the device does: the test fails if
 * the kernel offers neither way.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const LIMITED = '192.168.11.10';
const MAC_USER = '192.168.11.11';
const FREE = '192.168.11.12';
const PORT_PRIORITY = 5201;
const PORT_BULK = 5202;
const PORT_ROUTED = 5203;
/** Each WAN's download line, kbit/s. */
const LINE = 20_000;

let gateway: LabGateway;
let lab: Lab;
let iperf: IperfServers;
let download: QosDownloadShaping;

/** The IP rule's window: around now (its first limit applies) or away from now (its second). */
function snapshot(windowInside = true) {
  const window = windowAround(new Date(), windowInside);
  return {
    ...twoWansOneLan({ lanPorts: 3 }),
    qosBase: [{ id: '', data: { qos: true, qosmode: 'custom', p2pblock: false, balance: false } }],
    qosLoadBalance: [
      row(qosLoadBalance, 'lb1', { interface: 'wan1', upbandwidth: 100_000, downbandwidth: LINE }),
      row(qosLoadBalance, 'lb2', { interface: 'wan2', upbandwidth: 100_000, downbandwidth: LINE }),
    ],
    qosIpRule: [row(qosIpRule, 'limit', { name: 'limited', usernet: LIMITED, upspeed1: 0, downspeed1: 6000, upspeed2: 0, downspeed2: 12_000, ...window })],
    qosMacRule: [row(qosMacRule, 'mac', { name: 'by mac', usernet: lab.clients[1]!.mac, upspeed1: 0, downspeed1: 3000 })],
    qosPortRule: [
      row(qosPortRule, 'prio', { name: 'interactive', proto: 'tcp', dport: [String(PORT_PRIORITY)], target: 'priority' }),
      row(qosPortRule, 'bulk', { name: 'backup', proto: 'tcp', dport: [String(PORT_BULK)], target: 'bulk' }),
      row(qosPortRule, 'route', { name: 'via wan2', proto: 'tcp', dport: [String(PORT_ROUTED)], target: 'normal', userule: true, interface: 'wan2' }),
    ],
  };
}

beforeAll(async () => {
  // The build may have run before clang was installed (the lab installs its packages itself).
  await buildQosIngressObject();
  download = qosDownloadShaping('auto', 'linux');
  gateway = createLabGateway({ clients: 3, qosDownload: 'auto' });
  lab = gateway.lab;
  setClientAddress(lab, 0, LIMITED);
  setClientAddress(lab, 1, MAC_USER);
  setClientAddress(lab, 2, FREE);
  iperf = startIperfServers(lab.inet, SERVER_ADDRESS, [PORT_PRIORITY, PORT_BULK, PORT_ROUTED]);
  await gateway.apply(snapshot());
  await waitForIperf(lab.clients[2]!.ns, SERVER_ADDRESS, PORT_PRIORITY);
});

afterAll(async () => {
  iperf?.stop();
  await gateway?.down();
});

const down = (client: number, port = PORT_PRIORITY, seconds = 4) => iperfKbit(lab.clients[client]!.ns, SERVER_ADDRESS, port, { reverse: true, seconds });


/** Bytes a class of an IFB device has sent. */
function classBytes(dev: string, classid: string): number {
  const shown = inNs(lab.gw, ['tc', '-s', 'class', 'show', 'dev', dev, 'classid', classid]).stdout;
  return Number(/Sent (\d+) bytes/.exec(shown)?.[1] ?? 0);
}

/** Connection marks of `client`'s TCP connections to `port`, with the WAN address each left by. */
function connections(client: string, port: number): Array<{ mark: number; wan: string }> {
  const seen = inNs(lab.gw, ['conntrack', '-L', '-p', 'tcp', '-s', client, '--dport', String(port)], { allowFail: true }).stdout;
  return seen
    .split('\n')
    .filter((line) => line.includes('mark='))
    .map((line) => ({ mark: Number(/mark=(\d+)/.exec(line)![1]), wan: /src=192\.0\.2\.80 dst=(\S+)/.exec(line)?.[1] ?? '' }));
}

describe('download shaping on IFB devices (auto, this kernel)', () => {
  test('the kernel offers a way to copy the code, and the script shapes download on one IFB device per WAN', () => {
    expect(download, 'this kernel has neither tc ctinfo nor the bpf classifier with conntrack kfuncs').not.toBe('lan');
    const script = readFileSync(join(gateway.root, QOS_FILES.tc), 'utf8');
    const directives = qosScriptDirectives(script);
    expect(directives.ifb).toEqual(['qifb1', 'qifb2']);
    expect(directives.download).toEqual(['qifb1', 'qifb2']);
    const ingress = inNs(lab.gw, ['tc', 'filter', 'show', 'dev', lab.wan1, 'ingress']).stdout;
    expect(ingress).toContain(download === 'ifb-bpf' ? 'qos-ingress-mark.o:[classifier]' : 'ctinfo');
    expect(ingress).toContain('Redirect to device qifb1');
    expect(inNs(lab.gw, ['tc', 'qdisc', 'show', 'dev', lab.lanBridge]).stdout).not.toContain('htb');
  });

  test('an IP rule’s download lands within 10 % of its limit', () => {
    expectRateWithin(down(0), 6000);
  });

  test('a MAC rule’s download lands within 10 % of its limit', () => {
    expectRateWithin(down(1), 3000);
  });

  test('an address without a rule gets the WAN’s download line, not a user’s limit', () => {
    const free = down(2);
    console.info(`unlimited download ${Math.round(free)} kbit/s on a ${LINE} kbit/s line`);
    expect(free).toBeGreaterThan(LINE * 0.85);
    expect(free).toBeLessThan(LINE * 1.05);
  });

  test('under contention on the download line Priority keeps its share over Bulk', async () => {
    const client = lab.clients[2]!.ns;
    const priorityBefore = classBytes('qifb1', `1:${CLASS_MINOR.priority.toString(16)}`);
    const bulkBefore = classBytes('qifb1', `1:${CLASS_MINOR.bulk.toString(16)}`);
    const [priority, bulk] = await iperfConcurrent([
      { client, server: SERVER_ADDRESS, port: PORT_PRIORITY, seconds: 6, reverse: true },
      { client, server: SERVER_ADDRESS, port: PORT_BULK, seconds: 6, reverse: true },
    ]);
    console.info(`download contention on a ${LINE} kbit/s line: priority ${Math.round(priority!)} kbit/s, bulk ${Math.round(bulk!)} kbit/s`);
    expect(priority! + bulk!).toBeLessThan(LINE * 1.05);
    expect(priority!, `priority ${Math.round(priority!)} bulk ${Math.round(bulk!)}`).toBeGreaterThan(LINE * 0.4 * 0.95);
    expect(priority!).toBeGreaterThan(bulk! * 2);
    expect(bulk!).toBeGreaterThan(LINE * 0.1 * 0.8);
    // Each went through its own class of the IFB tree: megabytes, not a stray packet.
    expect(classBytes('qifb1', `1:${CLASS_MINOR.priority.toString(16)}`) - priorityBefore).toBeGreaterThan(1_000_000);
    expect(classBytes('qifb1', `1:${CLASS_MINOR.bulk.toString(16)}`) - bulkBefore).toBeGreaterThan(200_000);
  });

  test('each connection carries the code of its class or its user, and a routed one is shaped on its own WAN’s IFB device', async () => {
    const plan = planQos(qosConfigOf(snapshot()), planNetwork(networkConfigOf(snapshot())), download);
    const slotOf = (key: string) => plan.users.find((u) => u.key === key)!.insideSlot!;
    const code = (mark: number) => mark & 0xffff0000;

    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    for (const index of [0, 1, 2]) expect(await gateway.fetchUpstream(lab.clients[index]!.ns)).toBe(true);
    down(2, PORT_PRIORITY, 2);
    const routedBefore = classBytes('qifb2', `1:${CLASS_MINOR.normal.toString(16)}`);
    down(2, PORT_ROUTED, 2);
    expect(classBytes('qifb2', `1:${CLASS_MINOR.normal.toString(16)}`) - routedBefore).toBeGreaterThan(1_000_000);

    // A limited user, by address and by MAC: its slot, whatever the class of the port.
    const limited = connections(LIMITED, 80);
    expect(limited.length).toBeGreaterThan(0);
    for (const c of limited) expect(code(c.mark)).toBe(downloadCode({ slot: slotOf(LIMITED) }));
    const byMac = connections(MAC_USER, 80);
    expect(byMac.length).toBeGreaterThan(0);
    for (const c of byMac) expect(code(c.mark)).toBe(downloadCode({ slot: slotOf(lab.clients[1]!.mac) }));

    // Everyone else: the class; the port route's connections keep the WAN bits that route them.
    for (const c of connections(FREE, 80)) expect(code(c.mark)).toBe(downloadCode({ minor: CLASS_MINOR.normal }));
    const priority = connections(FREE, PORT_PRIORITY);
    expect(priority.length).toBeGreaterThan(0);
    for (const c of priority) expect({ code: code(c.mark), wan: c.wan }).toEqual({ code: downloadCode({ minor: CLASS_MINOR.priority }), wan: '198.51.100.2' });
    const routed = connections(FREE, PORT_ROUTED);
    expect(routed.length).toBeGreaterThan(0);
    const wan2 = planNetwork(networkConfigOf(snapshot())).wans.find((w) => w.name === 'wan2')!.mark;
    for (const c of routed) expect({ code: code(c.mark), wanBits: c.mark & 0xff00, wan: c.wan }).toEqual({ code: downloadCode({ minor: CLASS_MINOR.normal }), wanBits: wan2, wan: '203.0.113.2' });
  });

  test('the time window switches the IP rule to its other download limit', async () => {
    await gateway.apply(snapshot(false));
    expectRateWithin(down(0), 12_000);
    await gateway.apply(snapshot(true));
    expectRateWithin(down(0), 6000);
  });
});
