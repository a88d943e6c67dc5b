import type { RulesetContributor } from '../network/network-public.js';
import { FIREWALL_ENTITY_NAMES, firewallConfigOf } from './firewall-config.js';
import { firewallRulesetPart } from './firewall-nftables.js';
import { renderOpenwrtFirewall } from './firewall-openwrt.js';

/** The Firewall section's share of the one nftables ruleset (and of fw4 on OpenWrt). */
export const firewallContributor: RulesetContributor = {
  entities: FIREWALL_ENTITY_NAMES,
  part: (snapshot, plan) => firewallRulesetPart(firewallConfigOf(snapshot), plan),
  openwrt: (snapshot, plan) => renderOpenwrtFirewall(firewallConfigOf(snapshot), plan),
};
