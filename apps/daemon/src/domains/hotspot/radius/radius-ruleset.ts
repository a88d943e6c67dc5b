import { hotspotRadius, isIpv4, type HotspotRadius } from '@portico/schema';
import type { ConfigSnapshot } from '../../../config/config-types.js';
import type { RulesetContributor, RulesetPart } from '../../network/network-public.js';
import { integer, ipv4, ipv6 } from '../../network/network-public.js';

/**
 * The RADIUS part of the one nftables ruleset: the device takes Disconnect and CoA requests on
 * the offline port from the configured servers' addresses only, on whatever side they sit
 * (the input chain drops everything it is not told to take). Answers to the device's own
 * requests come back as established connections and need no rule.
 */
export function radiusRulesetPart(settings: HotspotRadius): RulesetPart | null {
  const servers = [settings.radiusip, settings.radiusip2].filter((host) => host !== '');
  if (!settings.enabled || !settings.dae || servers.length === 0) return null;
  const port = integer(settings.offlineport, 1, 65535, 'offline port');
  const v4 = servers.filter(isIpv4).map(ipv4);
  const v6 = servers.filter((host) => !isIpv4(host)).map(ipv6);
  const rules = [
    ...(v4.length ? [`ip saddr { ${v4.join(', ')} } udp dport ${port} accept`] : []),
    ...(v6.length ? [`ip6 saddr { ${v6.join(', ')} } udp dport ${port} accept`] : []),
  ];
  return { name: 'hotspot radius', filter: { hooks: { input_rules: rules } } };
}

export function radiusRulesetContributor(): RulesetContributor {
  return {
    entities: [hotspotRadius.name],
    part(snapshot: ConfigSnapshot) {
      const stored = snapshot[hotspotRadius.name]?.find((row) => row.id === '')?.data ?? {};
      return radiusRulesetPart(hotspotRadius.schema.parse(stored));
    },
  };
}
