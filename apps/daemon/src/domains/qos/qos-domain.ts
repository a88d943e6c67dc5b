import type { Settings } from '../../settings.js';
import type { ConfigDomain, ConfigSnapshot } from '../../config/config-types.js';
import { NETWORK_ENTITY_NAMES, networkConfigOf, noInterface, openwrtDevicePlan, planNetwork, type NetworkPlan } from '../network/network-public.js';
import type { RenderOutput } from '../../engine/engine-types.js';
import type { RulesetContributor, RulesetPart } from '../network/network-public.js';
import { QOS_ENTITY_NAMES, QOS_FILES, qosConfigOf } from './qos-config.js';
import { renderQosDnsmasq, renderQosPart } from './qos-nftables.js';
import { renderQosOpenwrtTable, QOS_OPENWRT_FILES } from './qos-openwrt.js';
import { qosOpenwrtDhcp, qosOpenwrtRouteFiles } from './qos-openwrt-routes.js';
import { downloadSideOf, planQos, type QosDownloadChoice, type QosDownloadShaping } from './qos-plan.js';
import { renderQosTc } from './qos-tc.js';

function qosPart(snapshot: ConfigSnapshot, network: NetworkPlan, download: QosDownloadShaping): RulesetPart | null {
  const config = qosConfigOf(snapshot);
  const part = renderQosPart(config, planQos(config, network, download), network);
  const dnsmasq = renderQosDnsmasq(config, network);
  return part && dnsmasq.length ? { ...part, dnsmasq } : part;
}

/**
 * Smart QoS in the one nftables ruleset (classification, policy routes, load balance, P2P
 * blocking) and, on OpenWrt, the same rules as an fw4 include of their own table. `download`
 * says where download traffic is shaped (qos-plan.ts); the tc script must agree (`qosDomain`).
 * OpenWrt shapes it on the LAN side: its tc script is run by `tc -batch` alone, which cannot
 * create the IFB devices.
 */
export function qosRulesetContributor(download: QosDownloadChoice = 'lan'): RulesetContributor {
  return {
    entities: QOS_ENTITY_NAMES,
    part: (snapshot, network) => qosPart(snapshot, network, downloadSideOf(download)),
    openwrt: (snapshot, network) => qosOpenwrtOutputs(snapshot, network),
    // Port, domain and ISP routes on OpenWrt are mwan3 marks (openwrt-qos-routes.ts), with their
    // domain sets fed by dnsmasq sections in /etc/config/dhcp.
    openwrtDhcp: qosOpenwrtDhcp,
  };
}

function qosOpenwrtOutputs(snapshot: ConfigSnapshot, network: NetworkPlan): RenderOutput[] {
  const part = qosPart(snapshot, network, 'lan');
  const routes = qosOpenwrtRouteFiles(snapshot, network);
  if (!part) return [routes];
  return [{ domain: 'network', files: [{ target: QOS_OPENWRT_FILES.nftInclude, content: renderQosOpenwrtTable(part, network), check: 'nft' }] }, routes];
}

/**
 * The traffic-control half of Smart QoS: one `tc -batch` script with the HTB trees of every
 * WAN (upload) and of the download side. Applied after the network domain, whose devices it
 * shapes; it re-renders when the network changes, since device names and WANs come from it.
 */
export function qosDomain(settings: Pick<Settings, 'driver'>, download: QosDownloadChoice = 'lan'): ConfigDomain {
  const side = (): QosDownloadShaping => (settings.driver === 'openwrt' ? 'lan' : downloadSideOf(download));
  return {
    name: 'qos',
    entities: [...QOS_ENTITY_NAMES, ...NETWORK_ENTITY_NAMES],
    keepInstalled: noInterface,
    render(snapshot) {
      const networkConfig = networkConfigOf(snapshot);
      // Like the network domain: a device with no interface configured is left as it is.
      if (networkConfig.interfaces.length === 0) return [];
      // On OpenWrt the script shapes the devices netifd names (a PPPoE WAN's `pppoe-<name>`).
      const planned = planNetwork(networkConfig);
      const network = settings.driver === 'openwrt' ? openwrtDevicePlan(planned) : planned;
      const plan = planQos(qosConfigOf(snapshot), network, side());
      return [{ domain: 'qos', files: [{ target: QOS_FILES.tc, content: renderQosTc(plan), check: 'tc' }] }];
    },
  };
}
