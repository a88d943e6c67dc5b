import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { networkConfigOf, networkDomain } from '../src/domains/network/network-domain.js';
import { planNetwork } from '../src/domains/network/network-plan.js';
import { checkTcScript } from '../src/domains/qos/qos-formats.js';
import { QOS_FILES, qosConfigOf } from '../src/domains/qos/qos-config.js';
import { qosDomain, qosRulesetContributor } from '../src/domains/qos/qos-domain.js';
import { kernelIngressMark, qosDownloadShaping } from '../src/domains/qos/qos-kernel.js';
import { CONNECTION_QOS_MASK, downloadCode, planQos, slotClass } from '../src/domains/qos/qos-plan.js';
import { QOS_INGRESS_SECTION } from '../src/domains/qos/qos-ingress-object.js';
import { ingressRedirectLines, qosScriptDirectives } from '../src/domains/qos/qos-tc.js';
import { renderClientLimitRemoval, renderClientLimits } from '../src/domains/qos/qos-client-limits.js';
import { shapedDevices } from '../src/domains/qos/qos-flow.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import { checkRendered } from './network-checker-run.js';
import { chainBody, renderedContent } from './network-fixture.js';
import { recreatingSets, staleDeclaredSets } from '../src/config/nft-runtime-sets.js';
import { runCommand, type CommandRunner } from '../src/engine/command-runner.js';
import { createLinuxActivator } from '../src/config/apply-linux.js';
import { ActivationError } from '../src/engine/engine-types.js';
import { qosLinuxActivation } from '../src/domains/qos/qos-activation.js';
import { FULL_QOS, manyIpRules, qosSnapshot } from './qos-fixture.js';

/**
 * Download shaping on IFB devices (qos-plan.ts `ifb`, `ifb-bpf`). The lab proves the whole path
 * with real traffic, copying the code with whichever of tc `ctinfo` and the eBPF classifier
 * the kernel offers (tests/lab/qos-ifb-download.test.ts). Here: the rendering, the
 * classic-BPF programs run by an interpreter and by this kernel, and the probe.
 */
const work = mkdtempSync(join(tmpdir(), 'portico-qos-ifb-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;

const network = networkDomain({ port: 8080, systemRoot: '/', driver: 'linux' }, [qosRulesetContributor('ifb')]);
const qos = qosDomain({ driver: 'linux' }, 'ifb');

const fileOf = (snapshot: ConfigSnapshot, target: string, domain = network) => renderedContent(domain, snapshot, target);

/** The classic-BPF instructions the programs use, run as the kernel would (the mark is the only input). */
function runBpf(program: ReadonlyArray<readonly [number, number, number, number]>, mark: number): number {
  let a = 0;
  let x = 0;
  const mem = new Array<number>(16).fill(0);
  for (let pc = 0; pc < program.length; pc++) {
    const [code, jt, jf, k] = program[pc]!;
    switch (code) {
      case 0x20: // ld [SKF_AD_OFF + SKF_AD_MARK]
        expect(k).toBe(4294963220);
        a = mark >>> 0;
        break;
      case 0x04: a = (a + k) >>> 0; break;
      case 0x0c: a = (a + x) >>> 0; break;
      case 0x14: a = (a - k) >>> 0; break;
      case 0x54: a = (a & k) >>> 0; break;
      case 0x64: a = (a << k) >>> 0; break;
      case 0x74: a = a >>> k; break;
      case 0x07: x = a; break;
      case 0x87: a = x; break;
      case 0x02: mem[k] = a; break;
      case 0x60: a = mem[k]!; break;
      case 0x15: pc += a === k ? jt : jf; break;
      case 0x25: pc += a > k ? jt : jf; break;
      case 0x35: pc += a >= k ? jt : jf; break;
      case 0x16: return a;
      case 0x06: return k;
      default: throw new Error(`opcode ${code} not modelled`);
    }
  }
  throw new Error('program ran off its end');
}

/** The bpf programs of a device's tc lines: the root qdisc's and the buckets' (the same for all). */
function programsOf(script: string, dev: string): { root: Array<[number, number, number, number]>; bucket: Array<[number, number, number, number]> } {
  const parse = (line: string) =>
    /bytecode "\d+,([^"]+)"/
      .exec(line)![1]!
      .split(',')
      .map((ins) => ins.split(' ').map(Number) as [number, number, number, number]);
  const lines = script.split('\n').filter((l) => l.startsWith(`filter add dev ${dev} `) && l.includes(' bpf bytecode '));
  const root = lines.find((l) => l.includes(' parent 1: '))!;
  const bucket = lines.find((l) => !l.includes(' parent 1: '))!;
  return { root: parse(root), bucket: parse(bucket) };
}

describe('IFB download shaping: ruleset', () => {
  const snapshot = qosSnapshot(FULL_QOS);
  const ruleset = fileOf(snapshot, NETWORK_FILES.nftables);

  it('passes nft -c inside the network ruleset', async () => {
    const result = await checkRendered({ target: NETWORK_FILES.nftables, content: ruleset, check: 'nft' }, work);
    if (result.skipped) console.info(result.skipped);
    else expect(result.problems).toEqual([]);
  });

  it('writes the download code to the connection mark on the way out, keeping the WAN bits, and reads nothing on the way in', () => {
    const upload = chainBody(ruleset, 'qos_upload');
    const lines = upload.split('\n').map((l) => l.trim());
    const at = (text: string) => lines.findIndex((l) => l.startsWith(text));
    // Class code first, then users, then hotspot clients, then the WAN bits, then the store.
    expect(at('meta mark set meta priority map { 1:10 : 0x00100000, 1:20 : 0x00200000, 1:30 : 0x00300000, 1:40 : 0x00400000 }')).toBe(3);
    expect(at('meta mark set ip saddr map @qos_down_0_in')).toBeGreaterThan(2);
    expect(at('meta mark set ip saddr map @qos_client_down_code')).toBeGreaterThan(at('meta mark set ip saddr map @qos_down_0_in'));
    expect(at('ct mark & 0x0000ff00 == 0x00000100 meta mark set meta mark | 0x00000100')).toBeGreaterThan(at('meta mark set ip saddr map @qos_client_down_code'));
    expect(at('ct mark set meta mark')).toBeGreaterThan(at('ct mark & 0x0000ff00 == 0x00000200'));
    expect(at('meta mark set 0x00000000')).toBe(at('ct mark set meta mark') + 1);
    // The upload classes come after, and still pick the user's class by the packet mark.
    expect(at('meta mark set ip saddr map @qos_up_0_in meta priority set none')).toBeGreaterThan(at('meta mark set 0x00000000'));
    expect(ruleset).not.toContain('chain qos_download');
    expect(ruleset).not.toContain('chain qos_mac_mark');
    expect(chainBody(ruleset, 'qos_classify')).not.toContain('jump qos_download');
  });

  it('maps a limited user to the code of its slot, by address and by MAC', () => {
    const config = qosConfigOf(snapshot);
    const plan = planQos(config, planNetwork(networkConfigOf(snapshot)), 'ifb');
    const desk = plan.users.find((u) => u.key === '192.168.11.20')!;
    expect(ruleset).toMatch(new RegExp(`map qos_down_0_in \\{ type ipv4_addr : mark; elements = \\{ 192\\.168\\.11\\.20 : 0x${downloadCode({ slot: desk.insideSlot! }).toString(16).padStart(8, '0')}`));
    const macUser = plan.users.find((u) => u.kind === 'mac')!;
    expect(ruleset).toContain(`${macUser.key} : 0x${downloadCode({ slot: (macUser.insideSlot ?? macUser.outsideSlot)! }).toString(16).padStart(8, '0')}`);
    expect(ruleset).toMatch(/meta mark set ether saddr map @qos_macdown_\d+_in\n/);
  });
});

describe.skipIf(!isRoot)('a change of download side without a reboot', () => {
  it('replaces the maps whose key changed in the same transaction as the rest', async () => {
    const ns = `qosside${process.pid}`;
    await execa('ip', ['netns', 'add', ns]);
    try {
      const run = (argv: readonly string[]) => runCommand(['ip', 'netns', 'exec', ns, ...argv]);
      const lan = networkDomain({ port: 8080, systemRoot: '/', driver: 'linux' }, [qosRulesetContributor('lan')]);
      await execa('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], { input: fileOf(qosSnapshot(FULL_QOS), NETWORK_FILES.nftables, lan) });
      const ifbRuleset = fileOf(qosSnapshot(FULL_QOS), NETWORK_FILES.nftables);
      expect((await execa('ip', ['netns', 'exec', ns, 'nft', '-c', '-f', '-'], { input: ifbRuleset, reject: false })).exitCode).not.toBe(0);
      const stale = await staleDeclaredSets(ifbRuleset, run);
      expect(stale.map((s) => s.name)).toEqual(['qos_macdown_2_in']);
      await execa('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], { input: recreatingSets(ifbRuleset, stale) });
      expect((await execa('ip', ['netns', 'exec', ns, 'nft', 'list', 'chain', 'inet', 'portico', 'qos_upload'])).stdout).toContain('ct mark set meta mark');
    } finally {
      await execa('ip', ['netns', 'del', ns], { reject: false });
    }
  });
});

describe('IFB download shaping: traffic control', () => {
  const script = fileOf(qosSnapshot(FULL_QOS), QOS_FILES.tc, qos);

  it('builds a tree per WAN on its IFB device at that WAN’s download rate, then redirects the WAN’s ingress to it', () => {
    const directives = qosScriptDirectives(script);
    expect(directives.ifb).toEqual(['qifb1', 'qifb2']);
    expect(directives.reset).toEqual(['wan1', 'wan2', 'qifb1', 'qifb2', 'br-lan']);
    expect(shapedDevices(script)).toEqual({ up: ['wan1', 'wan2'], down: ['qifb1', 'qifb2'] });
    expect(script).toContain('qdisc add dev qifb1 root handle 1: htb default 30 r2q 10');
    expect(script).toContain('filter add dev wan1 parent ffff: protocol all prio 1 u32 match u32 0 0 action ctinfo cpmark 0xffff0000 action mirred egress redirect dev qifb1');
    expect(script.indexOf('qdisc add dev wan2 handle ffff: ingress')).toBeGreaterThan(script.lastIndexOf('dev qifb2 parent'));
    expect(script).not.toContain('dev br-lan parent');
    expect(checkTcScript(script)).toBeNull();
  });

  it('with ifb-bpf, redirects through the eBPF classifier the build made instead of ctinfo', () => {
    const object = '/usr/lib/portico/qos-ingress-mark.o';
    const lines = ingressRedirectLines('wan1', 'qifb1', 'ifb-bpf', () => object);
    expect(lines).toEqual([
      'qdisc add dev wan1 handle ffff: ingress',
      `filter add dev wan1 parent ffff: protocol all prio 1 bpf obj ${object} sec classifier action mirred egress redirect dev qifb1`,
    ]);
    expect(checkTcScript(`# reset wan1\n${lines.join('\n')}\n`)).toBeNull();
    expect(() => ingressRedirectLines('wan1', 'qifb1', 'ifb-bpf', () => null)).toThrow(/not built/);
    for (const bad of ['/opt/my portico/q.o', '/opt/q.o\nqdisc del dev wan1 root', 'relative/q.o']) {
      expect(() => ingressRedirectLines('wan1', 'qifb1', 'ifb-bpf', () => bad)).toThrow(/cannot go into a tc script/);
    }
  });

  it('has the classifier copy exactly the connection mark’s Smart QoS bits', () => {
    const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'domains', 'qos', 'qos-ingress-mark.bpf.c'), 'utf8');
    expect(Number(/#define CONNECTION_QOS_MASK (0x[0-9a-f]+)u/.exec(source)?.[1])).toBe(CONNECTION_QOS_MASK);
    expect(source).toContain(`SEC("${QOS_INGRESS_SECTION}")`);
  });

  it('classifies every code to the class it names: none, priority classes, each user slot, hotspot clients', () => {
    const { root, bucket } = programsOf(script, 'qifb1');
    expect(runBpf(root, 0)).toBe(0);
    // Bits 0-15 of the mark are not the code's: whatever they hold, the class is the same.
    expect(runBpf(root, 0x00100000)).toBe(0x10010);
    expect(runBpf(root, 0x004000ff)).toBe(0x10040);
    expect(runBpf(root, downloadCode({ minor: 0x8000 }))).toBe(0x18000);
    expect(runBpf(root, downloadCode({ minor: 0xfffe }))).toBe(0x1fffe);
    for (const slot of [0, 1, 63, 64, 65, 4999, 0x7eff]) {
      const place = slotClass(slot);
      expect(runBpf(root, downloadCode({ slot })), `slot ${slot} bucket`).toBe(0x10000 + 0x1000 + place.bucket);
      expect(runBpf(bucket, downloadCode({ slot })), `slot ${slot} class`).toBe(place.mark);
    }
  });

  it('gives every user its classes under every WAN’s IFB device', () => {
    const many = fileOf(qosSnapshot({ qosBase: FULL_QOS.qosBase!, qosIpRule: manyIpRules(130) }), QOS_FILES.tc, qos);
    for (const dev of ['qifb1', 'qifb2']) {
      expect(many).toContain(`class add dev ${dev} parent 102: classid 102:11 htb`);
      expect(many).toContain(`qdisc add dev ${dev} parent 1:1002 handle 102: htb r2q 10`);
    }
  });

  it.skipIf(!isRoot)('classifies real packets by the code in their mark on this kernel', async () => {
    // The ingress copy is left out (this kernel may lack ctinfo): the packets are marked by
    // nftables where they are sent, and their device's egress is redirected to the IFB device.
    const ns = `qosifb${process.pid}`;
    const inNs = (argv: string[], input?: string) => execa('ip', ['netns', 'exec', ns, ...argv], input === undefined ? {} : { input });
    await execa('ip', ['netns', 'add', ns]);
    try {
      const slot = 70;
      const small = fileOf(qosSnapshot({ qosBase: FULL_QOS.qosBase!, qosIpRule: manyIpRules(80) }), QOS_FILES.tc, qos);
      const tree = small.split('\n').filter((l) => /^(qdisc|class|filter) add dev qifb1 /.test(l));
      await inNs(['ip', 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'up1']);
      await inNs(['ip', 'link', 'add', 'qifb1', 'type', 'ifb']);
      for (const dev of ['up0', 'up1', 'qifb1', 'lo']) await inNs(['ip', 'link', 'set', dev, 'up']);
      await inNs(['ip', 'addr', 'add', '10.9.0.1/24', 'dev', 'up0']);
      await inNs(['ip', 'neigh', 'add', '10.9.0.2', 'lladdr', '02:00:00:00:00:02', 'dev', 'up0']);
      const path = join(work, 'ifb.tc');
      writeFileSync(path, `${tree.join('\n')}\nqdisc add dev up0 clsact\nfilter add dev up0 egress protocol all prio 1 u32 match u32 0 0 action mirred egress redirect dev qifb1\n`);
      await inNs(['tc', '-batch', path]);
      const marks = { priority: downloadCode({ minor: 0x10 }), user: downloadCode({ slot }) };
      await inNs(['nft', '-f', '-'], `table ip t {\nchain out {\ntype route hook output priority mangle; policy accept;\nudp dport 9001 meta mark set ${marks.priority}\nudp dport 9002 meta mark set ${marks.user}\n}\n}\n`);
      await inNs(['bash', '-c', 'for i in $(seq 20); do for p in 9001 9002 9003; do echo x > /dev/udp/10.9.0.2/$p; done; done']);
      const stats = (await inNs(['tc', '-s', 'class', 'show', 'dev', 'qifb1'])).stdout;
      const sent = (id: string) => Number(new RegExp(`class htb ${id} [^]*?Sent (\\d+) bytes (\\d+) pkt`).exec(stats)?.[2] ?? -1);
      const place = slotClass(slot);
      expect(sent('1:10')).toBeGreaterThanOrEqual(20);
      expect(sent(`${place.major.toString(16)}:${place.minor.toString(16)}`)).toBe(20);
      expect(sent('1:30')).toBeGreaterThanOrEqual(20);
    } finally {
      await execa('ip', ['netns', 'del', ns], { reject: false });
    }
  });
});

describe('IFB download shaping: the linux driver', () => {
  const script = fileOf(qosSnapshot(FULL_QOS), QOS_FILES.tc, qos);
  const recorder = (failing?: string) => {
    const calls: string[] = [];
    const run: CommandRunner = async (argv) => {
      calls.push(argv.join(' '));
      const failed = failing !== undefined && argv.join(' ') === failing;
      return { exitCode: failed ? 1 : 0, stdout: '', stderr: failed ? 'Cannot find device' : '' };
    };
    return { calls, run };
  };

  it('clears both qdiscs of every owned device, makes and raises the IFB devices, then loads the script', async () => {
    const { calls, run } = recorder();
    await createLinuxActivator({ root: work, activations: [qosLinuxActivation({ root: work, run })] }).activate([{ target: QOS_FILES.tc, content: script, check: 'tc' }]);
    expect(calls.slice(0, 4)).toEqual(['tc qdisc del dev wan1 root', 'tc qdisc del dev wan1 ingress', 'tc qdisc del dev wan2 root', 'tc qdisc del dev wan2 ingress']);
    expect(calls).toContain('tc qdisc del dev br-lan ingress');
    const made = calls.indexOf('ip link add name qifb1 type ifb');
    expect(made).toBeGreaterThan(calls.indexOf('tc qdisc del dev br-lan root'));
    expect(calls[made + 1]).toBe('ip link set dev qifb1 up');
    expect(calls.at(-1)).toBe(`tc -batch ${join(work, QOS_FILES.tc)}`);
  });

  it('stops before the script when an IFB device cannot be raised', async () => {
    const { calls, run } = recorder('ip link set dev qifb2 up');
    await expect(createLinuxActivator({ root: work, activations: [qosLinuxActivation({ root: work, run })] }).activate([{ target: QOS_FILES.tc, content: script, check: 'tc' }])).rejects.toBeInstanceOf(ActivationError);
    expect(calls.some((c) => c.startsWith('tc -batch'))).toBe(false);
  });
});

describe('IFB download shaping: hotspot clients', () => {
  const snapshot = qosSnapshot(FULL_QOS);
  const plan = planNetwork(networkConfigOf(snapshot));
  const limits = [{ ip: '192.168.11.120', upKbit: 1000, downKbit: 4000 }];

  it('puts a client’s download class under every IFB device and its code in the run-time map', () => {
    const commands = renderClientLimits(plan, limits, { download: 'ifb' });
    expect(commands.tc).toContain('class replace dev qifb1 parent 1:1 classid 1:8000 htb rate 4000kbit');
    expect(commands.tc).toContain('class replace dev qifb2 parent 1:1 classid 1:8000 htb rate 4000kbit');
    expect(commands.tc).not.toContain('br-lan');
    expect(commands.nft).toContain('add element inet portico qos_client_down_code { 192.168.11.120 : 0x80000000 }');
    expect(renderClientLimitRemoval(plan, limits, 'ifb')).toContain('delete element inet portico qos_client_down_code { 192.168.11.120 }');
  });
});

describe('where download is shaped', () => {
  it('asks the kernel for ifb and ctinfo, loaded, built in or installed as modules', () => {
    const root = join(work, 'kernel');
    const sys = join(root, 'sys');
    const modules = join(root, 'modules');
    const kallsyms = join(root, 'kallsyms');
    mkdirSync(sys, { recursive: true });
    mkdirSync(modules, { recursive: true });
    writeFileSync(kallsyms, 'ffffffff81000000 T _stext\n');
    const paths = { sysModule: sys, modules, kallsyms, btf: join(root, 'no-btf') };
    expect(kernelIngressMark(paths)).toBe(null);
    writeFileSync(join(modules, 'modules.dep'), 'kernel/drivers/net/ifb.ko.xz:\nkernel/net/sched/act_ctinfo.ko.xz: kernel/net/netfilter/nf_conntrack.ko.xz\n');
    expect(kernelIngressMark(paths)).toBe('ctinfo');
    writeFileSync(join(modules, 'modules.dep'), 'kernel/drivers/net/ifb.ko.xz:\nkernel/net/sched/act_ctinfox.ko.xz:\n');
    expect(kernelIngressMark(paths)).toBe(null);
    mkdirSync(join(sys, 'act_ctinfo'));
    expect(kernelIngressMark(paths)).toBe('ctinfo');
  });

  it('finds built-in parts by their functions in kallsyms, and takes the eBPF classifier where ctinfo is missing', () => {
    const root = join(work, 'kernel-builtin');
    mkdirSync(join(root, 'sys'), { recursive: true });
    const kallsyms = join(root, 'kallsyms');
    const btf = join(root, 'vmlinux');
    writeFileSync(btf, '');
    // Long enough that the names fall across the scanner's 64 kB chunks.
    const filler = Array.from({ length: 6000 }, (_, i) => `ffffffff8100${String(i).padStart(4, '0')} t filler_function_${i}`).join('\n');
    const symbols = (...names: string[]) => writeFileSync(kallsyms, `${filler}\n${names.map((n, i) => `ffffffff81f4${i}000 T ${n}`).join('\n')}\n`);
    const paths = { sysModule: join(root, 'sys'), modules: join(root, 'none'), kallsyms, btf };
    const built = () => '/usr/lib/portico/qos-ingress-mark.o';
    symbols('ifb_xmit', 'cls_bpf_classify', 'bpf_skb_ct_lookup', 'bpf_ct_release');
    expect(kernelIngressMark(paths, built)).toBe('bpf');
    expect(kernelIngressMark(paths, () => null)).toBe(null);
    expect(kernelIngressMark({ ...paths, btf: join(root, 'no-btf') }, built)).toBe(null);
    symbols('ifb_xmit', 'cls_bpf_classify', 'bpf_skb_ct_lookup');
    expect(kernelIngressMark(paths, built)).toBe(null);
    symbols('ifb_xmit', 'tcf_ctinfo_act');
    expect(kernelIngressMark(paths, built)).toBe('ctinfo');
    // A module's symbol line ends in its module's name.
    writeFileSync(kallsyms, `${filler}\nffffffffc0000000 t ifb_xmit\t[ifb]\nffffffffc0001000 t tcf_ctinfo_act\t[act_ctinfo]\n`);
    expect(kernelIngressMark(paths, built)).toBe('ctinfo');
    symbols('ifb_xmit_more', 'tcf_ctinfo_act');
    expect(kernelIngressMark(paths, built)).toBe(null);
  });

  it('takes the setting as it is, and resolves auto on the linux driver only', () => {
    expect(qosDownloadShaping('lan', 'linux', () => 'ctinfo')).toBe('lan');
    expect(qosDownloadShaping('ifb', 'sim', () => null)).toBe('ifb');
    expect(qosDownloadShaping('ifb-bpf', 'linux', () => 'ctinfo')).toBe('ifb-bpf');
    expect(qosDownloadShaping('auto', 'linux', () => 'ctinfo')).toBe('ifb');
    expect(qosDownloadShaping('auto', 'linux', () => 'bpf')).toBe('ifb-bpf');
    expect(qosDownloadShaping(undefined, 'linux', () => null)).toBe('lan');
    expect(qosDownloadShaping('auto', 'openwrt', () => 'ctinfo')).toBe('lan');
  });

  it('keeps OpenWrt on the LAN side', () => {
    const script = fileOf(qosSnapshot(FULL_QOS), QOS_FILES.tc, qosDomain({ driver: 'openwrt' }, 'ifb'));
    expect(qosScriptDirectives(script).ifb).toEqual([]);
    expect(shapedDevices(script).down).toEqual(['br-lan']);
    const config = qosConfigOf(qosSnapshot(FULL_QOS));
    expect(planQos(config, planNetwork(networkConfigOf(qosSnapshot(FULL_QOS))), 'ifb').devices.map((d) => d.device)).toEqual(['wan1', 'wan2', 'qifb1', 'qifb2']);
  });
});
