import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemRulesetParts } from '../src/domain-list.js';
import { NETWORK_FILES } from '../src/domains/network/network-config.js';
import { planNetwork } from '../src/domains/network/network-plan.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import type { RulesetPart } from '../src/domains/network/network-ruleset-parts.js';
import { wirelessRulesetContributor } from '../src/domains/wireless/wireless-ruleset.js';
import { buildConfig, REPRESENTATIVE } from './network-fixture.js';
import { checkRendered } from './network-checker-run.js';

const work = mkdtempSync(join(tmpdir(), 'portico-wireless-ruleset-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the wireless device port in the one ruleset (linux driver)', () => {
  const config = buildConfig(REPRESENTATIVE);
  const ruleset = (parts: readonly RulesetPart[]) => renderNetwork(config, undefined, () => parts)[0]!.files.find((f) => f.target === NETWORK_FILES.nftables)!.content;
  const lanToDevice = (text: string) => text.slice(text.indexOf('chain lan_to_device {'), text.indexOf('}', text.indexOf('chain lan_to_device {')));

  it('lets the LAN reach the device listener on the configured port, and nothing from the WAN', async () => {
    const parts = systemRulesetParts({ wirelessPort: 25002 })
      .map((c) => c.part({}, planNetwork(config)))
      .filter((p): p is RulesetPart => p !== null && p.name === 'wireless device listener');
    expect(parts).toHaveLength(1);
    const text = ruleset(parts);
    expect(lanToDevice(text)).toContain('tcp dport 25002 accept');
    expect(text.match(/25002/g)).toHaveLength(1);
    const result = await checkRendered({ target: NETWORK_FILES.nftables, content: text, check: 'nft' }, work);
    if (result.skipped) console.info(result.skipped);
    else expect(result.problems).toEqual([]);
  });

  it('refuses a port that is not one', () => {
    expect(() => wirelessRulesetContributor(0)).toThrow();
    expect(() => wirelessRulesetContributor(70_000)).toThrow();
  });
});
