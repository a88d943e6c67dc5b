import type { RenderedFile, RenderOutput } from '../../engine/engine-types.js';
import { DEFAULT_RENDER_OPTIONS, NETWORK_DIRS, NETWORK_FILES, type NetworkConfig, type NetworkRenderOptions } from './network-config.js';
import { renderDialledLinks } from './network-dialled-links.js';
import { renderDnsmasq } from './network-dnsmasq.js';
import { renderLinksBatch, renderRoutesBatch, renderStateBatch, renderWanDhcp, renderWanHealth } from './network-ip-batch.js';
import { renderNftables } from './network-nftables.js';
import { planNetwork, type NetworkPlan } from './network-plan.js';
import type { RulesetPart } from './network-ruleset-parts.js';
import { renderEthtool, renderIgmpProxy } from './network-ports.js';
import { renderPppoeFiles } from './network-pppoe.js';
import { renderSysctl } from './network-sysctl.js';
import { renderVpnClientFiles } from './network-vpn.js';

/**
 * The Network section rendered for the `linux` driver (DESIGN §5): pure, configuration in,
 * files out, in the order they are applied. The firewall comes first, so forwarding is never
 * on without base chains that drop (other features' rules come in as ruleset parts, in the same file); links exist before their settings and addresses; the DHCP
 * and DNS service starts once its devices are up.
 */
export function renderNetwork(
  config: NetworkConfig,
  options: NetworkRenderOptions = DEFAULT_RENDER_OPTIONS,
  partsOf: (plan: NetworkPlan) => readonly RulesetPart[] = () => [],
): RenderOutput[] {
  const plan = planNetwork(config);
  const parts = partsOf(plan);
  const files: RenderedFile[] = [
    { target: NETWORK_FILES.nftables, content: renderNftables(plan, options, parts), check: 'nft' },
    { target: NETWORK_FILES.linksBatch, content: renderLinksBatch(plan), check: 'ip-batch' },
    { target: NETWORK_FILES.ethtool, content: renderEthtool(plan), check: 'none' },
    { target: NETWORK_FILES.sysctl, content: renderSysctl(plan), check: 'sysctl' },
    { target: NETWORK_FILES.stateBatch, content: renderStateBatch(plan), check: 'ip-batch' },
    { target: NETWORK_FILES.routesBatch, content: renderRoutesBatch(plan), check: 'ip-batch' },
    { target: NETWORK_FILES.wanHealth, content: renderWanHealth(plan), check: 'none' },
    { target: NETWORK_FILES.wanDhcp, content: renderWanDhcp(plan), check: 'none' },
    { target: NETWORK_FILES.dnsmasq, content: renderDnsmasq(plan, options.systemRoot ?? '', parts.flatMap((p) => p.dnsmasq ?? [])), check: 'dnsmasq' },
  ];
  const igmp = renderIgmpProxy(plan);
  if (igmp) files.push({ target: NETWORK_FILES.igmpproxy, content: igmp, check: 'none' });
  // Dialled links (PPPoE WANs, VPN clients): their files, then what the dialler starts from them.
  files.push(...renderPppoeFiles(plan), ...renderVpnClientFiles(plan));
  files.push({ target: NETWORK_FILES.dialledLinks, content: renderDialledLinks(plan), check: 'none' });
  return [{ domain: 'network', files, dirs: [...NETWORK_DIRS] }];
}
