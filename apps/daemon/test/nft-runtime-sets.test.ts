import { systemRegistry } from '../src/domain-list.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { createLinuxApplier } from '../src/config/apply-linux.js';
import type { ConfigDomain } from '../src/config/config-types.js';
import { recreatingSets, runtimeSetsOf } from '../src/config/nft-runtime-sets.js';
import { runCommand, type CommandRunner } from '../src/engine/command-runner.js';
import { tempDir } from './daemon-harness.js';

/** A ruleset laid out as network-nftables.ts writes it: `clients` and `recent_hosts` are runtime sets. */
function ruleset(clientsShape: string): string {
  return [
    'table inet portico {}',
    'flush table inet portico',
    'table inet portico {',
    '\tset lan_ifaces { type ifname; }',
    `\tset clients { ${clientsShape} }`,
    '\tset recent_hosts { type ipv4_addr; flags dynamic, timeout; timeout 1m; size 1024; }',
    '}',
    'flush set inet portico lan_ifaces',
    'table inet portico {',
    '\tset lan_ifaces { type ifname; elements = { "lo" } }',
    `\tset clients { ${clientsShape} }`,
    '\tset recent_hosts { type ipv4_addr; flags dynamic, timeout; timeout 1m; size 1024; }',
    '\tchain forward {',
    '\t\ttype filter hook forward priority 0; policy drop;',
    '\t\tether saddr . ip saddr @clients accept',
    '\t\tip saddr @recent_hosts accept',
    '\t}',
    '}',
    '',
  ].join('\n');
}

const OLD = 'type ether_addr . ipv4_addr; flags timeout; counter; size 65536;';
const NEW = 'type ether_addr . ipv4_addr; flags timeout; size 65536;';

describe('runtime sets of a ruleset', () => {
  test('are the sets it declares and does not flush; a stale one is deleted right after its table is flushed', () => {
    const content = ruleset(NEW);
    const sets = runtimeSetsOf(content);
    expect(sets.map((s) => s.name)).toEqual(['clients', 'recent_hosts']);
    expect(sets[0]).toEqual({ family: 'inet', table: 'portico', kind: 'set', name: 'clients', body: NEW });
    const lines = recreatingSets(content, [sets[0]!]).split('\n');
    expect(lines.slice(0, 3)).toEqual(['table inet portico {}', 'flush table inet portico', 'delete set inet portico clients']);
    expect(recreatingSets(content, [])).toBe(content);
  });

  test('in the rendered Smart QoS ruleset are the DNS-fed sets and the client maps, not the sets it fills', () => {
    const rendered = readFileSync(join(import.meta.dirname, 'golden/qos/network.nft'), 'utf8');
    const names = runtimeSetsOf(rendered).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['qos_dom_priority', 'qos_dom_bulk', 'qos_route_1']));
    expect(names).not.toContain('lan_ifaces');
    expect(names).not.toContain('qos_isp_telecom');
    for (const name of names) expect(rendered).not.toMatch(new RegExp(`^flush (set|map) inet portico ${name}$`, 'm'));
  });
});

const isRoot = process.getuid?.() === 0;
let namespace: string | undefined;
afterEach(async () => {
  if (namespace) await execa('ip', ['netns', 'del', namespace], { reject: false });
  namespace = undefined;
});

describe.skipIf(!isRoot)('a ruleset whose runtime set changed shape (an update, then a restart without a reboot)', () => {
  test('is applied in one transaction that recreates that set; the other runtime sets keep their elements', { timeout: 30_000 }, async () => {
    namespace = `rtset${process.pid}`;
    await execa('ip', ['netns', 'add', namespace]);
    const run: CommandRunner = (argv, options) => runCommand(['ip', 'netns', 'exec', namespace!, ...argv], options);
    const inNs = (argv: string[]) => execa('ip', ['netns', 'exec', namespace!, ...argv]);

    // What the previous version left in the kernel: `clients` with per-element counters.
    await execa('ip', ['netns', 'exec', namespace, 'nft', '-f', '-'], { input: ruleset(OLD) });
    await inNs(['nft', 'add', 'element', 'inet', 'portico', 'recent_hosts', '{ 10.0.0.5 timeout 1h }']);
    await inNs(['nft', 'add', 'element', 'inet', 'portico', 'clients', '{ 02:00:00:00:00:01 . 10.0.0.9 timeout 1h }']);

    const root = tempDir();
    const domain: ConfigDomain = {
      name: 'firewall',
      entities: [],
      render: () => [{ domain: 'firewall', files: [{ target: '/etc/portico/network.nft', content: ruleset(NEW), check: 'nft' }] }],
    };
    // As it is rendered, the kernel refuses the new file.
    expect((await execa('ip', ['netns', 'exec', namespace, 'nft', '-c', '-f', '-'], { input: ruleset(NEW), reject: false })).exitCode).not.toBe(0);

    const applier = createLinuxApplier({ root, run, domains: systemRegistry({}, [domain]) });
    await applier.apply(['firewall'], {});
    const installed = readFileSync(join(root, 'etc/portico/network.nft'), 'utf8');
    expect(installed).toContain('flush table inet portico\ndelete set inet portico clients\n');
    expect(installed).not.toContain('delete set inet portico recent_hosts');

    const clients = (await inNs(['nft', 'list', 'set', 'inet', 'portico', 'clients'])).stdout;
    expect(clients).not.toContain('counter');
    expect(clients).not.toContain('10.0.0.9');
    expect((await inNs(['nft', 'list', 'set', 'inet', 'portico', 'recent_hosts'])).stdout).toContain('10.0.0.5');

    // The next apply installs the file as rendered, and the kernel now takes it as it is.
    const again: ConfigDomain = { ...domain, render: () => [{ domain: 'firewall', files: [{ target: '/etc/portico/network.nft', content: `${ruleset(NEW)}# again\n`, check: 'nft' }] }] };
    await createLinuxApplier({ root, run, domains: systemRegistry({}, [again]) }).apply(['firewall'], {});
    expect(readFileSync(join(root, 'etc/portico/network.nft'), 'utf8')).not.toContain('delete set');
    expect((await inNs(['nft', 'list', 'set', 'inet', 'portico', 'recent_hosts'])).stdout).toContain('10.0.0.5');
    await applier.stop?.();
  });
});
