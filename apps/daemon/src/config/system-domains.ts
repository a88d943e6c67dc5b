import type { Settings } from '../settings.js';
import type { ConfigDomain } from './config-types.js';
import { networkDomain } from '../domains/network/network-domain.js';
import type { RulesetContributor } from '../domains/network/network-ruleset-parts.js';
import { hotspotRulesetContributor } from '../domains/hotspot/hotspot-ruleset.js';
import { firewallContributor } from '../domains/firewall/firewall-contributor.js';
import { conntrackDomain } from '../domains/firewall/firewall-conntrack.js';
import { qosDomain, qosRulesetContributor } from '../domains/qos/qos-domain.js';

/**
 * Features that add to the one nftables ruleset the network domain renders, in the order
 * their rules run inside each extension chain.
 */
export const RULESET_CONTRIBUTORS: readonly RulesetContributor[] = [hotspotRulesetContributor(), firewallContributor, qosRulesetContributor];

/**
 * Every config domain of the device, in apply order: the network (with the ruleset every
 * feature adds to) first, then the domains that build on its devices.
 */
export function systemDomains(settings: Pick<Settings, 'port' | 'systemRoot' | 'driver'>): ConfigDomain[] {
  return [networkDomain(settings, RULESET_CONTRIBUTORS), conntrackDomain(settings), qosDomain(settings)];
}
