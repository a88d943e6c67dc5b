import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenwrtApplier } from '../src/config/apply-openwrt.js';
import type { CommandRunner } from '../src/engine/command-runner.js';
import { systemRegistry } from '../src/domain-list.js';
import { firewallContributor } from '../src/domains/firewall/firewall-contributor.js';
import { networkDomain } from '../src/domains/network/network-domain.js';
import { OPENWRT_REMOTE_ACCESS_FILES } from '../src/domains/remote-access/remote-access-openwrt.js';
import { remoteAccessContributor } from '../src/domains/remote-access/remote-access-ruleset.js';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { FW4_INCLUDES, writeFw4Tree } from '../../../tests/packaging/openwrt/fw4-ruleset.js';
import { firewallSnapshot, FIREWALL_ROWS } from './firewall-fixture.js';
import { checkerAvailable } from './network-checker-run.js';

const work = mkdtempSync(join(tmpdir(), 'portico-remote-fw4-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const openwrt = networkDomain({ port: 8080, systemRoot: '/', driver: 'openwrt' }, [firewallContributor, remoteAccessContributor(8080)]);

function includes(rows: Record<string, object | object[]>): Map<string, RenderedFile> {
  const files = openwrt.render!(firewallSnapshot(rows)).flatMap((o) => o.files);
  return new Map(files.filter((f) => f.target.startsWith(FW4_INCLUDES)).map((f) => [f.target, f]));
}

const HEADER = '# Portico remote access (fw4 include). Generated; changes are overwritten.';

/** nft -c of every include inside a ruleset of fw4's shape; null without nft or root. */
async function checkInFw4(files: Map<string, RenderedFile>): Promise<string | null> {
  if (!(await checkerAvailable('nft')) || process.getuid?.() !== 0) return null;
  const run = await execa('nft', ['-c', '-f', writeFw4Tree(files.values(), work)], { reject: false });
  return run.exitCode === 0 ? '' : run.stderr || `exit ${run.exitCode}`;
}

describe('remote access on OpenWrt: fw4 includes', () => {
  it('the console on a WAN port from the allowed sources: sets and chain, the jump from the WAN devices, the redirect', async () => {
    const files = includes({ ...FIREWALL_ROWS, remoteAccess: { enabled: true, port: 8443, allowed_ips: ['198.51.100.0/24', '203.0.113.5-203.0.113.9', '2001:db8::/64'], wan_ping: true } });
    expect(files.get(OPENWRT_REMOTE_ACCESS_FILES.table)?.content).toBe(
      [
        HEADER,
        '\tset portico_remote_access_v4 { type ipv4_addr; flags interval; auto-merge; elements = { 198.51.100.0-198.51.100.255, 203.0.113.5-203.0.113.9 } }',
        '\tset portico_remote_access_v6 { type ipv6_addr; flags interval; auto-merge; elements = { 2001:db8::-2001:db8::ffff:ffff:ffff:ffff } }',
        'chain portico_remote_access {',
        '\ticmp type echo-request accept',
        '\ticmpv6 type echo-request accept',
        '\tip saddr @portico_remote_access_v4 tcp dport 8080 ct original proto-dst 8443 accept',
        '\tip6 saddr @portico_remote_access_v6 tcp dport 8080 ct original proto-dst 8443 accept',
        '}',
        '',
      ].join('\n'),
    );
    expect(files.get(OPENWRT_REMOTE_ACCESS_FILES.input)?.content).toBe(`${HEADER}\nct state new iifname { "eth0", "pppoe-wan2" } jump portico_remote_access\n`);
    expect(files.get(OPENWRT_REMOTE_ACCESS_FILES.dstnat)?.content).toBe(`${HEADER}\niifname { "eth0", "pppoe-wan2" } tcp dport 8443 redirect to :8080\n`);
    const problems = await checkInFw4(files);
    if (problems === null) console.info('nft or root is missing: fw4 includes not checked');
    else expect(problems).toBe('');
  });

  it('open to any source on the console’s own port: no set, no redirect', async () => {
    const files = includes({ remoteAccess: { enabled: true, port: 8080, allowed_ips: [], wan_ping: false } });
    expect(files.get(OPENWRT_REMOTE_ACCESS_FILES.table)?.content).toBe(`${HEADER}\nchain portico_remote_access {\n\ttcp dport 8080 ct original proto-dst 8080 accept\n}\n`);
    expect(files.has(OPENWRT_REMOTE_ACCESS_FILES.dstnat)).toBe(false);
    const problems = await checkInFw4(files);
    if (problems !== null) expect(problems).toBe('');
  });

  it('off: no include at all, so the applier removes the old ones', () => {
    const files = includes({ remoteAccess: { enabled: false, wan_ping: false } });
    expect([...files.keys()].filter((t) => t.includes('remote-access'))).toEqual([]);
  });

  it('a change is made live by fw4’s reload; turned off, the includes are removed', async () => {
    const root = mkdtempSync(join(work, 'apply-'));
    const commands: string[][] = [];
    const run: CommandRunner = async (argv) => {
      commands.push([...argv]);
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const applier = createOpenwrtApplier({ root, run, domains: systemRegistry({ driver: 'openwrt' }) });
    await applier.apply(['network'], firewallSnapshot({ remoteAccess: { enabled: true, port: 8443 } }));
    expect(readFileSync(join(root, OPENWRT_REMOTE_ACCESS_FILES.dstnat), 'utf8')).toContain('redirect to :');
    commands.length = 0;
    await applier.apply(['network'], firewallSnapshot({ remoteAccess: { enabled: false } }));
    expect(() => readFileSync(join(root, OPENWRT_REMOTE_ACCESS_FILES.table))).toThrow();
    expect(commands).toEqual([['/etc/init.d/firewall', 'reload']]);
  });
});
