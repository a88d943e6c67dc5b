import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { NETWORK_FILES, type NetworkConfig } from '../src/domains/network/network-config.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import { ALTERNATE, buildConfig, PLAIN_LINKS, REPRESENTATIVE } from './network-fixture.js';
import { checkerAvailable, checkRendered, type Checked } from './network-checker-run.js';

/**
 * The rendered files through the real tools: `nft -c`, `dnsmasq --test`, and, inside a
 * throwaway network namespace, `nft -f`, the three ip batches and `sysctl -p` applied for
 * real, twice, to show that a re-apply replaces the state instead of failing on it.
 */

const work = mkdtempSync(join(tmpdir(), 'portico-network-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CONFIGS: Array<[string, NetworkConfig]> = [
  ['representative', buildConfig(REPRESENTATIVE)],
  ['alternate', buildConfig(ALTERNATE)],
  ['plain-links', buildConfig(PLAIN_LINKS)],
];

function fileOf(config: NetworkConfig, target: string): string {
  const file = renderNetwork(config)[0]!.files.find((f) => f.target === target);
  if (!file) throw new Error(`${target} not rendered`);
  return file.content;
}

describe('real checkers on the rendered files', () => {
  for (const [name, config] of CONFIGS) {
    it(`${name}: nft -c, dnsmasq --test and the ip batch syntax check pass`, async () => {
      const results: Checked[] = [];
      for (const file of renderNetwork(config)[0]!.files) results.push(await checkRendered(file, join(work, name)));
      for (const result of results) {
        if (result.skipped) console.info(`${result.target}: ${result.skipped}`);
        else expect(result.problems, `${result.target}\n${result.problems.join('\n')}`).toEqual([]);
      }
      expect(results.filter((r) => !r.skipped).length).toBeGreaterThanOrEqual(4);
    });
  }
});

const NAMESPACE = `portico-test-${process.pid}`;

async function namespaceUsable(): Promise<string | undefined> {
  for (const tool of ['ip', 'nft', 'sysctl'] as const) {
    if (!(await checkerAvailable(tool))) return `${tool} is not installed`;
  }
  const added = await execa('ip', ['netns', 'add', NAMESPACE], { reject: false });
  if (added.exitCode !== 0) return `cannot create a network namespace: ${added.stderr.trim()}`;
  return undefined;
}

const inNamespace = (command: string, args: string[]) => execa('ip', ['netns', 'exec', NAMESPACE, command, ...args], { reject: false });

describe('applied for real in a network namespace', async () => {
  const unusable = await namespaceUsable();
  if (unusable) console.info(`namespace apply skipped: ${unusable}`);
  afterAll(async () => {
    if (!unusable) await execa('ip', ['netns', 'del', NAMESPACE], { reject: false });
  });

  it.skipIf(unusable !== undefined)('plain-links: nft, links, sysctl, state and routes apply, and apply again', async () => {
    const config = buildConfig(PLAIN_LINKS);
    const dir = join(work, 'apply');
    const path = (target: string) => {
      const file = join(dir, target.split('/').pop()!);
      writeFileSync(file, fileOf(config, target));
      return file;
    };
    mkdirSync(dir, { recursive: true });
    // Physical ports stand in as veth pairs.
    for (const [a, b] of [['eth0', 'peer0'], ['eth1', 'peer1'], ['eth2', 'peer2'], ['eth3', 'peer3'], ['eth4', 'peer4']]) {
      expect((await inNamespace('ip', ['link', 'add', a!, 'type', 'veth', 'peer', 'name', b!])).exitCode).toBe(0);
    }
    for (let round = 1; round <= 2; round++) {
      const nft = await inNamespace('nft', ['-f', path(NETWORK_FILES.nftables)]);
      expect(nft.stderr, `round ${round} nft`).toBe('');
      await inNamespace('ip', ['-force', '-batch', path(NETWORK_FILES.linksBatch)]);
      const sysctl = await inNamespace('sysctl', ['-q', '-p', path(NETWORK_FILES.sysctl)]);
      expect(sysctl.stderr, `round ${round} sysctl`).toBe('');
      const state = await inNamespace('ip', ['-batch', path(NETWORK_FILES.stateBatch)]);
      expect(state.exitCode, `round ${round} state: ${state.stderr}`).toBe(0);
      await inNamespace('ip', ['-force', '-batch', path(NETWORK_FILES.routesBatch)]);
    }

    const addresses = (await inNamespace('ip', ['-o', 'address', 'show'])).stdout;
    for (const expected of ['br-lan    inet 192.168.1.1/24', 'br-lan    inet 10.10.0.1/24', 'eth1    inet 203.0.113.11/24', 'eth4-30    inet 172.16.30.1/24']) {
      expect(addresses.replace(/\s+/g, ' '), expected).toContain(expected.replace(/\s+/g, ' '));
    }
    expect(addresses).toContain('fd00:1::1/64');
    expect((await inNamespace('ip', ['-6', 'route', 'show', 'default'])).stdout).toContain('default via 2001:db8:1::1 dev eth0 proto static metric 10');
    expect((await inNamespace('ip', ['link', 'show', 'eth2'])).stdout).toContain('master br-lan');
    expect((await inNamespace('ip', ['link', 'show', 'eth4-30'])).stdout).toContain('02:00:00:00:00:30');
    const rules = (await inNamespace('ip', ['rule', 'show'])).stdout;
    expect(rules).toContain('10101:\tfrom all fwmark 0x100/0xff00 lookup 101 proto static');
    expect(rules).toContain('10202:\tfrom 203.0.113.10 lookup 102 proto static');
    expect(rules.match(/lookup main suppress_prefixlength 0/g)).toHaveLength(1);
    expect((await inNamespace('ip', ['route', 'show', 'table', '101'])).stdout).toContain('default via 198.51.100.1 dev eth0 proto static');
    const main = (await inNamespace('ip', ['route', 'show'])).stdout;
    expect(main).toContain('default proto static metric 10');
    expect(main).toContain('nexthop via 198.51.100.1 dev eth0 weight 2');
    expect(main).toContain('10.20.0.0/16 via 192.168.1.254 dev br-lan proto static metric 10');
    // The route through an unreachable gateway failed alone, the others stand.
    expect(main).not.toContain('10.30.0.0/16');
    expect((await inNamespace('ip', ['neigh', 'show', 'nud', 'permanent'])).stdout).toContain('192.168.1.10 dev br-lan lladdr 00:11:22:33:44:55 PERMANENT');
    expect((await inNamespace('sysctl', ['-n', 'net.ipv4.ip_forward'])).stdout.trim()).toBe('1');
    expect((await inNamespace('nft', ['list', 'set', 'inet', 'portico', 'arp_pairs'])).stdout).toContain('00:11:22:33:44:55 . 192.168.1.10');

    // A changed configuration replaces the old state: the old WAN address, route and binding go.
    const changed = buildConfig({
      ...PLAIN_LINKS,
      interfaces: PLAIN_LINKS.interfaces.map((i) => {
        const name = (i as { ifname: string }).ifname;
        return name === 'wan2' ? { ...i, secondary: [] } : name === 'wan1' ? { ...i, ipv6: 'off', ip6addr: '', ip6gw: '' } : i;
      }),
      staticRoutes: [],
      arpBinds: [{ ip: '192.168.1.11', mac: '00:11:22:33:44:66' }],
    });
    for (const target of [NETWORK_FILES.nftables, NETWORK_FILES.linksBatch, NETWORK_FILES.stateBatch, NETWORK_FILES.routesBatch]) {
      const file = join(dir, target.split('/').pop()!);
      writeFileSync(file, fileOf(changed, target));
      const run =
        target === NETWORK_FILES.nftables
          ? await inNamespace('nft', ['-f', file])
          : await inNamespace('ip', [...(target === NETWORK_FILES.stateBatch ? [] : ['-force']), '-batch', file]);
      if (target === NETWORK_FILES.stateBatch || target === NETWORK_FILES.nftables) expect(run.exitCode, run.stderr).toBe(0);
    }
    expect((await inNamespace('ip', ['-o', 'address', 'show', 'dev', 'eth1'])).stdout).not.toContain('203.0.113.11');
    expect((await inNamespace('ip', ['-6', 'route', 'show', 'default'])).stdout).not.toContain('2001:db8:1::1');
    expect((await inNamespace('ip', ['route', 'show'])).stdout).not.toContain('10.20.0.0/16');
    const neigh = (await inNamespace('ip', ['neigh', 'show', 'nud', 'permanent'])).stdout;
    expect(neigh).toContain('192.168.1.11');
    expect(neigh).not.toContain('192.168.1.10 ');
    const pairs = (await inNamespace('nft', ['list', 'set', 'inet', 'portico', 'arp_pairs'])).stdout;
    expect(pairs).toContain('00:11:22:33:44:66 . 192.168.1.11');
    expect(pairs).not.toContain('192.168.1.10');
  });
});
