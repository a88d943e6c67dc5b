import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { networkInterface, qosIpRule, qosLoadBalance, qosMacRule, qosPortRule } from '@portico/schema';
import { rulesetContributors } from '../../apps/daemon/src/config/system-domains.js';
import { networkConfigOf, networkDomain } from '../../apps/daemon/src/domains/network/network-domain.js';
import { planNetwork } from '../../apps/daemon/src/domains/network/network-plan.js';
import { qosConfigOf } from '../../apps/daemon/src/domains/qos/qos-config.js';
import { downloadCode, planQos } from '../../apps/daemon/src/domains/qos/qos-plan.js';
import { createLabGateway, row, type LabGateway } from './lab-gateway.js';
import { labPrerequisites } from './lab-packages.js';
import { inNs, SERVER_ADDRESS, setClientAddress, type Lab } from './lab-topology.js';
import { iperfKbit, startIperfServers, waitForIperf, type IperfServers } from './qos-iperf.js';

/**
 * The nftables half of download shaping on IFB devices (qos-plan.ts `ifb`), with real traffic:
 * every connection from the LAN carries its download code in its connection mark, beside the
 * WAN bits multi-WAN routing keeps there. The tc half (the WAN's ingress copying the mark with
 * `ctinfo`) needs an action this machine's kernel lacks, so the gateway here runs the network
 * domain with the IFB-side ruleset and no tc script; the IFB tree's filters are proven with
 * real packets in apps/daemon/test/qos-ifb.test.ts.
 */
const blocker = labPrerequisites();
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

const LIMITED = '192.168.11.10';
const MAC_USER = '192.168.11.11';
const FREE = '192.168.11.12';
const PORT_PRIORITY = 5201;
const PORT_ROUTED = 5203;

let gateway: LabGateway;
let lab: Lab;
let iperf: IperfServers;

function snapshot() {
  return {
    networkInterface: [
      row(networkInterface, 'wan1', { ifname: 'wan1', role: 'wan', hwport: ['wan1'], proto: 'static', ipaddr: '198.51.100.2', netmask: '255.255.255.0', gateway: '198.51.100.1' }),
      row(networkInterface, 'wan2', { ifname: 'wan2', role: 'wan', hwport: ['wan2'], proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1' }),
      row(networkInterface, 'lan', { ifname: 'lan', role: 'lan', hwport: ['lanp1', 'lanp2', 'lanp3'], proto: 'static', ipaddr: '192.168.11.1', netmask: '255.255.255.0' }),
    ],
    qosBase: [{ id: '', data: { qos: true, qosmode: 'custom', p2pblock: false, balance: false } }],
    qosLoadBalance: [
      row(qosLoadBalance, 'lb1', { interface: 'wan1', upbandwidth: 20_000, downbandwidth: 20_000 }),
      row(qosLoadBalance, 'lb2', { interface: 'wan2', upbandwidth: 20_000, downbandwidth: 20_000 }),
    ],
    qosIpRule: [row(qosIpRule, 'limit', { name: 'limited', usernet: LIMITED, upspeed1: 0, downspeed1: 6000 })],
    qosMacRule: [row(qosMacRule, 'mac', { name: 'by mac', usernet: lab.clients[1]!.mac, upspeed1: 0, downspeed1: 3000 })],
    qosPortRule: [
      row(qosPortRule, 'prio', { name: 'interactive', proto: 'tcp', dport: [String(PORT_PRIORITY)], target: 'priority' }),
      row(qosPortRule, 'route', { name: 'via wan2', proto: 'tcp', dport: [String(PORT_ROUTED)], target: 'normal', userule: true, interface: 'wan2' }),
    ],
  };
}

beforeAll(async () => {
  gateway = createLabGateway({
    clients: 3,
    domains: (root) => [networkDomain({ port: 8080, systemRoot: root, driver: 'linux' }, rulesetContributors('ifb'))],
  });
  lab = gateway.lab;
  setClientAddress(lab, 0, LIMITED);
  setClientAddress(lab, 1, MAC_USER);
  setClientAddress(lab, 2, FREE);
  iperf = startIperfServers(lab.inet, SERVER_ADDRESS, [PORT_PRIORITY, PORT_ROUTED]);
  await gateway.apply(snapshot());
  await waitForIperf(lab.clients[2]!.ns, SERVER_ADDRESS, PORT_PRIORITY);
});

afterAll(async () => {
  iperf?.stop();
  await gateway?.down();
});

/** Connection marks of `client`'s TCP connections to `port`, with the WAN address each left by. */
function connections(client: string, port: number): Array<{ mark: number; wan: string }> {
  const seen = inNs(lab.gw, ['conntrack', '-L', '-p', 'tcp', '-s', client, '--dport', String(port)], { allowFail: true }).stdout;
  return seen
    .split('\n')
    .filter((line) => line.includes('mark='))
    .map((line) => ({ mark: Number(/mark=(\d+)/.exec(line)![1]), wan: /src=192\.0\.2\.80 dst=(\S+)/.exec(line)?.[1] ?? '' }));
}

describe('download codes in the connection mark (IFB side)', () => {
  test('each connection carries the code of its class or its user, and the WAN it left by', async () => {
    const plan = planQos(qosConfigOf(snapshot()), planNetwork(networkConfigOf(snapshot())), 'ifb');
    const slotOf = (key: string) => plan.users.find((u) => u.key === key)!.insideSlot!;
    const code = (mark: number) => mark & 0xffff0000;

    inNs(lab.gw, ['conntrack', '-F'], { allowFail: true });
    for (const index of [0, 1, 2]) expect(await gateway.fetchUpstream(lab.clients[index]!.ns)).toBe(true);
    iperfKbit(lab.clients[2]!.ns, SERVER_ADDRESS, PORT_PRIORITY, { seconds: 2, reverse: true });
    iperfKbit(lab.clients[2]!.ns, SERVER_ADDRESS, PORT_ROUTED, { seconds: 2, reverse: true });

    // A limited user, by address and by MAC: its slot, whatever the class of the port.
    const limited = connections(LIMITED, 80);
    expect(limited.length).toBeGreaterThan(0);
    for (const c of limited) expect(code(c.mark)).toBe(downloadCode({ slot: slotOf(LIMITED) }));
    const byMac = connections(MAC_USER, 80);
    expect(byMac.length).toBeGreaterThan(0);
    for (const c of byMac) expect(code(c.mark)).toBe(downloadCode({ slot: slotOf(lab.clients[1]!.mac) }));

    // Everyone else: the class; the port route's connections keep the WAN bits that route them.
    for (const c of connections(FREE, 80)) expect(code(c.mark)).toBe(downloadCode({ minor: 0x30 }));
    const priority = connections(FREE, PORT_PRIORITY);
    expect(priority.length).toBeGreaterThan(0);
    for (const c of priority) expect({ code: code(c.mark), wan: c.wan }).toEqual({ code: downloadCode({ minor: 0x10 }), wan: '198.51.100.2' });
    const routed = connections(FREE, PORT_ROUTED);
    expect(routed.length).toBeGreaterThan(0);
    const wan2 = planNetwork(networkConfigOf(snapshot())).wans.find((w) => w.name === 'wan2')!.mark;
    for (const c of routed) expect({ code: code(c.mark), wanBits: c.mark & 0xff00, wan: c.wan }).toEqual({ code: downloadCode({ minor: 0x30 }), wanBits: wan2, wan: '203.0.113.2' });
  });
});
