import { integer, type RulesetContributor } from '../network/network-public.js';

/**
 * The wireless controller's share of the one ruleset: APs and CPEs on the LAN reach the device
 * listener. On the linux driver the LAN reaches only listed ports of the gateway itself (the
 * console's among them); on OpenWrt the LAN zone accepts input, so nothing is added there.
 */
export function wirelessRulesetContributor(port: number): RulesetContributor {
  const dport = integer(port, 1, 65_535, 'wireless device port');
  return {
    entities: [],
    part: () => ({ name: 'wireless device listener', filter: { hooks: { lan_to_device: [`tcp dport ${dport} accept`] } } }),
  };
}
