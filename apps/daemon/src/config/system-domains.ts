import type { Settings } from '../settings.js';
import type { ConfigDomain } from './config-types.js';
import { networkDomain } from '../domains/network/network-domain.js';
import type { RulesetContributor } from '../domains/network/network-ruleset-parts.js';
import { hotspotRulesetContributor } from '../domains/hotspot/hotspot-ruleset.js';
import { firewallContributor } from '../domains/firewall/firewall-contributor.js';
import { conntrackDomain } from '../domains/firewall/firewall-conntrack.js';
import { qosDomain, qosRulesetContributor } from '../domains/qos/qos-domain.js';
import { qosDownloadShaping } from '../domains/qos/qos-kernel.js';
import type { QosDownloadChoice, QosDownloadShaping } from '../domains/qos/qos-plan.js';

/**
 * Features that add to the one nftables ruleset the network domain renders, in the order
 * their rules run inside each extension chain.
 */
export function rulesetContributors(qosDownload: QosDownloadChoice = 'lan'): RulesetContributor[] {
  return [hotspotRulesetContributor(), firewallContributor, qosRulesetContributor(qosDownload)];
}

/**
 * Every config domain of the device, in apply order: the network (with the ruleset every
 * feature adds to) first, then the domains that build on its devices.
 */
export function systemDomains(settings: Pick<Settings, 'port' | 'systemRoot' | 'driver' | 'qosDownload'>): ConfigDomain[] {
  // Asked on the first render, not at start: the kernel probe may scan its symbol list.
  let side: QosDownloadShaping | undefined;
  const download = () => (side ??= qosDownloadShaping(settings.qosDownload, settings.driver));
  return [networkDomain(settings, rulesetContributors(download)), conntrackDomain(settings), qosDomain(settings, download)];
}
