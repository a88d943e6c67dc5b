import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import type { RulesetPart } from '../src/domains/network/network-ruleset-parts.js';
import { buildConfig, REPRESENTATIVE } from './network-fixture.js';
import { checkRendered } from './network-checker-run.js';

const work = mkdtempSync(join(tmpdir(), 'portico-parts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SAMPLE: RulesetPart = {
  name: 'sample',
  filter: {
    sets: [
      { name: 'sample_blocked', type: 'ipv4_addr', flags: ['interval'], elements: ['198.51.100.0/24'] },
      { name: 'sample_marks', kind: 'map', type: 'ipv4_addr : mark', elements: ['192.168.1.10 : 0x00000010'] },
      { name: 'sample_clients', type: 'ether_addr', flags: ['timeout'], runtime: true, elements: ['02:00:00:00:00:01'] },
    ],
    chains: [{ name: 'sample_mangle', base: 'type filter hook prerouting priority mangle; policy accept;', rules: ['meta mark set ip saddr map @sample_marks'] }],
    hooks: { forward_rules: ['ip daddr @sample_blocked drop'], input_rules: ['tcp dport 2222 drop'], lan_to_device: ['tcp dport 2050 accept'] },
  },
  nat: {
    chains: [{ name: 'sample_dnat', rules: ['tcp dport 8022 dnat to 192.168.1.10:22'] }],
    hooks: { prerouting_rules: ['jump sample_dnat'], postrouting_rules: ['ip saddr 192.168.9.0/24 masquerade'] },
  },
};

function ruleset(parts: readonly RulesetPart[]): string {
  return renderNetwork(buildConfig(REPRESENTATIVE), undefined, () => parts)[0]!.files.find((f) => f.target === NETWORK_FILES.nftables)!.content;
}

describe('ruleset parts join the one network ruleset', () => {
  const text = ruleset([SAMPLE]);

  it('adds nothing when no feature contributes', () => {
    expect(ruleset([])).toBe(renderNetwork(buildConfig(REPRESENTATIVE))[0]!.files[0]!.content);
  });

  it('declares, flushes and fills rendered sets, but never flushes or refills runtime sets', () => {
    expect(text).toContain('flush set inet portico sample_blocked');
    expect(text).toContain('flush map inet portico sample_marks');
    expect(text).not.toContain('flush set inet portico sample_clients');
    expect(text).toContain('set sample_blocked { type ipv4_addr; flags interval; elements = { 198.51.100.0/24 } }');
    expect(text).toContain('map sample_marks { type ipv4_addr : mark; elements = { 192.168.1.10 : 0x00000010 } }');
    expect(text).not.toContain('02:00:00:00:00:01');
  });

  it('puts hook rules inside the extension chains and the part chains in their tables', () => {
    const chainBody = (name: string) => text.slice(text.indexOf(`chain ${name} {`), text.indexOf('}', text.indexOf(`chain ${name} {`)));
    expect(chainBody('forward_rules')).toContain('ip daddr @sample_blocked drop');
    expect(chainBody('input_rules')).toContain('tcp dport 2222 drop');
    expect(chainBody('lan_to_device')).toContain('tcp dport 2050 accept');
    expect(chainBody('prerouting_rules')).toContain('jump sample_dnat');
    expect(chainBody('postrouting_rules')).toContain('ip saddr 192.168.9.0/24 masquerade');
    expect(text.indexOf('chain sample_dnat')).toBeGreaterThan(text.indexOf('table ip portico_nat {\n'));
    expect(text.indexOf('chain sample_mangle')).toBeLessThan(text.indexOf('table ip portico_nat {}'));
  });

  it('passes nft -c', async () => {
    const result = await checkRendered({ target: NETWORK_FILES.nftables, content: text, check: 'nft' }, work);
    if (result.skipped) console.info(result.skipped);
    else expect(result.problems).toEqual([]);
  });
});
