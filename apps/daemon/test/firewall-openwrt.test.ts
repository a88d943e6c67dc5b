import { systemRegistry } from '../src/domain-list.js';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenwrtApplier } from '../src/config/apply-openwrt.js';
import { reloadList } from '../src/config/domain-module.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { CONNTRACK_FILES, conntrackDomain } from '../src/domains/firewall/firewall-conntrack.js';
import { firewallContributor } from '../src/domains/firewall/firewall-contributor.js';
import { OPENWRT_FIREWALL_FILES } from '../src/domains/firewall/firewall-openwrt.js';
import { networkDomain } from '../src/domains/network/network-domain.js';
import { OPENWRT_NETWORK_FILES } from '../src/domains/network/network-openwrt.js';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { firewallSnapshot, FIREWALL_ROWS } from './firewall-fixture.js';
import { checkerAvailable } from './network-checker-run.js';

const goldenDir = join(import.meta.dirname, 'golden', 'firewall', 'openwrt');
const update = process.env.UPDATE_GOLDEN === '1';
const work = mkdtempSync(join(tmpdir(), 'portico-fw4-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The service reload the domains name for an installed file on OpenWrt, as the applier asks. */
function openwrtReloadFor(target: string): readonly string[] | undefined {
  const run: CommandRunner = async () => ({ exitCode: 0, stdout: '', stderr: '' });
  for (const activation of systemRegistry({ driver: 'openwrt' }).activations('openwrt', { root: work, run })) {
    const reload = reloadList(activation.reloadFor?.(target))[0];
    if (reload) return reload.argv;
  }
  return undefined;
}

const openwrt = networkDomain({ port: 8080, systemRoot: '/', driver: 'openwrt' }, [firewallContributor]);
const bare = networkDomain({ port: 8080, systemRoot: '/', driver: 'openwrt' }, []);

function rendered(rows: Record<string, object | object[]>): Map<string, RenderedFile> {
  return new Map(openwrt.render!(firewallSnapshot(rows)).flatMap((o) => o.files).map((f) => [f.target, f]));
}

/** Golden name of an include: its fw4 folder and file, flattened. */
function goldenName(target: string): string {
  return target.replace('/usr/share/nftables.d/', '').replaceAll('/', '--');
}

function golden(name: string, content: string): void {
  const path = join(goldenDir, name);
  if (update) {
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(path, content);
  }
  expect(existsSync(path), `${path} (run with UPDATE_GOLDEN=1 once)`).toBe(true);
  expect(content, name).toBe(readFileSync(path, 'utf8'));
}

/**
 * A table of fw4's shape that pulls our includes in where fw4 does: chain-pre at the top of its
 * base chains (before its own connection-state rules), table-post at the end of the table.
 */
function fw4Ruleset(dir: string): string {
  const include = (target: string) => `include "${join(dir, target)}"`;
  return [
    'table inet fw4 {}',
    'flush table inet fw4',
    'table inet fw4 {',
    '\tchain input {',
    '\t\ttype filter hook input priority filter; policy drop;',
    `\t\t${include(OPENWRT_FIREWALL_FILES.input)}`,
    '\t\tiifname "lo" accept',
    '\t\tct state vmap { established : accept, related : accept, invalid : drop }',
    '\t}',
    '\tchain forward {',
    '\t\ttype filter hook forward priority filter; policy drop;',
    `\t\t${include(OPENWRT_FIREWALL_FILES.forward)}`,
    '\t\tct state vmap { established : accept, related : accept, invalid : drop }',
    '\t}',
    '\tchain dstnat {',
    '\t\ttype nat hook prerouting priority dstnat; policy accept;',
    `\t\t${include(OPENWRT_FIREWALL_FILES.dstnat)}`,
    '\t}',
    '\tchain srcnat {',
    '\t\ttype nat hook postrouting priority srcnat; policy accept;',
    `\t\t${include(OPENWRT_FIREWALL_FILES.srcnat)}`,
    '\t}',
    `\t${include(OPENWRT_FIREWALL_FILES.table)}`,
    '}',
    '',
  ].join('\n');
}

/** nft -c of the includes inside the fw4-shaped table; null when nft is absent. */
async function checkInFw4(files: Map<string, RenderedFile>): Promise<string | null> {
  if (!(await checkerAvailable('nft'))) return null;
  const dir = mkdtempSync(join(work, 'root-'));
  for (const target of Object.values(OPENWRT_FIREWALL_FILES)) {
    const path = join(dir, target);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, files.get(target)!.content);
  }
  writeFileSync(join(dir, 'fw4.nft'), fw4Ruleset(dir));
  const run = await execa('nft', ['-c', '-f', join(dir, 'fw4.nft')], { reject: false });
  return run.exitCode === 0 ? '' : run.stderr || `exit ${run.exitCode}`;
}

describe('the firewall on OpenWrt: fw4 include files', () => {
  const files = rendered(FIREWALL_ROWS);

  it('writes the five includes and no UCI of its own: the UCI packages are the network renderer’s alone', () => {
    const includes = [...files.keys()].filter((t) => t.startsWith('/usr/share/nftables.d/'));
    expect(includes.sort()).toEqual(Object.values(OPENWRT_FIREWALL_FILES).sort());
    const uci = (map: Map<string, RenderedFile>) => [...map.values()].filter((f) => f.check === 'uci').map((f) => [f.target, f.content]);
    const without = new Map(bare.render!(firewallSnapshot(FIREWALL_ROWS)).flatMap((o) => o.files).map((f) => [f.target, f]));
    expect(uci(files)).toEqual(uci(without));
    expect(files.has(OPENWRT_NETWORK_FILES.firewall)).toBe(true);
  });

  it('every include equals its golden copy (UPDATE_GOLDEN=1 rewrites them)', () => {
    for (const target of Object.values(OPENWRT_FIREWALL_FILES)) golden(goldenName(target), files.get(target)!.content);
  });

  it('the includes pass nft -c inside a table of fw4’s shape', async () => {
    const problems = await checkInFw4(files);
    if (problems === null) console.info('nft is not installed: fw4 includes not checked');
    else expect(problems).toBe('');
  });

  it('judges new connections only, with our own LAN and WAN sets', () => {
    const forward = files.get(OPENWRT_FIREWALL_FILES.forward)!.content.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(forward.length).toBeGreaterThan(0);
    for (const line of forward) expect(line.startsWith('ct state new '), line).toBe(true);
    expect(forward.join('\n')).not.toContain('ct state new ct state new');
    const table = files.get(OPENWRT_FIREWALL_FILES.table)!.content;
    expect(table).toContain('set portico_lan { type ifname; elements = {');
    expect(table).toContain('set portico_wan { type ifname; elements = {');
    expect(table).not.toContain('@lan_ifaces');
  });

  it('an empty firewall still writes valid, empty includes (a removed rule must not linger)', async () => {
    const empty = rendered({ firewallSessionLimit: { enabled: false } });
    for (const target of [OPENWRT_FIREWALL_FILES.forward, OPENWRT_FIREWALL_FILES.dstnat, OPENWRT_FIREWALL_FILES.srcnat]) {
      expect(empty.get(target)!.content.split('\n').filter((l) => l && !l.startsWith('#')), target).toEqual([]);
    }
    const problems = await checkInFw4(empty);
    if (problems !== null) expect(problems).toBe('');
  });

  it('a long filter list becomes verdict maps that pass nft -c inside fw4 too', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ name: `r${i}`, target: i % 2 ? 'reject' : 'drop', proto: 'udp', src: `192.168.1.${i + 2}`, dport: '53' }));
    const long = rendered({ firewallAcl: rows });
    expect(long.get(OPENWRT_FIREWALL_FILES.table)!.content).toContain('vmap @fw_acl_forward_0');
    const problems = await checkInFw4(long);
    if (problems !== null) expect(problems).toBe('');
  });

  it('a changed include reloads fw4; the conntrack timeouts are loaded with sysctl', () => {
    for (const target of Object.values(OPENWRT_FIREWALL_FILES)) expect(openwrtReloadFor(target), target).toEqual(['/etc/init.d/firewall', 'reload']);
    expect(openwrtReloadFor(CONNTRACK_FILES.openwrt)).toEqual(['sysctl', '-p', CONNTRACK_FILES.openwrt]);
    expect(openwrtReloadFor('/etc/portico/other.conf')).toBeUndefined();
  });

  it('the conntrack timeouts file on OpenWrt equals its golden copy', () => {
    const [output] = conntrackDomain({ driver: 'openwrt' }).render!(firewallSnapshot(FIREWALL_ROWS));
    const file = output!.files[0]!;
    expect(file.target).toBe(CONNTRACK_FILES.openwrt);
    golden('12-portico-conntrack.conf', file.content);
  });
});

describe('the openwrt applier and the firewall', () => {
  it('a firewall-only change reloads fw4 once, however many includes changed; nothing else is reloaded', async () => {
    const root = mkdtempSync(join(work, 'apply-'));
    const commands: string[][] = [];
    const run: CommandRunner = async (argv) => {
      commands.push([...argv]);
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const domains = systemRegistry({}, [openwrt]);
    const applier = createOpenwrtApplier({ root, run, domains });
    await applier.apply(['network'], firewallSnapshot({}));
    commands.length = 0;
    await applier.apply(['network'], firewallSnapshot(FIREWALL_ROWS));
    expect(commands).toEqual([['/etc/init.d/firewall', 'reload']]);
    expect(readFileSync(join(root, OPENWRT_FIREWALL_FILES.forward), 'utf8')).toContain('jump fw_acl_forward');
    // Unchanged: nothing to reload.
    commands.length = 0;
    await applier.apply(['network'], firewallSnapshot(FIREWALL_ROWS));
    expect(commands).toEqual([]);
  });
});
