import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { systemRulesetParts } from '../src/domain-list.js';
import type { ConfigSnapshot } from '../src/config/config-types.js';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { networkConfigOf, networkDomain } from '../src/domains/network/network-domain.js';
import { planNetwork } from '../src/domains/network/network-plan.js';
import { RenderValueError } from '../src/domains/network/network-syntax.js';
import { qosConfigOf } from '../src/domains/qos/qos-config.js';
import { CONNECTION_QOS_SHIFT } from '../src/domains/qos/qos-plan.js';
import { QOS_OPENWRT_FILES } from '../src/domains/qos/qos-openwrt.js';
import { mwan3InterfaceIds, mwan3Mark, MWAN3_MMX_MASK } from '../src/domains/network/network-openwrt-mwan3.js';
import { OPENWRT_NETWORK_FILES, renderOpenwrtNetwork } from '../src/domains/network/network-openwrt.js';
import {
  OPENWRT_QOS_ROUTE_FILES,
  qosDhcpIpsetSections,
  qosOpenwrtDhcp,
  renderQosOpenwrtRoutes,
} from '../src/domains/qos/qos-openwrt-routes.js';
import { checkUci } from '../src/engine/uci-check.js';
import { parseUci } from '../src/engine/uci-format.js';
import { checkRendered } from './network-checker-run.js';
import { FULL_QOS, MULTI_WAN, qosSnapshot, rowOf } from './qos-fixture.js';

/**
 * Smart QoS port and domain routes on OpenWrt: rendered as mwan3 marks set just before mwan3's
 * own hook, and dnsmasq `ipset` sections feeding the route sets. OpenWrt itself (fw4, mwan3,
 * its dnsmasq init) cannot run here: the files are checked with `nft -c` and the UCI parser and
 * compared with golden copies.
 */

const work = mkdtempSync(join(tmpdir(), 'portico-qos-openwrt-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const openwrt = networkDomain({ port: 8080, systemRoot: '/', driver: 'openwrt' }, systemRulesetParts({ driver: 'openwrt' }));

/** Golden files: written when missing or when UPDATE_GOLDEN is set, compared otherwise. */
function golden(name: string, content: string): void {
  const path = join(import.meta.dirname, 'golden/qos', name);
  mkdirSync(dirname(path), { recursive: true });
  if (!existsSync(path) || process.env.UPDATE_GOLDEN) writeFileSync(path, content);
  expect(content).toBe(readFileSync(path, 'utf8'));
}

function snapshotWith(extra: Record<string, ConfigSnapshot[string]> = {}): ConfigSnapshot {
  return qosSnapshot({ ...FULL_QOS, ...MULTI_WAN, ...extra });
}

function filesOf(snapshot: ConfigSnapshot): RenderedFile[] {
  return openwrt.render!(snapshot).flatMap((o) => o.files);
}

function fileOf(snapshot: ConfigSnapshot, target: string): RenderedFile {
  const file = filesOf(snapshot).find((f) => f.target === target);
  if (!file) throw new Error(`${target} not rendered`);
  return file;
}

function chainBody(text: string, name: string): string {
  const start = text.lastIndexOf(`chain ${name} {`);
  return start < 0 ? '' : text.slice(start, text.indexOf('\n\t}', start));
}

async function expectNftValid(content: string, name: string): Promise<void> {
  const result = await checkRendered({ target: `/${name}`, content, check: 'nft' }, work);
  if (!result.skipped) expect(result.problems).toEqual([]);
}

describe('mwan3 marks', () => {
  it('spreads an interface id over the mask bits the way mwan3 does', () => {
    expect(mwan3Mark(1)).toBe(0x100);
    expect(mwan3Mark(2)).toBe(0x200);
    expect(mwan3Mark(60)).toBe(0x3c00);
    // mwan3's own example: id 5 over mask 0xAA sets bits 1 and 5.
    expect(mwan3Mark(5, 0xaa)).toBe(0x22);
  });

  it('refuses ids outside the mask or among mwan3’s reserved values', () => {
    expect(() => mwan3Mark(0)).toThrow(RenderValueError);
    expect(() => mwan3Mark(61)).toThrow(RenderValueError);
  });

  it('keeps the mask clear of the MAC-user bits of the connection mark', () => {
    expect(MWAN3_MMX_MASK & (0xffff << CONNECTION_QOS_SHIFT)).toBe(0);
  });

  it('numbers the interfaces as mwan3 does and leaves its default mask in force', () => {
    const snapshot = snapshotWith();
    expect([...mwan3InterfaceIds(planNetwork(networkConfigOf(snapshot))).entries()]).toEqual([
      ['wan1', 1],
      ['wan2', 2],
    ]);
    const mwan3 = fileOf(snapshot, OPENWRT_NETWORK_FILES.mwan3).content;
    // No globals section: mwan3 falls back to its default mask, the one the marks assume.
    expect(parseUci(mwan3).some((section) => section.type === 'globals')).toBe(false);
    expect(MWAN3_MMX_MASK).toBe(0x3f00);
    expect(checkUci(mwan3)).toBeNull();
    golden('openwrt-routes/mwan3', mwan3);
  });
});

describe('the route include (31-portico-qos-route.nft)', () => {
  const snapshot = snapshotWith();
  const include = fileOf(snapshot, OPENWRT_QOS_ROUTE_FILES.nftInclude);
  const table = fileOf(snapshot, QOS_OPENWRT_FILES.nftInclude);

  it('sets the WAN’s mwan3 mark on new LAN connections by port, domain and ISP network', () => {
    const chain = chainBody(include.content, 'qos_wan_route');
    expect(chain).toContain('meta l4proto tcp th dport { 2222 } ct mark set ct mark | 0x00000200 meta mark set meta mark | 0x00000200 return');
    expect(chain).toContain('ip daddr @qos_route_1_v4 ct mark set ct mark | 0x00000100 meta mark set meta mark | 0x00000100 return');
    expect(chain).toContain('ip daddr @qos_isp_telecom ct mark set ct mark | 0x00000100');
    // A choice already made stands; the gateway and the LAN are never sent to a WAN.
    expect(chain).toContain('meta mark & 0x00003f00 != 0x00000000 return');
    expect(chain).toContain('ip daddr { 192.168.11.0/24 } return');
    // Before mwan3's iptables hook (mangle, -150), which keeps a mark it finds.
    expect(include.content).toContain('type filter hook prerouting priority mangle - 5; policy accept;');
  });

  it('matches its golden file and passes nft -c alone and after the table include, as fw4 loads them', async () => {
    golden('openwrt-routes/31-portico-qos-route.nft', include.content);
    expect(include.check).toBe('nft');
    await expectNftValid(include.content, 'route.nft');
    await expectNftValid(`${table.content}${include.content}`, 'both.nft');
  });

  it.skipIf(process.getuid?.() !== 0)('reloads in a kernel as fw4 does: rules replaced, DNS-filled elements kept', async () => {
    const ns = `qosowrt${process.pid}`;
    const inNs = (argv: string[], input?: string) => execa('ip', ['netns', 'exec', ns, ...argv], input === undefined ? {} : { input });
    await execa('ip', ['netns', 'add', ns]);
    try {
      const ruleset = `${table.content}${include.content}`;
      await inNs(['nft', '-f', '-'], ruleset);
      await inNs(['nft', 'add', 'element', 'inet', 'portico', 'qos_route_1_v4', '{ 192.0.2.9 }']);
      await inNs(['nft', '-f', '-'], ruleset);
      expect((await inNs(['nft', 'list', 'set', 'inet', 'portico', 'qos_route_1_v4'])).stdout).toContain('192.0.2.9');
      const chain = (await inNs(['nft', 'list', 'chain', 'inet', 'portico', 'qos_wan_route'])).stdout;
      expect(chain.match(/meta mark set/g)).toHaveLength(3);
    } finally {
      await execa('ip', ['netns', 'del', ns], { reject: false });
    }
  });

  it('leaves the linux driver’s WAN marks out of the table include', () => {
    expect(table.content).not.toContain('chain qos_route {');
    expect(table.content).not.toMatch(/mark \| 0x00000[12]00/);
  });

  it('renders an emptied chain when no route applies, so an old route does not linger', async () => {
    const plain = fileOf(snapshotWith({ qosPortRule: [], qosDomainRule: [], qosBase: [rowOf('qosBase', '', { qos: true, balance: false })] }), OPENWRT_QOS_ROUTE_FILES.nftInclude);
    expect(plain.content).toContain('flush chain inet portico qos_wan_route');
    expect(chainBody(plain.content, 'qos_wan_route')).not.toContain('meta mark set');
    await expectNftValid(plain.content, 'plain.nft');
  });

  it('routes nothing to a WAN mwan3 does not manage, nor with a single WAN', () => {
    const oneInMwan3 = snapshotWith({ multiWan: [MULTI_WAN.multiWan[0]!] });
    const text = fileOf(oneInMwan3, OPENWRT_QOS_ROUTE_FILES.nftInclude).content;
    expect(text).not.toContain('0x00000200');
    expect(text).toContain('ip daddr @qos_route_1_v4');
    const config = qosConfigOf(snapshotWith());
    const single = planNetwork({ ...networkConfigOf(snapshotWith()), interfaces: networkConfigOf(snapshotWith()).interfaces.filter((i) => i.ifname !== 'wan2') });
    expect(renderQosOpenwrtRoutes(config, single)).not.toContain('meta mark set');
  });
});

describe('dnsmasq ipset sections in /etc/config/dhcp', () => {
  const snapshot = snapshotWith();
  const plan = planNetwork(networkConfigOf(snapshot));

  it('names the class set and the route set of each domain rule in table inet portico', () => {
    const sections = qosOpenwrtDhcp(snapshot, plan);
    expect(sections).toEqual([
      {
        type: 'ipset',
        options: { name: ['qos_dom_bulk', 'qos_route_1_v4'], domain: ['video.example.com', 'cdn.example.net'], table: 'portico', table_family: 'inet' },
      },
      { type: 'ipset', options: { name: ['qos_dom_priority'], domain: ['meet.example.org'], table: 'portico', table_family: 'inet' } },
    ]);
  });

  it('joins the dhcp package as valid UCI, matching its golden file', () => {
    const dhcp = renderOpenwrtNetwork(networkConfigOf(snapshot), { sections: qosOpenwrtDhcp(snapshot, plan) })
      .flatMap((o) => o.files)
      .find((f) => f.target === OPENWRT_NETWORK_FILES.dhcp)!;
    expect(checkUci(dhcp.content)).toBeNull();
    expect(parseUci(dhcp.content).filter((s) => s.type === 'ipset')).toHaveLength(2);
    golden('openwrt-routes/dhcp', dhcp.content);
  });

  it('reaches /etc/config/dhcp through the network domain on the openwrt driver', () => {
    const files = openwrt.render!(snapshot).flatMap((o) => o.files);
    const dhcp = files.find((f) => f.target === OPENWRT_NETWORK_FILES.dhcp)!;
    expect(parseUci(dhcp.content).filter((s) => s.type === 'ipset').map((s) => s.options.name)).toEqual([['qos_dom_bulk', 'qos_route_1_v4'], ['qos_dom_priority']]);
  });

  it('refuses a domain that is not a plain DNS name', () => {
    const config = qosConfigOf(snapshot);
    const forged = { ...config, domainRules: [{ ...config.domainRules[0]!, dest_domain: ["evil.example'\nlist domain 'x"] }] };
    expect(() => qosDhcpIpsetSections(forged, plan)).toThrow(RenderValueError);
  });
});
