import type { Settings } from '../../settings.js';
import type { ConfigDomain, ConfigSnapshot } from '../../config/config-types.js';
import { NETWORK_ENTITY_NAMES } from '../../config/config-domains.js';
import type { RenderOutput } from '../../engine/engine-types.js';
import { networkConfigOf } from '../network/network-domain.js';
import { planNetwork, type NetworkPlan } from '../network/network-plan.js';
import type { RulesetContributor, RulesetPart } from '../network/network-ruleset-parts.js';
import { QOS_ENTITY_NAMES, QOS_FILES, qosConfigOf } from './qos-config.js';
import { renderQosDnsmasq, renderQosPart } from './qos-nftables.js';
import { renderQosOpenwrtTable, QOS_OPENWRT_FILES } from './qos-openwrt.js';
import { qosOpenwrtDhcp, qosOpenwrtRouteFiles } from '../../drivers/openwrt/openwrt-qos-routes.js';
import { planQos } from './qos-plan.js';
import { renderQosTc } from './qos-tc.js';

function qosPart(snapshot: ConfigSnapshot, network: NetworkPlan): RulesetPart | null {
  const config = qosConfigOf(snapshot);
  const part = renderQosPart(config, planQos(config, network), network);
  const dnsmasq = renderQosDnsmasq(config, network);
  return part && dnsmasq.length ? { ...part, dnsmasq } : part;
}

/**
 * Smart QoS in the one nftables ruleset (classification, policy routes, load balance, P2P
 * blocking) and, on OpenWrt, the same rules as an fw4 include of their own table.
 */
export const qosRulesetContributor: RulesetContributor = {
  entities: QOS_ENTITY_NAMES,
  part: qosPart,
  openwrt(snapshot, network): RenderOutput[] {
    const part = qosPart(snapshot, network);
    const routes = qosOpenwrtRouteFiles(snapshot, network);
    if (!part) return [routes];
    return [{ domain: 'network', files: [{ target: QOS_OPENWRT_FILES.nftInclude, content: renderQosOpenwrtTable(part, network), check: 'nft' }] }, routes];
  },
  // Port, domain and ISP routes on OpenWrt are mwan3 marks (openwrt-qos-routes.ts), with their
  // domain sets fed by dnsmasq sections in /etc/config/dhcp.
  openwrtDhcp: qosOpenwrtDhcp,
};

/**
 * The traffic-control half of Smart QoS: one `tc -batch` script with the HTB trees of every
 * WAN (upload) and LAN-side device (download). Applied after the network domain, whose devices
 * it shapes; it re-renders when the network changes, since device names and WANs come from it.
 */
export function qosDomain(_settings: Pick<Settings, 'driver'>): ConfigDomain {
  return {
    name: 'qos',
    entities: [...QOS_ENTITY_NAMES, ...NETWORK_ENTITY_NAMES],
    render(snapshot) {
      const networkConfig = networkConfigOf(snapshot);
      // Like the network domain: a device with no interface configured is left as it is.
      if (networkConfig.interfaces.length === 0) return [];
      const network = planNetwork(networkConfig);
      const plan = planQos(qosConfigOf(snapshot), network);
      return [{ domain: 'qos', files: [{ target: QOS_FILES.tc, content: renderQosTc(plan), check: 'tc' }] }];
    },
  };
}
