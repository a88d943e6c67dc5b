import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { systemRegistry } from '../src/domain-list.js';
import { NftDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { OPENWRT_HOTSPOT_FILES, renderOpenwrtHotspotTable } from '../src/domains/hotspot/hotspot-openwrt.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { parseUci } from '../src/engine/uci-format.js';
import { checkUci } from '../src/engine/uci-check.js';
import { FW4_INCLUDES, writeFw4Tree } from '../../../tests/packaging/openwrt/fw4-ruleset.js';
import { firewallSnapshot } from './firewall-fixture.js';
import { checkerAvailable } from './network-checker-run.js';

const work = mkdtempSync(join(tmpdir(), 'portico-openwrt-hotspot-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const registry = systemRegistry({ driver: 'openwrt', portalPort: 2050 });

const HOTSPOT = {
  hotspotZone: [{ name: 'guests', ifname: 'guest', authmodel: 'webportal', authtime: 1, authtime_unit: 'days' }],
  hotspotWhitelist: [
    { type: 'url', value: 'portal.example.com' },
    { type: 'mac', value: '02:00:00:00:00:0a' },
  ],
  hotspotBlacklist: [{ type: 'ip', value: '192.168.20.66' }],
  hotspotRadius: { enabled: true, radiusip: '198.51.100.7', sharekey: 'radius-secret', dae: true, offlineport: 3799 },
  qosBase: { qos: true, qosmode: 'smart', p2pblock: false, balance: false },
};

function rendered(rows: Record<string, object | object[]>): Map<string, RenderedFile> {
  const files = registry.renderEach(['network'], firewallSnapshot(rows)).flatMap((entry) => entry.outputs ?? []).flatMap((o) => o.files);
  return new Map(files.map((f) => [f.target, f]));
}

const canLoad = async () => (await checkerAvailable('nft')) && (await checkerAvailable('ip')) && process.getuid?.() === 0;

const fw4Files = (files: Map<string, RenderedFile>) => writeFw4Tree(files.values(), work);

describe('the hotspot on OpenWrt', () => {
  it('its sets and chains in table inet portico as an fw4 ruleset-post include, after Smart QoS’s', () => {
    const files = rendered(HOTSPOT);
    const table = files.get(OPENWRT_HOTSPOT_FILES.table)!;
    expect(table.check).toBe('nft');
    const text = table.content;
    // Declared, its own chains and filled sets flushed, defined: never the whole table.
    expect(text).not.toContain('flush table');
    expect(text).toContain('flush chain inet portico hs_forward\n');
    expect(text).toContain('flush set inet portico hs_ifaces\n');
    expect(text).not.toContain('flush set inet portico hs_auth\n');
    expect(text).toContain('set hs_ifaces { type ifname; elements = { "eth3.20" } }');
    expect(text).toContain('\tchain hs_input {\n\t\ttype filter hook input priority -10; policy accept;\n\t\tiifname @hs_ifaces ether saddr @hs_black_mac drop\n');
    expect(text).toContain('\t\ttcp dport 80 redirect to :2050\n');
    expect([...files.keys()].filter((t) => t.startsWith(`${FW4_INCLUDES}ruleset-post/`)).sort()).toEqual([
      '/usr/share/nftables.d/ruleset-post/30-portico-qos.nft',
      '/usr/share/nftables.d/ruleset-post/31-portico-qos-route.nft',
      OPENWRT_HOTSPOT_FILES.table,
    ]);
  });

  it('white-listed domains go to the set through dnsmasq (an ipset section of /etc/config/dhcp); RADIUS DAE through fw4’s input', () => {
    const files = rendered(HOTSPOT);
    const dhcp = files.get('/etc/config/dhcp')!.content;
    expect(checkUci(dhcp)).toBeNull();
    const ipsets = parseUci(dhcp).filter((s) => s.type === 'ipset');
    expect(ipsets).toContainEqual({ type: 'ipset', options: { name: ['hs_white_dns'], domain: ['portal.example.com'], table: 'portico', table_family: 'inet' } });
    expect(files.get(OPENWRT_HOTSPOT_FILES.radius)?.content).toBe('# Portico hotspot RADIUS (fw4 include). Generated; changes are overwritten.\nip saddr { 198.51.100.7 } udp dport 3799 accept\n');
  });

  it('no zone: the include stays, its chains empty, so the last rules do not outlive the hotspot', () => {
    const files = rendered({});
    expect(files.get(OPENWRT_HOTSPOT_FILES.table)?.content).toBe(renderOpenwrtHotspotTable(null));
    const text = renderOpenwrtHotspotTable(null);
    expect(text).toContain('flush chain inet portico hs_prerouting\n');
    expect(text.split('\n').filter((l) => l.startsWith('\t\t') && !l.includes('hook'))).toEqual([]);
    expect(files.has(OPENWRT_HOTSPOT_FILES.radius)).toBe(false);
  });

  it('every include passes nft -c with fw4’s ruleset; on its own too, as the device checks it', async () => {
    if (!(await canLoad())) return console.info('nft, ip or root is missing: not checked with nft');
    for (const rows of [HOTSPOT, {}]) {
      const files = rendered(rows);
      const check = await execa('nft', ['-c', '-f', fw4Files(files)], { reject: false });
      expect(check.stderr).toBe('');
      const alone = join(work, 'alone.nft');
      writeFileSync(alone, files.get(OPENWRT_HOTSPOT_FILES.table)!.content);
      expect((await execa('nft', ['-c', '-f', alone], { reject: false })).stderr).toBe('');
    }
  });

  it('in a namespace: a signed-in client (the data plane’s element) survives fw4 reloads; turned off, the rules go and nothing else', async () => {
    if (!(await canLoad())) return console.info('nft, ip or root is missing: not loaded');
    const ns = `portico-hs-${process.pid}`;
    await execa('ip', ['netns', 'add', ns]);
    try {
      const inNs: CommandRunner = async (argv, options) => {
        const result = await execa('ip', ['netns', 'exec', ns, ...argv], { reject: false, input: options?.input });
        return { exitCode: result.exitCode ?? 1, stdout: String(result.stdout), stderr: String(result.stderr) };
      };
      const load = async (rows: Record<string, object | object[]>) => {
        const result = await inNs(['nft', '-f', fw4Files(rendered(rows))]);
        expect(result.stderr).toBe('');
      };
      await load(HOTSPOT);
      const dataplane = new NftDataplane(inNs);
      await dataplane.apply([{ mac: '02:00:00:00:00:51', ip: '192.168.20.51', timeoutSeconds: 3600, upKbps: 0, downKbps: 0 }], []);
      await load(HOTSPOT);
      const auth = await inNs(['nft', 'list', 'set', 'inet', 'portico', 'hs_auth']);
      expect(auth.stdout).toContain('02:00:00:00:00:51 . 192.168.20.51');
      await load({ qosBase: HOTSPOT.qosBase });
      const chains = await inNs(['nft', 'list', 'chain', 'inet', 'portico', 'hs_prerouting']);
      expect(chains.stdout).not.toContain('redirect');
      expect((await inNs(['nft', 'list', 'chain', 'inet', 'portico', 'hs_forward'])).stdout).not.toContain('jump');
      // Smart QoS's part of the same table is still there.
      expect((await inNs(['nft', 'list', 'table', 'inet', 'portico'])).stdout).toContain('set lan_ifaces');
    } finally {
      await execa('ip', ['netns', 'del', ns], { reject: false });
    }
  });
});
