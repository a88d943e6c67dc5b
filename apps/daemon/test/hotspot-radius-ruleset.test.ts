import { describe, expect, test } from 'vitest';
import { hotspotRadius } from '@portico/schema';
import { radiusRulesetPart } from '../src/domains/hotspot/radius/radius-ruleset.js';

/** The input rule that lets the configured RADIUS servers, and only them, reach the offline port. */
const settings = (over: Record<string, unknown>) => hotspotRadius.schema.parse({ enabled: true, radiusip: '203.0.113.5', sharekey: 's', ...over });

describe('RADIUS ruleset part', () => {
  test('one accept rule per address family, on the configured offline port', () => {
    expect(radiusRulesetPart(settings({ radiusip2: '2001:db8::5', offlineport: 3799 }))).toEqual({
      name: 'hotspot radius',
      filter: { hooks: { input_rules: ['ip saddr { 203.0.113.5 } udp dport 3799 accept', 'ip6 saddr { 2001:db8::5 } udp dport 3799 accept'] } },
    });
  });

  test('nothing is opened while RADIUS or its disconnect port is off', () => {
    expect(radiusRulesetPart(settings({ enabled: false }))).toBeNull();
    expect(radiusRulesetPart(settings({ dae: false }))).toBeNull();
  });
});
