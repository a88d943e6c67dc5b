import { describe, expect, test } from 'vitest';
import { hotspotCmcc, hotspotZone } from '@portico/schema';
import { cmccRulesetPart, cmccRulesetPartOf } from '../src/domains/hotspot/cmcc/cmcc-ruleset.js';
import { renderOpenwrtCmcc, OPENWRT_HOTSPOT_FILES } from '../src/domains/hotspot/hotspot-openwrt.js';

/** The input rule that lets the CMCC portal server, and only it, reach the access controller's port. */
const settings = (over: Record<string, unknown> = {}) =>
  hotspotCmcc.schema.parse({ cmccurl: 'http://portal.example.net/', cmccip: '203.0.113.7', wlanacip: '198.51.100.2', acport: 2000, ...over });
const zone = (authmodel: string, enabled = true) => ({ id: 'z1', data: hotspotZone.schema.parse({ id: 'z1', name: 'carrier', ifname: 'lan', authmodel, enabled }) as Record<string, unknown> });
const snapshot = (zones: ReturnType<typeof zone>[], over: Record<string, unknown> = {}) => ({
  [hotspotCmcc.name]: [{ id: '', data: settings(over) as unknown as Record<string, unknown> }],
  [hotspotZone.name]: zones,
});

describe('CMCC ruleset part', () => {
  test('one accept rule: from cmccip to wlanacip on the controller\'s port', () => {
    expect(cmccRulesetPart(settings({ acport: 2001 }), true)).toEqual({
      name: 'hotspot cmcc',
      filter: { hooks: { input_rules: ['ip saddr 203.0.113.7 ip daddr 198.51.100.2 udp dport 2001 accept'] } },
    });
  });

  test('nothing is opened without a cmcc zone, with the zone off, or with a section that cannot run', () => {
    expect(cmccRulesetPart(settings(), false)).toBeNull();
    expect(cmccRulesetPart(settings({ cmccurl: '', cmccip: '', wlanacip: '' }), true)).toBeNull();
    expect(cmccRulesetPartOf(snapshot([zone('cmcc')]))).not.toBeNull();
    expect(cmccRulesetPartOf(snapshot([zone('webportal')]))).toBeNull();
    expect(cmccRulesetPartOf(snapshot([zone('cmcc', false)]))).toBeNull();
  });

  test('on OpenWrt the same accept, in an fw4 include of the input chain', () => {
    const [output] = renderOpenwrtCmcc(snapshot([zone('cmcc')]) as never);
    expect(output?.files.map((f) => f.target)).toEqual([OPENWRT_HOTSPOT_FILES.cmcc]);
    expect(output?.files[0]?.content).toContain('ip saddr 203.0.113.7 ip daddr 198.51.100.2 udp dport 2000 accept');
    expect(renderOpenwrtCmcc(snapshot([zone('webportal')]) as never)).toEqual([]);
  });
});
