import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { networkConfigOf, networkDomain } from '../src/domains/network/network-domain.js';
import { planNetwork } from '../src/domains/network/network-plan.js';
import { checkTcScript } from '../src/domains/qos/qos-formats.js';
import { QOS_FILES, qosConfigOf } from '../src/domains/qos/qos-config.js';
import { qosDomain, qosRulesetContributor } from '../src/domains/qos/qos-domain.js';
import { planQos, QosBudgetError } from '../src/domains/qos/qos-plan.js';
import { renderClientLimitRemoval, renderClientLimits } from '../src/domains/qos/qos-client-limits.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import { checkRendered } from './network-checker-run.js';
import { chainBody, renderedContent } from './network-fixture.js';
import { FULL_QOS, manyIpRules, qosSnapshot, rowOf, TWO_WANS } from './qos-fixture.js';

const work = mkdtempSync(join(tmpdir(), 'portico-qos-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const network = networkDomain({ port: 8080, systemRoot: '/', driver: 'linux' }, [qosRulesetContributor()]);
const openwrt = networkDomain({ port: 8080, systemRoot: '/', driver: 'openwrt' }, [qosRulesetContributor()]);
const qos = qosDomain({ driver: 'linux' });
const isRoot = process.getuid?.() === 0;

const fileOf = (snapshot: ConfigSnapshot, target: string, domain = network) => renderedContent(domain, snapshot, target);

/** Golden files: written when missing or when UPDATE_GOLDEN is set, compared otherwise. */
function golden(name: string, content: string): void {
  const path = join(import.meta.dirname, 'golden/qos', name);
  if (!existsSync(path) || process.env.UPDATE_GOLDEN) writeFileSync(path, content);
  expect(content).toBe(readFileSync(path, 'utf8'));
}

/** Runs a tc script the way the linux driver does, in a throwaway namespace with its devices. */
async function runTcInNamespace(script: string, extra: (ns: string) => Promise<void> = async () => {}): Promise<string> {
  const ns = `qostest${process.pid}`;
  const inNs = (argv: string[]) => execa('ip', ['netns', 'exec', ns, ...argv]);
  await execa('ip', ['netns', 'add', ns]);
  try {
    const devices = [...script.matchAll(/^# reset (\S+)$/gm)].map((m) => m[1]!);
    for (const [i, dev] of devices.entries()) {
      await execa('ip', ['-n', ns, 'link', 'add', dev, 'type', 'veth', 'peer', 'name', `peer${i}`]);
      await execa('ip', ['-n', ns, 'link', 'set', dev, 'up']);
    }
    const path = join(work, `${ns}.tc`);
    writeFileSync(path, script);
    // Twice, as on every apply: the reset makes the script repeatable.
    for (let round = 0; round < 2; round++) {
      for (const dev of devices) await execa('ip', ['netns', 'exec', ns, 'tc', 'qdisc', 'del', 'dev', dev, 'root'], { reject: false });
      await inNs(['tc', '-batch', path]);
    }
    await extra(ns);
    const classes = await Promise.all(devices.map((dev) => inNs(['tc', 'class', 'show', 'dev', dev])));
    return classes.map((c) => c.stdout).join('\n');
  } finally {
    await execa('ip', ['netns', 'del', ns], { reject: false });
  }
}

describe('Smart QoS ruleset part', () => {
  const snapshot = qosSnapshot(FULL_QOS);
  const ruleset = fileOf(snapshot, NETWORK_FILES.nftables);

  it('passes nft -c inside the network ruleset and matches its golden file', async () => {
    const result = await checkRendered({ target: NETWORK_FILES.nftables, content: ruleset, check: 'nft' }, work);
    if (result.skipped) console.info(result.skipped);
    else expect(result.problems).toEqual([]);
    golden('network.nft', ruleset);
  });

  it('classifies by port, domain set and the smart defaults, first match winning', () => {
    const up = chainBody(ruleset, 'qos_up_class');
    expect(up).toContain('meta l4proto udp th dport { 27015, 3478-3480 } meta priority set 1:10 return');
    expect(up).toContain('meta l4proto { tcp, udp } th dport { 873 } meta priority set 1:40 return');
    expect(up).toContain('ip daddr @qos_dom_bulk meta priority set 1:40 return');
    expect(up.indexOf('27015')).toBeLessThan(up.indexOf('th dport { 53, 123 }'));
    expect(chainBody(ruleset, 'qos_down_class')).toContain('meta l4proto udp th sport { 27015, 3478-3480 } meta priority set 1:10 return');
  });

  it('limits users through maps selected by time window, not one rule per user', () => {
    const upload = chainBody(ruleset, 'qos_upload');
    expect(upload).toContain('meta mark set ip saddr map @qos_up_0_in meta priority set none');
    // The office-hours window: inside, and the two halves of outside.
    expect(upload).toContain('meta day { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday" } meta hour "08:00"-"18:00" meta mark set ip saddr map @qos_up_1_in meta priority set none');
    expect(upload).toContain('meta day != { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday" } meta mark set ip saddr map @qos_up_1_out meta priority set none');
    expect(upload).toContain('meta day { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday" } meta hour != "08:00"-"18:00" meta mark set ip saddr map @qos_up_1_out meta priority set none');
    // The overnight MAC window, and its download found through the connection mark.
    expect(upload).toContain('meta hour "22:00"-"06:00" meta mark set ether saddr map @qos_macup_2_in meta priority set none');
    expect(chainBody(ruleset, 'qos_download')).toContain('meta hour "22:00"-"06:00" meta mark set ct mark & 0xffff0000 map @qos_macdown_2_in meta priority set none');
    expect(chainBody(ruleset, 'qos_mac_mark')).toContain('ct state new ct mark set ether saddr map @qos_mac_user');
    // A /30 gives its two hosts a class each; the range only limits downloads.
    expect(ruleset).toMatch(/192\.168\.11\.33 : 0x0[12][0-9a-f]{6}, 192\.168\.11\.34 : 0x0[12][0-9a-f]{6}/);
    expect(ruleset).not.toMatch(/map qos_up_0_in \{[^}]*192\.168\.11\.50/);
    expect(ruleset).toMatch(/map qos_down_0_in \{[^}]*192\.168\.11\.50/);
  });

  it('routes by port, domain, ISP network and weight with the network plan WAN marks', () => {
    const route = chainBody(ruleset, 'qos_route');
    expect(route).toContain('meta l4proto tcp th dport { 2222 } ct mark set ct mark | 0x00000200 meta mark set meta mark | 0x00000200 return');
    expect(route).toContain('ip daddr @qos_route_1 ct mark set ct mark | 0x00000100');
    expect(route).toContain('ip daddr @qos_isp_telecom ct mark set ct mark | 0x00000100');
    expect(route).toContain('meta mark set numgen random mod 4');
    expect(route).toContain('meta mark 0-2 ct mark set ct mark | 0x00000100');
    expect(ruleset).toContain('set qos_isp_telecom { type ipv4_addr; flags interval; auto-merge; elements = { 100.64.0.0/16, 192.0.2.0/24 } }');
  });

  it('classifies a whole protocol when a port rule names no ports', () => {
    const text = fileOf(qosSnapshot({ ...FULL_QOS, qosPortRule: [rowOf('qosPortRule', 'all', { name: 'udp', proto: 'udp', target: 'express' })] }), NETWORK_FILES.nftables);
    expect(chainBody(text, 'qos_up_class')).toContain('\t\tmeta l4proto udp meta priority set 1:20 return');
  });

  it('blocks P2P handshakes on forwarded traffic', () => {
    expect(chainBody(ruleset, 'qos_p2p_block')).toContain('meta l4proto tcp @ih,0,64 0x13426974546f7272 @ih,64,64 0x656e742070726f74 drop');
  });

  it('feeds domain sets from DNS answers through dnsmasq nftset lines', async () => {
    const conf = fileOf(snapshot, NETWORK_FILES.dnsmasq);
    expect(conf).toContain('nftset=/video.example.com/cdn.example.net/4#inet#portico#qos_dom_bulk,4#inet#portico#qos_route_1');
    expect(conf).toContain('nftset=/meet.example.org/4#inet#portico#qos_dom_priority');
    const result = await checkRendered({ target: NETWORK_FILES.dnsmasq, content: conf, check: 'dnsmasq' }, work);
    if (!result.skipped) expect(result.problems).toEqual([]);
  });

  it('keeps the rule count of the classify chains constant from 10 to 5,000 users', () => {
    const chainsWith = (count: number) => {
      const text = fileOf(qosSnapshot({ qosBase: FULL_QOS.qosBase!, qosIpRule: manyIpRules(count) }), NETWORK_FILES.nftables);
      return ['qos_upload', 'qos_download', 'qos_classify'].map((name) => chainBody(text, name).split('\n').length);
    };
    expect(chainsWith(5000)).toEqual(chainsWith(10));
  });

  it('adds nothing for classification while QoS is off, but keeps policy routes', () => {
    const off = fileOf(qosSnapshot({ ...FULL_QOS, qosBase: [rowOf('qosBase', '', { qos: false, balance: false })] }), NETWORK_FILES.nftables);
    expect(off).not.toContain('chain qos_classify');
    expect(chainBody(off, 'qos_route')).toContain('th dport { 2222 }');
    expect(off).not.toContain('numgen');
  });
});

describe('Smart QoS traffic control script', () => {
  const snapshot = qosSnapshot(FULL_QOS);
  const script = fileOf(snapshot, QOS_FILES.tc, qos);

  it('matches its golden file and passes the driver’s own check', () => {
    golden('qos.tc', script);
    expect(checkTcScript(script)).toBeNull();
    expect(checkTcScript(`${script}class add dev wan1 parent 1:1; reboot\n`)).not.toBeNull();
  });

  it('builds HTB trees on every WAN (upload) and the LAN (download) with per-user classes', () => {
    expect(script).toContain('qdisc add dev wan1 root handle 1: htb default 30 r2q 10');
    expect(script).toContain('class add dev wan1 parent 1: classid 1:1 htb rate 20000kbit ceil 20000kbit prio 0');
    expect(script).toContain('class add dev wan2 parent 1: classid 1:1 htb rate 10000kbit ceil 10000kbit prio 0');
    expect(script).toContain('qdisc add dev br-lan root handle 1: htb default 0 r2q 10');
    expect(script).toContain('class add dev br-lan parent 1: classid 1:1 htb rate 150000kbit');
    // Users live in buckets: a class of the root tree holding a nested qdisc, picked by the mark.
    expect(script).toContain('filter add dev wan1 parent 1: protocol all prio 1 bpf bytecode "7,');
    expect(script).toMatch(/class add dev wan1 parent 1:1 classid 1:1000 htb rate \d+kbit ceil 20000kbit/);
    expect(script).toContain('qdisc add dev wan1 parent 1:1000 handle 100: htb r2q 10');
    expect(script).toContain('filter add dev wan1 parent 100: protocol all prio 1 bpf bytecode "2,32 0 0 4294963220,22 0 0 0"');
    expect(script).toMatch(/class add dev wan1 parent 100: classid 100:10 htb rate 2000kbit ceil 2000kbit/);
    expect(script).toMatch(/class add dev br-lan parent 100: classid 100:10 htb rate 8000kbit ceil 8000kbit/);
  });

  it.skipIf(!isRoot)('runs with tc -batch in a throwaway namespace, repeatably', async () => {
    const classes = await runTcInNamespace(script);
    expect(classes).toContain('class htb 1:1000 parent 1:1 leaf 100:');
    expect(classes).toContain('class htb 100:10 root');
    expect(classes).toContain('class htb 1:40 parent 1:1 prio 3');
  });

  it('resets the devices only, with nothing to build, when QoS is off', () => {
    const off = fileOf(qosSnapshot({ qosBase: [rowOf('qosBase', '', { qos: false })] }), QOS_FILES.tc, qos);
    expect(off.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([]);
    expect(off).toContain('# reset wan1\n# reset wan2\n# reset br-lan\n');
  });

  it('refuses more bandwidth classes than the class space holds', () => {
    const config = qosConfigOf(qosSnapshot({ qosBase: FULL_QOS.qosBase!, qosIpRule: manyIpRules(0x8000) }));
    expect(() => planQos(config, planNetwork(networkConfigOf(qosSnapshot())))).toThrow(QosBudgetError);
  });
});

describe('Smart QoS on OpenWrt', () => {
  it('renders an fw4 include of its own table that passes nft -c', async () => {
    const file = openwrt.render!(qosSnapshot(FULL_QOS)).flatMap((o) => o.files).find((f) => f.target.endsWith('30-portico-qos.nft'))!;
    expect(file.content).toContain('set wan_ifaces { type ifname; elements = { "wan1", "wan2" } }');
    expect(file.content).toContain('chain qos_p2p_block {');
    golden('openwrt-qos.nft', file.content);
    const result = await checkRendered(file, work);
    if (!result.skipped) expect(result.problems).toEqual([]);
  });
});

describe('per-client limits for the hotspot', () => {
  const snapshot = qosSnapshot(FULL_QOS);
  const plan = planNetwork(networkConfigOf(snapshot));
  const limits = [
    { ip: '192.168.11.120', upKbit: 1000, downKbit: 4000 },
    { ip: '192.168.11.121', upKbit: 0, downKbit: 2000 },
  ];
  const commands = renderClientLimits(plan, limits);

  it('renders classes in the client range and elements of the run-time maps', () => {
    expect(commands.tc).toContain('class replace dev wan1 parent 1:1 classid 1:8000 htb rate 1000kbit ceil 1000kbit');
    expect(commands.tc).toContain('class replace dev br-lan parent 1:1 classid 1:8001 htb rate 2000kbit');
    expect(commands.tc).not.toContain('dev wan1 parent 1:1 classid 1:8001');
    expect(commands.nft).toBe(
      'add element inet portico qos_client_up { 192.168.11.120 : 1:8000 }\nadd element inet portico qos_client_down { 192.168.11.120 : 1:8000, 192.168.11.121 : 1:8001 }\n',
    );
    expect(() => renderClientLimits(plan, [{ ip: '192.168.11.1; flush ruleset', upKbit: 1, downKbit: 1 }])).toThrow();
  });

  it.skipIf(!isRoot)('loads into a live ruleset and tc tree, and comes out again', async () => {
    const ruleset = fileOf(snapshot, NETWORK_FILES.nftables);
    const script = fileOf(snapshot, QOS_FILES.tc, qos);
    const classes = await runTcInNamespace(script, async (ns) => {
      const inNs = (argv: string[], input?: string) => execa('ip', ['netns', 'exec', ns, ...argv], input === undefined ? {} : { input });
      await inNs(['nft', '-f', '-'], ruleset);
      await inNs(['nft', '-f', '-'], commands.nft);
      const tcPath = join(work, 'clients.tc');
      writeFileSync(tcPath, commands.tc);
      await inNs(['tc', '-batch', tcPath]);
      expect((await inNs(['nft', 'list', 'map', 'inet', 'portico', 'qos_client_down'])).stdout).toContain('192.168.11.121 : 1:8001');
      // A reload of the ruleset keeps run-time elements.
      await inNs(['nft', '-f', '-'], ruleset);
      expect((await inNs(['nft', 'list', 'map', 'inet', 'portico', 'qos_client_down'])).stdout).toContain('192.168.11.121 : 1:8001');
      await inNs(['nft', '-f', '-'], renderClientLimitRemoval(plan, limits));
      expect((await inNs(['nft', 'list', 'map', 'inet', 'portico', 'qos_client_down'])).stdout).not.toContain('192.168.11.121');
    });
    expect(classes).toContain('class htb 1:8001 parent 1:1');
  });
});

describe('Smart QoS domain', () => {
  it('renders nothing before any interface exists', () => {
    expect(qos.render!({ qosBase: FULL_QOS.qosBase! })).toEqual([]);
    expect(Object.keys(TWO_WANS)).toEqual(['networkInterface']);
  });
});
