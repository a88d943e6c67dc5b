import { hotspotCmcc, hotspotZone, isIpv4, type HotspotCmcc } from '@portico/schema';
import type { ConfigSnapshot } from '../../../config/config-types.js';
import type { RulesetContributor, RulesetPart } from '../../network/network-public.js';
import { integer, ipv4 } from '../../network/network-public.js';
import { hotspotConfigOf } from '../hotspot-config.js';

/**
 * The CMCC part of the one nftables ruleset: the portal server's requests (REQ_CHALLENGE,
 * REQ_AUTH, …) reach the access controller's UDP port from cmccip only, on whatever side it sits
 * (the input chain drops everything it is not told to take). Only while a zone signs in through
 * CMCC and the section names both ends, as the controller itself runs. NTF_LOGOUT's answers come
 * back as an established flow and need no rule.
 */
export function cmccRulesetPart(settings: HotspotCmcc, inUse: boolean): RulesetPart | null {
  if (!inUse || settings.cmccurl === '' || !isIpv4(settings.cmccip) || !isIpv4(settings.wlanacip)) return null;
  const rule = `ip saddr ${ipv4(settings.cmccip)} ip daddr ${ipv4(settings.wlanacip)} udp dport ${integer(settings.acport, 1, 65535, 'cmcc ac port')} accept`;
  return { name: 'hotspot cmcc', filter: { hooks: { input_rules: [rule] } } };
}

/** The saved section and whether an enabled zone uses it, from a snapshot. */
export function cmccRulesetPartOf(snapshot: ConfigSnapshot): RulesetPart | null {
  const stored = snapshot[hotspotCmcc.name]?.find((row) => row.id === '')?.data ?? {};
  // The zones as the engine reads them (enabled ones only), as the controller is started for.
  const inUse = hotspotConfigOf(snapshot).zones.some((zone) => zone.externalPortal === 'cmcc');
  return cmccRulesetPart(hotspotCmcc.schema.parse(stored), inUse);
}

export function cmccRulesetContributor(): RulesetContributor {
  return { entities: [hotspotCmcc.name, hotspotZone.name], part: (snapshot) => cmccRulesetPartOf(snapshot) };
}
