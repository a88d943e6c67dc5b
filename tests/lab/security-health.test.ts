import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLab, inNs, run, type Lab } from './lab-topology.js';
import { HEALTH_LAB_PACKAGES, labPrerequisites } from './lab-packages.js';
import { runCommand } from '../../apps/daemon/src/engine/command-runner.js';
import { helperProbe, linkMacs, neighbourAddresses, probeInterface, type Detection, type L2Probe, type LoopProbes } from '../../apps/daemon/src/domains/health/health-detectors.js';
import { buildL2Probe } from '../../apps/daemon/l2probe-build.mjs';

/**
 * The health monitor's LAN probes on real links: the gateway namespace's br-lan (192.168.11.1)
 * probed through the packet helper while client namespaces play what it must find: a rogue
 * dnsmasq (another DHCP server), Debian's pppoe-server (a PPPoE server; its discovery runs in
 * user space, so this kernel without PPP is enough), a client holding the gateway's address
 * (an IP conflict), two clients holding one address (an IP conflict between them, with both
 * MACs), and a client namespace bridging two of its links to the gateway back
 * together (a loop). Each is found with its address and MAC; a conflict and a loop are gone
 * when they end.
 */
const blocker = labPrerequisites(HEALTH_LAB_PACKAGES);
if (blocker) throw new Error(`lab suite cannot run: ${blocker}`);

let lab: Lab;
let probe: L2Probe;
let prefix: string[];
const work = mkdtempSync(join(tmpdir(), 'portico-lab-health-'));
const GATEWAY = '192.168.11.1';
const target = { interface: 'lan', device: 'br-lan', addresses: [GATEWAY] };

/** Every client namespace, and the gateway's, without IPv6: its chatter would circle the loop. */
function quietIpv6(ns: string) {
  for (const key of ['all', 'default']) inNs(ns, ['sysctl', '-qw', `net.ipv6.conf.${key}.disable_ipv6=1`]);
}

beforeAll(async () => {
  const helper = await buildL2Probe();
  if (!helper) throw new Error('the packet helper could not be built (no C compiler)');
  lab = createLab({ clients: 3 });
  for (const ns of [lab.gw, ...lab.clients.map((c) => c.ns)]) quietIpv6(ns);
  for (const c of lab.clients) inNs(c.ns, ['ip', '-6', 'addr', 'flush', 'dev', c.ifname]);
  inNs(lab.gw, ['ip', 'addr', 'add', `${GATEWAY}/24`, 'dev', 'br-lan']);
  prefix = ['ip', 'netns', 'exec', lab.gw];
  probe = helperProbe(runCommand, helper, prefix);
});

afterAll(() => {
  lab?.down();
  rmSync(work, { recursive: true, force: true });
});

/** What the monitor keeps between rounds: the loop probe still circling. */
const loops: LoopProbes = new Map();

async function findings(): Promise<Detection[]> {
  const macs = await linkMacs(runCommand, prefix);
  const neighbours = await neighbourAddresses(runCommand, 'br-lan', prefix);
  return probeInterface({ ...target, neighbours }, macs.get('br-lan')!, new Set(macs.values()), probe, loops);
}

const kinds = (list: Detection[], kind: Detection['kind']) => list.filter((d) => d.kind === kind);

describe('health monitor LAN probes', () => {
  test('a quiet LAN has nothing to report', async () => {
    expect(await findings()).toEqual([]);
  });

  test('a rogue DHCP server in a client namespace: its address and MAC, and no lease taken from it', async () => {
    const rogue = lab.clients[0]!;
    inNs(rogue.ns, ['ip', 'addr', 'add', '192.168.11.250/24', 'dev', rogue.ifname]);
    const pidFile = join(work, 'rogue-dhcp.pid');
    inNs(rogue.ns, [
      'dnsmasq', '--no-resolv', '--port=0', `--interface=${rogue.ifname}`, '--bind-interfaces',
      '--dhcp-range=192.168.11.150,192.168.11.160,2m', `--dhcp-leasefile=${join(work, 'rogue.leases')}`, `--pid-file=${pidFile}`,
    ]);
    try {
      await expect
        .poll(async () => kinds(await findings(), 'dhcpServer'), { timeout: 20_000, interval: 200 })
        .toEqual([{ kind: 'dhcpServer', interface: 'lan', port: '', ip: '192.168.11.250', mac: rogue.mac, otherMac: '' }]);
      // The gateway never requested the offer: the rogue server handed out no lease.
      expect(readFileSync(join(work, 'rogue.leases'), 'utf8')).toBe('');
    } finally {
      run(['kill', readFileSync(pidFile, 'utf8').trim()], { allowFail: true });
    }
  });

  test('a PPPoE server where none should be: the concentrator MAC', async () => {
    const rogue = lab.clients[1]!;
    const pidFile = join(work, 'rogue-pppoe.pid');
    // pppoe-server answers discovery itself and forks into the background; its pid file stops it.
    inNs(rogue.ns, ['pppoe-server', '-I', rogue.ifname, '-C', '<rogue-ac>', '-X', pidFile]);
    try {
      await expect
        .poll(async () => kinds(await findings(), 'pppoeServer'), { timeout: 20_000, interval: 200 })
        .toEqual([{ kind: 'pppoeServer', interface: 'lan', port: '', ip: '', mac: rogue.mac, otherMac: '' }]);
    } finally {
      run(['kill', readFileSync(pidFile, 'utf8').trim()], { allowFail: true });
    }
  });

  test("a client holding the gateway's address: an IP conflict with the holder's MAC", async () => {
    const holder = lab.clients[2]!;
    inNs(holder.ns, ['ip', 'addr', 'add', `${GATEWAY}/24`, 'dev', holder.ifname]);
    try {
      await expect
        .poll(async () => kinds(await findings(), 'ipConflict'), { timeout: 20_000, interval: 200 })
        .toEqual([{ kind: 'ipConflict', interface: 'lan', port: '', ip: GATEWAY, mac: holder.mac, otherMac: '' }]);
    } finally {
      inNs(holder.ns, ['ip', 'addr', 'del', `${GATEWAY}/24`, 'dev', holder.ifname]);
    }
    await expect.poll(async () => kinds(await findings(), 'ipConflict'), { timeout: 20_000, interval: 200 }).toEqual([]);
  });

  test('two clients holding one address: a conflict naming the address and both MACs, gone when one lets it go', async () => {
    const [first, second] = [lab.clients[0]!, lab.clients[1]!];
    const SHARED = '192.168.11.77';
    for (const c of [first, second]) inNs(c.ns, ['ip', 'addr', 'add', `${SHARED}/24`, 'dev', c.ifname]);
    try {
      // The clients talk to the gateway, as clients do: its neighbour table learns the address (one MAC of the two).
      const talk = () => {
        for (const c of [first, second]) inNs(c.ns, ['ping', '-c', '1', '-W', '1', '-I', SHARED, GATEWAY], { allowFail: true });
      };
      talk();
      await expect.poll(async () => (await neighbourAddresses(runCommand, 'br-lan', prefix)).includes(SHARED), { timeout: 10_000, interval: 100 }).toBe(true);
      const macs = [first.mac, second.mac].sort();
      await expect
        .poll(async () => kinds(await findings(), 'ipConflict'), { timeout: 20_000, interval: 200 })
        .toEqual([{ kind: 'ipConflict', interface: 'lan', port: '', ip: SHARED, mac: macs[0], otherMac: macs[1] }]);
    } finally {
      inNs(second.ns, ['ip', 'addr', 'del', `${SHARED}/24`, 'dev', second.ifname]);
    }
    // One holder left: the address answers from one MAC only.
    await expect.poll(async () => kinds(await findings(), 'ipConflict'), { timeout: 20_000, interval: 200 }).toEqual([]);
    inNs(first.ns, ['ip', 'addr', 'del', `${SHARED}/24`, 'dev', first.ifname]);
  });

  test('a client namespace bridging two of its links back: a loop, named by the port the probe came back on', async () => {
    const ns = `${lab.prefix}-cl3`;
    // Two more links from the last client namespace into br-lan, bridged together there.
    for (const [inside, port] of [['loopa', 'lanpla'], ['loopb', 'lanplb']] as const) {
      inNs(ns, ['ip', 'link', 'add', inside, 'type', 'veth', 'peer', 'name', port]);
      inNs(ns, ['ip', 'link', 'set', port, 'netns', lab.gw]);
      inNs(lab.gw, ['ip', 'link', 'set', port, 'master', 'br-lan']);
      inNs(lab.gw, ['ip', 'link', 'set', port, 'up']);
    }
    inNs(ns, ['ip', 'link', 'add', 'loopbr', 'type', 'bridge', 'stp_state', '0']);
    for (const inside of ['loopa', 'loopb']) {
      inNs(ns, ['ip', 'link', 'set', inside, 'master', 'loopbr']);
      inNs(ns, ['ip', 'link', 'set', inside, 'up']);
    }
    try {
      inNs(ns, ['ip', 'link', 'set', 'loopbr', 'up']);
      // The loop is closed once all four bridge ports forward.
      const forwarding = (where: string, names: string[]) => {
        const out = inNs(where, ['bridge', 'link', 'show']).stdout;
        return names.every((name) => new RegExp(`^\\d+: ${name}(@\\S+)?: <[^>]*LOWER_UP[^>]*>.* state forwarding`, 'm').test(out));
      };
      await expect.poll(() => forwarding(ns, ['loopa', 'loopb']) && forwarding(lab.gw, ['lanpla', 'lanplb']), { timeout: 10_000, interval: 50 }).toBe(true);
      // A storm is served by ksoftirqd: with both cores busy a probe may come round only in a later round.
      let found: Detection[] = [];
      await expect
        .poll(async () => (found = await findings()).some((d) => d.kind === 'loop'), { timeout: 20_000, interval: 50 })
        .toBe(true);
      // On a loop only the loop is reported: the other probes are broadcasts that would circle it too.
      expect(found.every((d) => d.kind === 'loop' && /^lanpl[ab]$/.test(d.port))).toBe(true);
      // The next round only listens for the probe still circling, and still finds the loop.
      expect(loops.size).toBe(1);
      expect(kinds(await findings(), 'loop').length).toBeGreaterThan(0);
    } finally {
      // The loop goes first, before anything else can circle it.
      inNs(ns, ['ip', 'link', 'del', 'loopbr']);
    }
    expect(await findings()).toEqual([]);
    expect(loops.size).toBe(0);
  });
});
